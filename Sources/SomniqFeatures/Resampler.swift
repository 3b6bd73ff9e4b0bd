import Foundation

/// Converts a stream of samples from one rate to another through a low-pass filter: a Kaiser-windowed sinc,
/// evaluated at each output sample's exact position in the input (band-limited interpolation, as in Smith's
/// "Digital Audio Resampling").
///
/// Output sample `n` sits at `n / outputRate` seconds, input sample `i` at `i / inputRate`: the filter is
/// symmetric, so the output is not delayed. The cut-off is `cutoffShare` of the lower Nyquist frequency of the
/// two rates, so that nothing above the output's Nyquist frequency folds back into it (downsampling) and no
/// image of the input spectrum appears above the input's (upsampling). The filter spans `zeroCrossings` periods
/// of its cut-off on each side. At equal rates it is a plain low-pass.
///
/// The filter's phases (one per distinct fractional position, `outputRate / gcd(inputRate, outputRate)` of them)
/// are computed once; above `maximumPhases`, positions are rounded to the nearest of that many (an error of at
/// most 1/(2·`maximumPhases`) of an input sample). Each phase is normalised to a gain of exactly 1 at 0 Hz.
/// Deterministic: integer positions, no clocks, the same arithmetic order on every run.
///
/// At a whole ratio (16, 24, 32 or 48 kHz to 8 kHz) every output has phase 0, and the filter is symmetric: output `n`
/// is `h₀ x[Mn] + Σ h_d (x[Mn + d] + x[Mn − d])`. The input is then split into its `M` phases (every `M`th sample,
/// side by side), so that the samples at one distance from eight consecutive outputs are contiguous: eight outputs
/// are made at once, lane by lane, with no sums across lanes and half the multiplications (the same filter, so the
/// same response; only the rounding of the sums differs from the general loop's).
public final class Resampler: StreamingRateConversion {
    public let inputRate: Int
    public let outputRate: Int
    /// The filter's cut-off, in Hz.
    public let cutoffHz: Double
    /// Input samples the filter reads on each side of an output position.
    let halfWidth: Int
    /// Coefficients per phase, padded with zeros to a multiple of 8.
    let tapsPerPhase: Int
    let phaseCount: Int
    /// `phaseCount × tapsPerPhase`: phase `p` weights input samples `i0 - halfWidth + 1 ... i0 + halfWidth`.
    private let coefficients: [Float]
    private let exactPhases: Bool
    /// At a whole ratio `M` (`outputStep == 1`): the filter's centre and its taps at distances 1 ..< `halfWidth`
    /// (the same on both sides); `nil` otherwise.
    private let wholeRatio: (centre: Float, sides: [Float])?
    /// The input's phases for a whole-ratio batch: phase `r` at `phases[r * phaseStride ..< (r + 1) * phaseStride]`.
    private var phases: [Float] = []
    /// Where each side tap's two samples start in `phases` (after, before), for the batch in hand.
    private var sideOffsets: [Int]
    /// `inputRate / g` and `outputRate / g` for `g = gcd(inputRate, outputRate)`.
    private let inputStep: Int64, outputStep: Int64

    /// Input samples not yet discarded: `pending[k]` is input sample `pendingStart + k` (negative positions are
    /// the zeros before the stream).
    private var pending: [Float]
    private var pendingStart: Int64
    /// Input samples received so far.
    public private(set) var inputCount: Int64 = 0
    /// Output samples produced so far.
    public private(set) var outputCount: Int64 = 0
    /// The outputs the last call made (a new array each call: `process` hands it over).
    private var output: [Float] = []

    public static let maximumPhases = 1024
    public static let defaultZeroCrossings = 16
    public static let defaultCutoffShare = 0.925
    /// Kaiser's β: about 55 dB of stop-band attenuation.
    public static let kaiserBeta = 5.0

