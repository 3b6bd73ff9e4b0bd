import Foundation

/// `octave_flatness_1`…`octave_flatness_6` (see `FeatureID`): per octave from 62.5 Hz to 4 kHz, the log of the geometric
/// over the arithmetic mean of each sub-frame's power, averaged over the window. Where `spectral_flatness` reads the
/// whole band at once, an octave at a time tells a tone or a voice's harmonics in one octave over noise in the others
/// (a beep over a fan, a cry over rain) from a sound that is noise or tone throughout.
final class OctaveFlatness {
    static let octaves = 6
    /// The lowest octave's lower edge, Hz; each octave's upper edge is twice its lower one.
    static let lowestHz: Float = 62.5
    /// Every bin's power is read over a floor this far under the sub-frame's strongest bin (60 dB), as the mel bands
    /// are (`CepstralFeatures.dynamicRange`): what lies under it is leakage and the resampler's and recorder's filters,
    /// which differ between rates and devices, and a log mean would read nothing else.
    static let dynamicRange: Float = 1e-6

    /// Each octave's bins: those of frequency `f` with `lower ≤ f < 2 lower`.
    private let bins: [Range<Int>]

    init(binHz: Float, binCount: Int) {
        bins = (0..<Self.octaves).map { octave in
            let lower = Self.lowestHz * Float(1 << octave)
            let first = min(binCount, Int((lower / binHz).rounded(.up)))
            let end = min(binCount, Int((2 * lower / binHz).rounded(.up)))
            return first..<max(first, end)
        }
    }

    /// Adds one sub-frame's power spectrum, whose strongest bin holds `strongest`, to `block`.
    func add(_ power: UnsafeBufferPointer<Float>, strongest: Float, to block: BlockSummary) {
        let floor = max(1e-20, strongest * Self.dynamicRange)
        block.octaveFlatnessSum.withUnsafeMutableBufferPointer { sums in
            for (octave, range) in bins.enumerated() where !range.isEmpty {
                let count = Float(range.count)
                let (logSum, sum) = Self.sums(power, range, adding: floor)
                sums[octave] += min(0, logSum / count - log(sum / count + floor))
            }
        }
    }

    typealias Lanes = SIMD8<Float>

    /// `Σ ln(power[i] + floor)` and `Σ power[i]` over `range`, in one pass eight bins at a time and with one logarithm:
    /// each value splits into its binary exponent, summed exactly as an integer, and its mantissa in [1, 2), multiplied
    /// into its lane's product, which is split the same way after every step so that it stays in [1, 2).
    static func sums(_ power: UnsafeBufferPointer<Float>, _ range: Range<Int>, adding floor: Float) -> (logSum: Float, sum: Float) {
        let base = power.baseAddress!
        let mantissaBits = SIMD8<UInt32>(repeating: 0x007F_FFFF), one = SIMD8<UInt32>(repeating: 0x3F80_0000)
        var exponents = SIMD8<Int32>(repeating: 0)
        var product = Lanes(repeating: 1), total = Lanes()
        @inline(__always) func split(_ value: Lanes) -> (exponent: SIMD8<Int32>, mantissa: Lanes) {
            let bits = unsafeBitCast(value, to: SIMD8<UInt32>.self)
            return (SIMD8<Int32>(truncatingIfNeeded: bits &>> 23) &- 127,
                    unsafeBitCast((bits & mantissaBits) | one, to: Lanes.self))
        }
        var bin = range.lowerBound
        while bin + 8 <= range.upperBound {
            let value = UnsafeRawPointer(base + bin).loadUnaligned(as: Lanes.self)
            total += value
            let part = split(value + Lanes(repeating: floor))
            let renormalised = split(product * part.mantissa)
            exponents &+= part.exponent &+ renormalised.exponent
            product = renormalised.mantissa
            bin += 8
        }
        var exponentSum = Int(exponents.wrappedSum())
        var sum = total.sum()
        // The lanes' products (eight in [1, 2)) and the last few bins' mantissas, renormalised the same way.
        var mantissa: Float = 1
        for lane in 0..<8 { mantissa *= product[lane] }
        while bin < range.upperBound {
            sum += base[bin]
            let bits = (base[bin] + floor).bitPattern
            exponentSum += Int((bits >> 23) & 0xFF) - 127
            mantissa *= Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F80_0000)
            let productBits = mantissa.bitPattern
            exponentSum += Int((productBits >> 23) & 0xFF) - 127
            mantissa = Float(bitPattern: (productBits & 0x007F_FFFF) | 0x3F80_0000)
            bin += 1
        }
        return (Float(Double(log(mantissa)) + Double(exponentSum) * M_LN2), sum)
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames with signal number `1 / scale`.
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, into features: inout FeatureVector) {
        for (octave, id) in FeatureID.octaveFlatnesses.enumerated() {
            features[id] = (a.octaveFlatnessSum[octave] + (b?.octaveFlatnessSum[octave] ?? 0)) * scale
        }
    }
}
