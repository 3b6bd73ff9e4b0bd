/// SplitMix64: a tiny, fast, seeded generator, so every synthesised file is the same bit for bit.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Evenly on a log scale in `range` (frequencies, rates); `range` must be positive.
    public mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        _exp(uniform(_log(range.lowerBound)..._log(range.upperBound)))
    }

    /// Exponentially distributed with `mean` (the gaps between events that come at random, at a mean rate).
    public mutating func exponential(mean: Double) -> Double {
        -mean * _log(max(1 - unit(), 1e-300))
    }

    /// Standard normal (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }
}

import Foundation
@inline(__always) func _log(_ x: Double) -> Double { Foundation.log(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Foundation.exp(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Foundation.cos(x) }