    /// - Parameter splitsPhases: at a whole ratio, make the outputs from the input's phases (the default); `false`
    ///   runs the general loop there too (for tests comparing the two).
    public init(inputRate: Int, outputRate: Int, cutoffShare: Double = Resampler.defaultCutoffShare,
                zeroCrossings: Int = Resampler.defaultZeroCrossings, splitsPhases: Bool = true) {
        precondition(inputRate > 0 && outputRate > 0 && cutoffShare > 0 && cutoffShare <= 1 && zeroCrossings > 0)
        self.inputRate = inputRate
        self.outputRate = outputRate
        let lowerRate = min(inputRate, outputRate)
        cutoffHz = cutoffShare * Double(lowerRate) / 2
        let divisor = Self.gcd(inputRate, outputRate)
        inputStep = Int64(inputRate / divisor)
        outputStep = Int64(outputRate / divisor)
        exactPhases = outputStep <= Int64(Self.maximumPhases)
        phaseCount = exactPhases ? Int(outputStep) : Self.maximumPhases
        // The cut-off's period, in input samples, is inputRate / (2 cutoff); the filter spans `zeroCrossings` of them.
        halfWidth = Int((Double(zeroCrossings) * Double(inputRate) / Double(lowerRate)).rounded(.up))
        tapsPerPhase = (2 * halfWidth + 7) / 8 * 8
        let normalisedCutoff = 2 * cutoffHz / Double(inputRate)  // of the input's sample rate
        var table = [Float](repeating: 0, count: phaseCount * tapsPerPhase)
        let besselOfBeta = Self.besselI0(Self.kaiserBeta)
        for phase in 0..<phaseCount {
            let fraction = Double(phase) / Double(phaseCount)
            var row = [Double](repeating: 0, count: 2 * halfWidth)
            for tap in 0..<(2 * halfWidth) {
                let distance = Double(tap - halfWidth + 1) - fraction  // input samples from the output position
                let x = distance / Double(halfWidth)
                guard abs(x) < 1 else { continue }
                let argument = Double.pi * normalisedCutoff * distance
                let sinc = argument == 0 ? 1 : sin(argument) / argument
                row[tap] = normalisedCutoff * sinc * Self.besselI0(Self.kaiserBeta * (1 - x * x).squareRoot()) / besselOfBeta
            }
            let gain = row.reduce(0, +)
            for tap in row.indices { table[phase * tapsPerPhase + tap] = Float(row[tap] / gain) }
        }
        coefficients = table
        if outputStep == 1 && splitsPhases {
            // Phase 0's tap t lies at distance t − halfWidth + 1: the centre at t = halfWidth − 1.
            let centre = halfWidth - 1
            wholeRatio = (table[centre], (1..<halfWidth).map { table[centre + $0] })
        } else {
            wholeRatio = nil
        }
        sideOffsets = [Int](repeating: 0, count: 2 * max(0, halfWidth - 1))
        pending = [Float](repeating: 0, count: halfWidth)
        pendingStart = -Int64(halfWidth)
    }

    /// Output samples the whole input of `inputFrames` samples gives: every output position inside the input,
    /// `floor(inputFrames × outputRate / inputRate)`, and at least one for a non-empty input.
    public static func outputCount(inputFrames: Int64, inputRate: Int, outputRate: Int) -> Int64 {
        guard inputFrames > 0 else { return 0 }
        return max(1, inputFrames * Int64(outputRate) / Int64(inputRate))
    }

    /// Takes the next input samples; calls `body` with the output samples they complete (possibly none).
    public func process(_ samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        let made = process(samples)
        if !made.isEmpty { made.withUnsafeBufferPointer(body) }
    }

    /// Takes the next input samples; returns the output samples they complete (possibly none). The array is handed
    /// over, not copied: a caller that keeps the outputs (`SourceConditioner`, passing them to another thread) pays
    /// for no copy of them.
    public func process(_ samples: UnsafeBufferPointer<Float>) -> [Float] {
        pending.append(contentsOf: samples)
        inputCount += Int64(samples.count)
        produce(upTo: .max)
        defer { output = [] }
        return output
    }

