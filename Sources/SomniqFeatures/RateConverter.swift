import Foundation

/// A stream of samples converted from one rate to another as it comes (`Resampler`, `RateConverter`).
public protocol StreamingRateConversion: AnyObject {
    /// Takes the next input samples; calls `body` with the output samples they complete (possibly none).
    func process(_ samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) -> Void)
    /// Ends the stream: the outputs left.
    func finish(_ body: (UnsafeBufferPointer<Float>) -> Void)
}

/// Converts a stream of samples from one rate to another in stages: a high rate is first halved by
/// half-band filters (`HalfBandDecimator`) for as long as the halved rate stays at least 2.75 times the output's, then
/// converted by the band-limited interpolator (`Resampler`), whose filter is the same in Hz at every input rate.
///
/// 44.1 kHz goes to 8 kHz as 44.1 → 22.05 → 8, 48 kHz as 48 → 24 → 8 (then a whole ratio), 88.2 and 96 kHz through two
/// halvings; 32 kHz and below, and every upsampling, through the interpolator alone. A half-band filter costs six
/// multiplications a halved sample, where the interpolator pays for its span in input samples: at 44.1 kHz 184 taps an
/// output become 96, at 48 kHz 95 folded pairs become 47.
///
/// The output is the interpolator's count for the whole conversion (`Resampler.outputCount(inputFrames:...)` of the
/// input and output rates), so the analysis grid does not depend on the stages. Each stage is symmetric and reads zeros
/// before and after the stream: nothing is delayed. Deterministic, and the same samples however the stream is cut.
///
/// Not yet the analysis's: it moves every feature of a 44.1 or 48 kHz recording a little (the half-band's ripple and
/// what it lets fold, 82 dB down), so models/default would no longer refit byte for byte from its recipe, and a refit of
/// 3.7.0's recipe on it failed `PhoneMicrophoneTests` (docs/performance.md). `somniq-bench resample-halved` times it.
public final class RateConverter: StreamingRateConversion {
    public let inputRate: Int
    public let outputRate: Int
    /// The rates after each halving (empty when there is none).
    public let halvedRates: [Int]
    private let halvings: [HalfBandDecimator]
    private let last: Resampler
    /// Input samples received so far.
    public private(set) var inputCount: Int64 = 0

    /// - Parameter cutoffShare: the last stage's cut-off, a share of the lower Nyquist frequency (`Resampler`).
    public init(inputRate: Int, outputRate: Int, cutoffShare: Double = Resampler.defaultCutoffShare) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        halvedRates = Self.halvedRates(inputRate: inputRate, outputRate: outputRate)
        halvings = halvedRates.map { _ in HalfBandDecimator() }
        last = Resampler(inputRate: halvedRates.last ?? inputRate, outputRate: outputRate, cutoffShare: cutoffShare)
    }

    /// The rates a recording at `inputRate` is halved to on its way to `outputRate`: while the rate is even and its
    /// half at least 2.75 times the output's. Then everything up to the output's Nyquist frequency lies within the
    /// half-band filter's designed pass band (within 0.001 dB), and all that would fold onto it within its stop band
    /// (82 dB down).
    public static func halvedRates(inputRate: Int, outputRate: Int) -> [Int] {
        var rates: [Int] = []
        var rate = inputRate
        while rate % 2 == 0 && 4 * (rate / 2) >= 11 * outputRate {
            rate /= 2
            rates.append(rate)
        }
        return rates
    }

    /// Takes the next input samples; returns the output samples they complete (possibly none).
    public func process(_ samples: UnsafeBufferPointer<Float>) -> [Float] {
        inputCount += Int64(samples.count)
        guard !halvings.isEmpty else { return last.process(samples) }
        var stage = halvings[0].process(samples)
        for halving in halvings.dropFirst() {
            stage = stage.withUnsafeBufferPointer { halving.process($0) }
        }
        return stage.withUnsafeBufferPointer { last.process($0) }
    }

    /// Takes the next input samples; calls `body` with the output samples they complete (possibly none).
    public func process(_ samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        let made = process(samples)
        if !made.isEmpty { made.withUnsafeBufferPointer(body) }
    }

    /// Ends the stream: the outputs left, up to `Resampler.outputCount` of the whole input in all.
    public func finish(_ body: (UnsafeBufferPointer<Float>) -> Void) {
        var carried: [Float] = []
        for halving in halvings {
            var flushed = carried.withUnsafeBufferPointer { halving.process($0) }
            flushed.append(contentsOf: halving.finish())
            carried = flushed
        }
        if !carried.isEmpty {
            let made = carried.withUnsafeBufferPointer { last.process($0) }
            if !made.isEmpty { made.withUnsafeBufferPointer(body) }
        }
        let total = Resampler.outputCount(inputFrames: inputCount, inputRate: inputRate, outputRate: outputRate)
        last.finish(upTo: total, body)
    }
}

