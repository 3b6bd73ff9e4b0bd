/// The pitch family: `harmonicity` and `pitch_hz`, from the autocorrelation of the window's mean power spectrum
/// (its inverse transform), the Hann window's own taper undone, searched at the lags of 60–500 Hz.
final class PitchEstimator {
    /// Normalised autocorrelation of the Hann window, to undo its taper.
    private let windowAutocorrelation: [Float]
    private let lags: ClosedRange<Int>
    private let sampleRate: Int
    private var autocorrelation: [Float]

    /// - Parameters:
    ///   - window: the sub-frames' Hann window.
    ///   - fftSize: points of the transform (at least a sub-frame and the longest lag, so that the circular
    ///     autocorrelation is the true one at every lag searched).
    init(sampleRate: Int, window: [Float], fftSize: Int) {
        self.sampleRate = sampleRate
        let frameLength = window.count
        let lowestLag = Int((Double(sampleRate) / 500).rounded(.up))
        lags = lowestLag...max(lowestLag, Self.highestLag(sampleRate: sampleRate))
        var windowAC = [Float](repeating: 0, count: frameLength)
        let energy = window.reduce(0) { $0 + $1 * $1 }
        for lag in 0..<frameLength {
            var sum: Float = 0
            for index in 0..<(frameLength - lag) { sum += window[index] * window[index + lag] }
            windowAC[lag] = sum / energy
        }
        windowAutocorrelation = windowAC
        autocorrelation = [Float](repeating: 0, count: fftSize)
    }

    /// The longest lag, in samples, the pitch search reads (a 60 Hz period, at most half a sub-frame).
    static func highestLag(sampleRate: Int) -> Int {
        min(Int(Double(sampleRate) / 60), AnalysisGrid(sampleRate: sampleRate).subframeLength / 2)
    }

    /// Writes the family's features from `power`, whose bins below `minBin` (under 50 Hz) it clears first.
    func measure(_ power: inout [Float], minBin: Int, analyzer: SpectralFrameAnalyzer, into features: inout FeatureVector) {
        for bin in 0..<minBin { power[bin] = 0 }
        power.withUnsafeBufferPointer { power in
            autocorrelation.withUnsafeMutableBufferPointer { output in
                analyzer.autocorrelation(power: power, into: output)
            }
        }
        let zeroLag = autocorrelation[0]
        guard zeroLag > 0 else {
            features[.harmonicity] = 0
            features[.pitchHz] = 0
            return
        }
        var best: Float = 0
        var bestLag = 0
        for lag in lags {
            let value = autocorrelation[lag] / zeroLag / windowAutocorrelation[lag]
            // Only a local maximum is a period; the slope down from lag 0 is not.
            guard value > best, autocorrelation[lag] >= autocorrelation[lag - 1],
                  autocorrelation[lag] >= autocorrelation[lag + 1] else { continue }
            best = value
            bestLag = lag
        }
        features[.harmonicity] = min(1, best)
        features[.pitchHz] = bestLag > 0 ? Float(sampleRate) / Float(bestLag) : 0
    }
}