    /// Ends the stream: produces the outputs left (reading zeros past the input's end), up to
    /// `outputCount(inputFrames:...)` in all.
    public func finish(_ body: (UnsafeBufferPointer<Float>) -> Void) {
        finish(upTo: Self.outputCount(inputFrames: inputCount, inputRate: inputRate, outputRate: outputRate), body)
    }

    /// Ends the stream with `total` outputs in all, at most `outputCount(inputFrames:...)` of the input received (a
    /// stage after halvings ends where the whole conversion's count does: `RateConverter`).
    public func finish(upTo total: Int64, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        let natural = Self.outputCount(inputFrames: inputCount, inputRate: inputRate, outputRate: outputRate)
        precondition(total <= max(outputCount, natural), "more outputs than the input received makes")
        pending.append(contentsOf: repeatElement(0, count: tapsPerPhase))
        produce(upTo: total)
        if !output.isEmpty { output.withUnsafeBufferPointer(body) }
    }

    /// Makes the outputs the input held allows, up to `limit`, into `output` (a new array holding only them).
    private func produce(upTo limit: Int64) {
        output = []
        let available = pendingStart + Int64(pending.count)  // one past the last input sample held
        if let wholeRatio {
            produceWholeRatio(upTo: limit, available: available, centre: wholeRatio.centre, sides: wholeRatio.sides)
        } else {
            produceGeneral(upTo: limit, available: available)
        }
        // Keep only what later outputs can still read.
        let nextWhole = outputCount * inputStep / outputStep
        let keepFrom = max(pendingStart, nextWhole - Int64(halfWidth) + 1)
        let drop = Int(keepFrom - pendingStart)
        if drop > 4096 || (drop > 0 && drop == pending.count) {
            pending.removeFirst(drop)
            pendingStart = keepFrom
        }
    }

