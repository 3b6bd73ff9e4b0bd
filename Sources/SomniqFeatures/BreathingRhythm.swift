/// The causal rhythm family: `breathing_periodicity` and `breathing_period_s`, the breathing rhythm of snoring and
/// loud breathing, from the level below 1 kHz over the last 16 s at 8 values a second (two sub-frames a value).
final class BreathingRhythm {
    /// Values a second of the level it reads.
    static let rateHz = 8
    /// Values kept: 16 s.
    static let history = 128

    private var envelope = RingBuffer(capacity: BreathingRhythm.history)
    /// The envelope in time order, then its deviations from its mean, for each window's rhythm search.
    private let scratch: UnsafeMutableBufferPointer<Float>
    private var scores = [Float](repeating: 0, count: 8 * BreathingRhythm.rateHz + 1)
    private var pendingPower: Float = 0
    private var pendingCount = 0

    init() {
        scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.history)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// Takes one sub-frame's power below 1 kHz.
    func add(lowBandPower: Float) {
        pendingPower += lowBandPower
        pendingCount += 1
        if pendingCount == AnalysisGrid.subframesPerSecond / Self.rateHz {
            envelope.append(FeatureExtractor.decibels(power: pendingPower / Float(pendingCount)))
            pendingPower = 0
            pendingCount = 0
        }
    }

    /// Writes the family's features from the envelope heard so far (0 before 8 s of it): the strongest normalised
    /// autocorrelation at lags of 2–8 s, and its lag, preferring the shortest nearly as strong (a rhythm of period T
    /// also correlates at 2T).
    func measure(into features: inout FeatureVector) {
        let minimumLag = 2 * Self.rateHz
        let count = envelope.count
        guard count >= 8 * Self.rateHz else {
            features[.breathingPeriodicity] = 0
            features[.breathingPeriodSeconds] = 0
            return
        }
        let maximumLag = min(8 * Self.rateHz, count - 4 * Self.rateHz)
        var best: Float = 0
        var bestLag = 0
        let values = scratch
        _ = envelope.copyOrdered(into: values)
        let (mean, variance) = Self.meanAndVariance(UnsafeBufferPointer(rebasing: values[0..<count]))
        for index in 0..<count { values[index] -= mean }
        scores.withUnsafeMutableBufferPointer { scores in
            Self.normalisedAutocorrelations(centered: UnsafeBufferPointer(rebasing: values[0..<count]), lags: minimumLag...maximumLag,
                                            variance: variance, into: scores)
        }
        for lag in minimumLag...maximumLag where scores[lag - minimumLag] > best {
            best = scores[lag - minimumLag]
            bestLag = lag
        }
        for lag in minimumLag..<max(minimumLag, bestLag) where scores[lag - minimumLag] >= 0.9 * best {
            let value = scores[lag - minimumLag]
            let previous = lag > minimumLag ? scores[lag - minimumLag - 1] : -1
            let next = scores[lag - minimumLag + 1]
            if value >= previous, value >= next { bestLag = lag; break }
        }
        features[.breathingPeriodicity] = min(1, best)
        features[.breathingPeriodSeconds] = bestLag > 0 ? Float(bestLag) / Float(Self.rateHz) : 0
    }

    /// Mean and sum of squared deviations of `values`.
    static func meanAndVariance(_ values: UnsafeBufferPointer<Float>) -> (Float, Float) {
        var mean: Float = 0
        for value in values { mean += value }
        mean /= Float(max(1, values.count))
        var variance: Float = 0
        for value in values { variance += (value - mean) * (value - mean) }
        return (mean, variance)
    }

    /// `(Σ_t d_t d_t+lag / (n - lag)) / (variance / n)` for deviations from the mean `d` (`variance` their sum
    /// of squares); 0 for a constant sequence. Four partial sums, so that the products need not wait on each other: the
    /// lanes of one four-wide vector, term `t` in lane `t mod 4`, the terms past the last four in lane 0.
    static func normalisedAutocorrelation(centered values: UnsafeBufferPointer<Float>, lag: Int, variance: Float) -> Float {
        let count = values.count
        guard lag < count, variance > 1e-6 * Float(count) else { return 0 }
        return finishAutocorrelation(values, lag: lag, variance: variance, sums: SIMD4<Float>(), from: 0)
    }