/// Halves a stream's rate with a half-band filter: output `m` (at input sample `2m`, so nothing is delayed) is
/// `x[2m] / 2 + Σₖ hₖ (x[2m − (2k − 1)] + x[2m + (2k − 1)])` for k = 1 ... 6, every other tap of a half-band filter
/// being zero. The taps are a Kaiser-windowed sinc (β 8, 23 taps), scaled to a gain of exactly 1 at 0 Hz: from 0 to
/// 1/11 of the input rate within 0.001 dB, from 9/22 of it to its Nyquist frequency (what folds into that band) 82 dB
/// down. Reads zeros before the stream and, at its end, after it; the outputs are those of input positions inside it,
/// `⌈n / 2⌉` of `n` samples.
final class HalfBandDecimator {
    /// The taps at odd distances 1, 3, ..., 11 from the centre.
    static let taps: [Float] = {
        let pairs = 6, beta = 8.0
        let span = Double(2 * pairs)  // the window's half-length: one past the farthest tap
        let raw = (1...pairs).map { k -> Double in
            let distance = Double(2 * k - 1)
            let argument = Double.pi * distance / 2
            let window = Resampler.besselI0(beta * (1 - (distance / span) * (distance / span)).squareRoot())
                / Resampler.besselI0(beta)
            return 0.5 * sin(argument) / argument * window
        }
        let scale = 0.25 / raw.reduce(0, +)  // the centre's 1/2 and twice the sides' sum make 1 at 0 Hz
        return raw.map { Float($0 * scale) }
    }()

    /// The farthest input a side tap reads, in samples from the centre.
    static var reach: Int { 2 * taps.count - 1 }

    /// Input samples not yet discarded: `pending[k]` is input `pendingStart + k` (the zeros before the stream held).
    private var pending: [Float]
    private var pendingStart: Int64
    private var inputCount: Int64 = 0
    private(set) var outputCount: Int64 = 0
    /// The batch's input, split into its even and odd samples.
    private var even: [Float] = [], odd: [Float] = []

    init() {
        pending = [Float](repeating: 0, count: 2 * Self.taps.count)
        pendingStart = -Int64(2 * Self.taps.count)
    }

    /// Takes the next samples; returns the outputs they complete.
    func process(_ samples: UnsafeBufferPointer<Float>) -> [Float] {
        pending.append(contentsOf: samples)
        inputCount += Int64(samples.count)
        return produce(upTo: .max)
    }

    /// Ends the stream: the outputs left, reading zeros past its end.
    func finish() -> [Float] {
        pending.append(contentsOf: repeatElement(0, count: Self.reach + 1))
        return produce(upTo: (inputCount + 1) / 2)
    }

    /// Outputs `outputCount ..< limit`, as many as the input held allows. With `K` taps, the batch starts at input
    /// `b = 2(outputCount − K)`; its pair `j` is `(x[b + 2j], x[b + 2j + 1])`, so output `i` of the batch reads
    /// `even[i + K]` and `odd[i + K + k − 1] + odd[i + K − k]`. Eight outputs at a time, lane by lane, and the last
    /// ones one by one with the same operations in the same order: where a batch ends changes no output.
    private func produce(upTo limit: Int64) -> [Float] {
        let pairs = Self.taps.count
        let available = pendingStart + Int64(pending.count)  // one past the last input held
        // Output m reads up to input 2m + reach.
        guard available - 1 - Int64(Self.reach) >= 0 else { return [] }
        let last = min(limit, (available - 1 - Int64(Self.reach)) / 2 + 1)
        guard last > outputCount else { return [] }
        let count = Int(last - outputCount)
        let base = Int(2 * (outputCount - Int64(pairs)) - pendingStart)
        let span = count + 2 * pairs - 1
        if even.count < span {
            even = [Float](repeating: 0, count: span)
            odd = [Float](repeating: 0, count: span)
        }
        pending.withUnsafeBufferPointer { input in
            even.withUnsafeMutableBufferPointer { evens in
                odd.withUnsafeMutableBufferPointer { odds in
                    Resampler.deinterleave(input.baseAddress! + base, into: evens.baseAddress!, odds.baseAddress!, count: span)
                }
            }
        }
        let output = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            even.withUnsafeBufferPointer { evens in
                odd.withUnsafeBufferPointer { odds in
                    Self.taps.withUnsafeBufferPointer { h in
                        let e = evens.baseAddress! + pairs, o = odds.baseAddress! + pairs, y = out.baseAddress!
                        var i = 0
                        while i + 8 <= count {
                            var sum = SIMD8<Float>(repeating: 0.5) * Self.load(e + i)
                            for k in 1...pairs {
                                sum += SIMD8<Float>(repeating: h[k - 1]) * (Self.load(o + i + k - 1) + Self.load(o + i - k))
                            }
                            UnsafeMutableRawPointer(y + i).storeBytes(of: sum, as: SIMD8<Float>.self)
                            i += 8
                        }
                        while i < count {
                            var sum: Float = 0.5 * e[i]
                            for k in 1...pairs { sum += h[k - 1] * (o[i + k - 1] + o[i - k]) }
                            y[i] = sum
                            i += 1
                        }
                    }
                }
            }
            initialized = count
        }
        outputCount = last
        // Keep only what later outputs read: from the next batch's start.
        let drop = Int(2 * (outputCount - Int64(pairs)) - pendingStart)
        if drop > 4_096 || (drop > 0 && drop == pending.count) {
            pending.removeFirst(drop)
            pendingStart += Int64(drop)
        }
        return output
    }

    @inline(__always)
    private static func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }
}