    /// Outputs `outputCount ..< limit` at a whole ratio `M`, as many as the input held allows (the same outputs
    /// `tap(n).end` lets the general loop make). Phase `r` of the batch holds inputs `base + r + M j`, where `base`
    /// (a multiple of `M` before the first output) lies `reach` phases' worth before it, so input `M(n₀ + i) + d` is
    /// phase `d mod M` at `i + reach + ⌊d / M⌋`. A lane and the scalar loop for the last outputs do the same
    /// operations in the same order, so where a batch ends changes no output.
    private func produceWholeRatio(upTo limit: Int64, available: Int64, centre: Float, sides: [Float]) {
        let ratio = Int(inputStep)
        let span = Int64(tapsPerPhase - halfWidth + 1)  // tap(n).end − Mn
        guard available - span >= 0 else { return }
        let last = min(limit, (available - span) / Int64(ratio) + 1)
        guard last > outputCount else { return }
        let count = Int(last - outputCount)
        let reach = (halfWidth - 1 + ratio - 1) / ratio  // phases' samples before the first output
        let base = Int(outputCount * Int64(ratio) - pendingStart) - reach * ratio  // in `pending`; may be negative
        let stride = count + 2 * reach
        if phases.count < ratio * stride { phases = [Float](repeating: 0, count: ratio * stride) }
        pending.withUnsafeBufferPointer { input in
            phases.withUnsafeMutableBufferPointer { split in
                if ratio == 2, base >= -2 {
                    // The usual case at 16 kHz (`base` is -1 after the first batch): the pairs held split sixteen samples at
                    // a time; before and after them, zeros where nothing is held (those samples are never read).
                    func held(_ index: Int) -> Float { index >= 0 && index < input.count ? input[index] : 0 }
                    let even = split.baseAddress!, odd = split.baseAddress! + stride
                    let from = base >= 0 ? 0 : 1
                    let pairs = max(from, min(stride, (input.count - base) / 2))
                    for j in 0..<from { (even[j], odd[j]) = (held(base + 2 * j), held(base + 2 * j + 1)) }
                    Self.deinterleave(input.baseAddress! + base + 2 * from, into: even + from, odd + from, count: pairs - from)
                    for j in pairs..<stride { (even[j], odd[j]) = (held(base + 2 * j), held(base + 2 * j + 1)) }
                    return
                }
                for r in 0..<ratio {
                    // Samples before the pending ones (never read: beyond the filter's reach) are zeros.
                    let firstHeld = max(0, (-(base + r) + ratio - 1) / ratio)
                    let lastHeld = min(stride, (input.count - 1 - (base + r)) / ratio + 1)
                    for j in 0..<min(firstHeld, stride) { split[r * stride + j] = 0 }
                    var index = base + r + ratio * firstHeld
                    for j in firstHeld..<max(firstHeld, lastHeld) {
                        split[r * stride + j] = input[index]
                        index += ratio
                    }
                    for j in max(firstHeld, lastHeld)..<stride { split[r * stride + j] = 0 }
                }
            }
        }
        // Where distance d's samples start for the batch's first output, after it and before it.
        for d in 1..<halfWidth {
            sideOffsets[2 * (d - 1)] = (d % ratio) * stride + reach + d / ratio
            sideOffsets[2 * (d - 1) + 1] = ((ratio - d % ratio) % ratio) * stride + reach - (d + ratio - 1) / ratio
        }
        output = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            phases.withUnsafeBufferPointer { split in
                sides.withUnsafeBufferPointer { taps in
                    sideOffsets.withUnsafeBufferPointer { offsets in
                        let x = split.baseAddress!, y = out.baseAddress!
                        var i = 0
                        // Thirty-two outputs at a time: four independent sums, so that each waits on no other.
                        while i + 32 <= count {
                            let c = SIMD8<Float>(repeating: centre)
                            var s0 = c * Self.load(x, reach + i), s1 = c * Self.load(x, reach + i + 8)
                            var s2 = c * Self.load(x, reach + i + 16), s3 = c * Self.load(x, reach + i + 24)
                            for k in 0..<taps.count {
                                let h = SIMD8<Float>(repeating: taps[k])
                                let a = x + offsets[2 * k] + i, b = x + offsets[2 * k + 1] + i
                                s0 += h * (Self.load(a, 0) + Self.load(b, 0))
                                s1 += h * (Self.load(a, 8) + Self.load(b, 8))
                                s2 += h * (Self.load(a, 16) + Self.load(b, 16))
                                s3 += h * (Self.load(a, 24) + Self.load(b, 24))
                            }
                            let target = UnsafeMutableRawPointer(y + i)
                            target.storeBytes(of: s0, as: SIMD8<Float>.self)
                            target.storeBytes(of: s1, toByteOffset: 32, as: SIMD8<Float>.self)
                            target.storeBytes(of: s2, toByteOffset: 64, as: SIMD8<Float>.self)
                            target.storeBytes(of: s3, toByteOffset: 96, as: SIMD8<Float>.self)
                            i += 32
                        }
                        while i + 8 <= count {
                            var sum = SIMD8<Float>(repeating: centre) * Self.load(x, reach + i)
                            for k in 0..<taps.count {
                                let pair = Self.load(x, offsets[2 * k] + i) + Self.load(x, offsets[2 * k + 1] + i)
                                sum += SIMD8<Float>(repeating: taps[k]) * pair
                            }
                            UnsafeMutableRawPointer(y + i).storeBytes(of: sum, as: SIMD8<Float>.self)
                            i += 8
                        }
                        while i < count {
                            var sum = centre * x[reach + i]
                            for k in 0..<taps.count { sum += taps[k] * (x[offsets[2 * k] + i] + x[offsets[2 * k + 1] + i]) }
                            y[i] = sum
                            i += 1
                        }
                    }
                }
            }
            initialized = count
        }
        outputCount = last
    }

    /// Outputs `outputCount ..< limit`, as many as the input held allows. Each output's place in the input is
    /// stepped from the last one's (`Position`), not divided out afresh, and the outputs are written in place: per
    /// output, only its dot product is left.
    private func produceGeneral(upTo limit: Int64, available: Int64) {
        let taps = tapsPerPhase
        // No output past this one can be made: its place alone reaches beyond the input held.
        let reachable = (available + 1) * outputStep / inputStep + 1
        let room = Int(max(0, min(limit, reachable) - outputCount))
        guard room > 0 else { return }
        var made = 0
        var position = Position(output: outputCount, inputStep: inputStep, outputStep: outputStep)
        output = [Float](unsafeUninitializedCapacity: room) { out, initialized in
            pending.withUnsafeBufferPointer { input in
                coefficients.withUnsafeBufferPointer { table in
                    let x = input.baseAddress!, h = table.baseAddress!, y = out.baseAddress!
                    // With exact phases, output n + phaseCount has output n's phase and lies `inputStep` inputs later: in
                    // tiles of four periods, the four outputs q, q + P, q + 2P, q + 3P share their coefficients, loaded
                    // once for the four (44.1 kHz: 80 phases, a tile of 320 outputs). Each sum is still `dot`'s, bit for bit.
                    if exactPhases && phaseCount > 1 {
                        let period = phaseCount, step = Int(inputStep)
                        while made + 4 * period <= room {
                            let end = tap(Position(output: outputCount + Int64(made + 4 * period - 1),
                                                   inputStep: inputStep, outputStep: outputStep)).end
                            guard end <= available else { break }
                            for q in 0..<period {
                                let place = tap(position)
                                let first = x + place.first, coefficients = h + place.phase * taps
                                let sums = Self.dot4(first, coefficients, first + step, coefficients,
                                                     first + 2 * step, coefficients, first + 3 * step, coefficients, count: taps)
                                (y[made + q], y[made + q + period], y[made + q + 2 * period], y[made + q + 3 * period]) = sums
                                position.advance()
                            }
                            made += 4 * period
                            position = Position(output: outputCount + Int64(made), inputStep: inputStep, outputStep: outputStep)
                        }
                    }
                    // Four outputs at a time where all four can be made: their sums are independent, so the processor
                    // runs them side by side, and each is summed in the same order as alone (the same bits).
                    while made + 4 <= room {
                        var next = position
                        let a = tap(next), b = tap(next.advanced()), c = tap(next.advanced()), d = tap(next.advanced())
                        guard d.end <= available else { break }
                        // At a whole ratio (16 or 48 kHz to 8 kHz) every output has phase 0: the same coefficient
                        // pointer four times, whose loads the compiler makes once for the four.
                        let sums = phaseCount == 1
                            ? Self.dot4(x + a.first, h, x + b.first, h, x + c.first, h, x + d.first, h, count: taps)
                            : Self.dot4(x + a.first, h + a.phase * taps, x + b.first, h + b.phase * taps,
                                        x + c.first, h + c.phase * taps, x + d.first, h + d.phase * taps, count: taps)
                        (y[made], y[made + 1], y[made + 2], y[made + 3]) = sums
                        made += 4
                        next.advance()
                        position = next
                    }
                    while made < room {
                        let next = tap(position)
                        guard next.end <= available else { break }
                        y[made] = Self.dot(x + next.first, h + next.phase * taps, count: taps)
                        made += 1
                        position.advance()
                    }
                }
            }
            initialized = made
        }
        outputCount += Int64(made)
    }

    /// Output `n`'s place in the input, `n · inputStep / outputStep = whole + remainder / outputStep` input samples,
    /// stepped from output to output.
    private struct Position {
        var whole: Int64, remainder: Int64
        let wholeStep: Int64, remainderStep: Int64, outputStep: Int64

        init(output n: Int64, inputStep: Int64, outputStep: Int64) {
            whole = n * inputStep / outputStep
            remainder = n * inputStep - whole * outputStep
            wholeStep = inputStep / outputStep
            remainderStep = inputStep % outputStep
            self.outputStep = outputStep
        }

        @inline(__always)
        mutating func advance() {
            whole += wholeStep
            remainder += remainderStep
            if remainder >= outputStep {
                remainder -= outputStep
                whole += 1
            }
        }

        /// Steps to the next output and returns its place.
        @inline(__always)
        mutating func advanced() -> Position {
            advance()
            return self
        }
    }

    /// Where the output at `position` reads: its first sample's index in `pending`, its phase, and one past the last
    /// input position it reads (the padding's too).
    @inline(__always)
    private func tap(_ position: Position) -> (first: Int, phase: Int, end: Int64) {
        var whole = position.whole
        let phase: Int
        if exactPhases {
            phase = Int(position.remainder)
        } else {
            let rounded = Int((position.remainder * Int64(phaseCount) * 2 + outputStep) / (2 * outputStep))
            phase = rounded == phaseCount ? 0 : rounded
            if rounded == phaseCount { whole += 1 }
        }
        let start = whole - Int64(halfWidth) + 1
        return (Int(start - pendingStart), phase, start + Int64(tapsPerPhase))
    }

    /// `Σ x[k] h[k]` over `count` values (a multiple of 8), eight lanes at a time. Reads up to `count` samples
    /// from `x`; the padding coefficients are zero, so samples past the filter's span count for nothing.
    @inline(__always)
    private static func dot(_ x: UnsafePointer<Float>, _ h: UnsafePointer<Float>, count: Int) -> Float {
        var sum = SIMD8<Float>()
        var index = 0
        while index < count {
            sum += load(x, index) * load(h, index)
            index += 8
        }
        return sum.sum()
    }

    /// Four of `dot` at once, each summed exactly as `dot` sums it.
    @inline(__always)
    private static func dot4(_ x0: UnsafePointer<Float>, _ h0: UnsafePointer<Float>, _ x1: UnsafePointer<Float>,
                             _ h1: UnsafePointer<Float>, _ x2: UnsafePointer<Float>, _ h2: UnsafePointer<Float>,
                             _ x3: UnsafePointer<Float>, _ h3: UnsafePointer<Float>, count: Int) -> (Float, Float, Float, Float) {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var index = 0
        while index < count {
            s0 += load(x0, index) * load(h0, index)
            s1 += load(x1, index) * load(h1, index)
            s2 += load(x2, index) * load(h2, index)
            s3 += load(x3, index) * load(h3, index)
            index += 8
        }
        return (s0.sum(), s1.sum(), s2.sum(), s3.sum())
    }

    /// `even[j] = x[2j]` and `odd[j] = x[2j + 1]` for `j < count`, sixteen samples at a time.
    static func deinterleave(_ x: UnsafePointer<Float>, into even: UnsafeMutablePointer<Float>,
                             _ odd: UnsafeMutablePointer<Float>, count: Int) {
        var j = 0
        while j + 8 <= count {
            let pair = UnsafeRawPointer(x + 2 * j).loadUnaligned(as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(even + j).storeBytes(of: pair.evenHalf, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(odd + j).storeBytes(of: pair.oddHalf, as: SIMD8<Float>.self)
            j += 8
        }
        while j < count {
            even[j] = x[2 * j]
            odd[j] = x[2 * j + 1]
            j += 1
        }
    }

    @inline(__always)
    private static func load(_ pointer: UnsafePointer<Float>, _ index: Int) -> SIMD8<Float> {
        UnsafeRawPointer(pointer + index).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// The modified Bessel function of the first kind, order 0 (its power series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        var k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

extension Resampler {
    /// `samples` at `inputRate` converted to `outputRate` in one go (for short clips held in memory); `cutoffHz`
    /// lowers the low-pass below its default (a telephone band).
    public static func convert(_ samples: [Float], from inputRate: Int, to outputRate: Int, cutoffHz: Double? = nil) -> [Float] {
        let share = cutoffHz.map { min(1, 2 * $0 / Double(min(inputRate, outputRate))) } ?? defaultCutoffShare
        let resampler = Resampler(inputRate: inputRate, outputRate: outputRate, cutoffShare: share)
        var output: [Float] = []
        output.reserveCapacity(Int(outputCount(inputFrames: Int64(samples.count), inputRate: inputRate, outputRate: outputRate)))
        samples.withUnsafeBufferPointer { resampler.process($0) { output.append(contentsOf: $0) } }
        resampler.finish { output.append(contentsOf: $0) }
        return output
    }
}