    /// Adds `lag`'s terms from `index` on to `sums` (its four lanes' partial sums of the terms before, four at a time,
    /// the terms past the last four in lane 0) and normalises the total.
    @inline(__always)
    private static func finishAutocorrelation(_ values: UnsafeBufferPointer<Float>, lag: Int, variance: Float,
                                              sums: SIMD4<Float>, from index: Int) -> Float {
        let count = values.count, terms = count - lag
        let source = UnsafeRawPointer(values.baseAddress!)
        var sums = sums, index = index
        while index + 4 <= terms {
            let earlier = source.loadUnaligned(fromByteOffset: index * 4, as: SIMD4<Float>.self)
            let later = source.loadUnaligned(fromByteOffset: (index + lag) * 4, as: SIMD4<Float>.self)
            sums += earlier * later
            index += 4
        }
        while index < terms {
            sums[0] += values[index] * values[index + lag]
            index += 1
        }
        return (((sums[0] + sums[1]) + (sums[2] + sums[3])) / Float(terms)) / (variance / Float(count))
    }

    /// `normalisedAutocorrelation` at every lag of `lags`, bit for bit, into `scores[lag - lags.lowerBound]`: four lags
    /// at a time, so that each lag's additions wait on its own sums only (one lag's alone wait on each other), each
    /// lag's terms added in the same order as there.
    static func normalisedAutocorrelations(centered values: UnsafeBufferPointer<Float>, lags: ClosedRange<Int>,
                                           variance: Float, into scores: UnsafeMutableBufferPointer<Float>) {
        let count = values.count
        guard let base = values.baseAddress else {
            for lag in lags { scores[lag - lags.lowerBound] = 0 }  // no values: no rhythm (as each lag alone gives)
            return
        }
        let source = UnsafeRawPointer(base)
        @inline(__always) func load(_ index: Int) -> SIMD4<Float> {
            source.loadUnaligned(fromByteOffset: index * 4, as: SIMD4<Float>.self)
        }
        var lag = lags.lowerBound
        while lag + 3 <= lags.upperBound, lag + 3 < count, variance > 1e-6 * Float(count) {
            var sums = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
            // Terms every one of the four lags has, four at a time; then each lag's own.
            var index = 0
            while index + 4 <= count - lag - 3 {
                let earlier = load(index)
                sums.0 += earlier * load(index + lag)
                sums.1 += earlier * load(index + lag + 1)
                sums.2 += earlier * load(index + lag + 2)
                sums.3 += earlier * load(index + lag + 3)
                index += 4
            }
            let first = lag - lags.lowerBound
            scores[first] = finishAutocorrelation(values, lag: lag, variance: variance, sums: sums.0, from: index)
            scores[first + 1] = finishAutocorrelation(values, lag: lag + 1, variance: variance, sums: sums.1, from: index)
            scores[first + 2] = finishAutocorrelation(values, lag: lag + 2, variance: variance, sums: sums.2, from: index)
            scores[first + 3] = finishAutocorrelation(values, lag: lag + 3, variance: variance, sums: sums.3, from: index)
            lag += 4
        }
        while lag <= lags.upperBound {
            scores[lag - lags.lowerBound] = normalisedAutocorrelation(centered: values, lag: lag, variance: variance)
            lag += 1
        }
    }
}

/// The causal pause family: `preceding_quiet_s`, the quiet before the current loud stretch (windows 10 dB or more over
/// the background), reported for the first 3 s of the stretch: a gasp follows a silent pause.
struct PauseTracker {
    static let quietCapSeconds: Float = 60
    static let loudSnrDb: Float = 10
    /// How long into a loud stretch the pause before it is still reported.
    static let memorySeconds: Float = 3

    private var quietRunSeconds: Float = 0
    private var loudRunSeconds: Float = 0
    private var quietBeforeLoudSeconds: Float = 0

    /// Takes the next window's `snr_db` (half a second after the previous one); returns its `preceding_quiet_s`.
    mutating func precedingQuiet(snrDb: Float) -> Float {
        let hop = Float(AnalysisGrid.hopSeconds)
        guard snrDb >= Self.loudSnrDb else {
            quietRunSeconds = min(Self.quietCapSeconds, quietRunSeconds + hop)
            loudRunSeconds = 0
            return 0
        }
        if loudRunSeconds == 0 { quietBeforeLoudSeconds = quietRunSeconds }
        loudRunSeconds += hop
        quietRunSeconds = 0
        return loudRunSeconds <= Self.memorySeconds ? quietBeforeLoudSeconds : 0
    }
}
