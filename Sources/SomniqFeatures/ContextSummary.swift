/// Causal context: a window's chief features summarised over the seconds before it, so that the classifier judges
/// a window as a listener does, with what led up to it: one second of a bark train, a cry or a snore is ambiguous
/// where four are not. Only the past is read, so no alert waits for it.
///
/// The context of a window is the window itself and the `spanWindows - 1` before it (4 s of audio at the 0.5 s hop)
/// whose level (`rms_dbfs`) lies within `levelToleranceDb` of the window's own: the same sound, not the pauses
/// around it, nor, once a sound ends, the sound before the quiet. Over those windows each feature of `summarised`
/// gives its mean (`ctx_<feature>_mean`) and standard deviation (`ctx_<feature>_std`), NaN where the feature is
/// missing (a band the recording lacks); `ctx_level_std_db` is the spread of the level over every window of the span
/// and `ctx_level_share` the share of the span's windows in the context.
public struct ContextSummary: Sendable {
    /// The window and the windows before it that its context may hold: 4 s of audio.
    public static let spanWindows = 7
    /// How far a window's level may lie from the current one's to be in its context, dB.
    public static let levelToleranceDb: Float = 10

    /// The features summarised, with the features their mean and standard deviation are written to.
    public static let summarised: [(source: FeatureID, mean: FeatureID, spread: FeatureID)] = [
        (.harmonicity, .contextHarmonicityMean, .contextHarmonicityStd),
        (.pitchHz, .contextPitchMean, .contextPitchStd),
        (.crestDb, .contextCrestMean, .contextCrestStd),
        (.levelRangeDb, .contextLevelRangeMean, .contextLevelRangeStd),
        (.onsetStrengthDb, .contextOnsetMean, .contextOnsetStd),
        (.spectralFlux, .contextSpectralFluxMean, .contextSpectralFluxStd),
        (.melFlux, .contextMelFluxMean, .contextMelFluxStd),
        (.spectralFlatness, .contextFlatnessMean, .contextFlatnessStd),
        (.spectralCentroidHz, .contextCentroidMean, .contextCentroidStd),
        (.syllabicModulation, .contextSyllabicMean, .contextSyllabicStd),
        (.bandRatio0To250, .contextLowBandMean, .contextLowBandStd),
        (.cleanMfcc1, .contextCleanMfcc1Mean, .contextCleanMfcc1Std),
        (.cleanMfcc2, .contextCleanMfcc2Mean, .contextCleanMfcc2Std),
        (.cleanShareDb, .contextCleanShareMean, .contextCleanShareStd),
    ]

    /// The last `spanWindows` windows' values of `summarised` (then the level), a row each, in a ring.
    private var history: [Float]
    private var next = 0
    private var count = 0
    private static let width = summarised.count + 1

    public init() {
        history = [Float](repeating: 0, count: Self.spanWindows * Self.width)
    }

    /// Writes the context features of the window `features` (its own features complete), and remembers the window.
    public mutating func summarise(_ features: inout FeatureVector) {
        let width = Self.width, levelColumn = Self.summarised.count
        for (column, entry) in Self.summarised.enumerated() { history[next * width + column] = features[entry.source] }
        history[next * width + levelColumn] = features[.rmsDbfs]
        next = (next + 1) % Self.spanWindows
        count = min(count + 1, Self.spanWindows)

        let level = features[.rmsDbfs]
        // The span's rows oldest first, so that the sums add in the same order however the ring stands; the context is
        // those at the window's level.
        let oldest = next - count + Self.spanWindows
        func row(_ k: Int) -> Int { ((oldest + k) % Self.spanWindows) * width }
        func inContext(_ k: Int) -> Bool { abs(history[row(k) + levelColumn] - level) <= Self.levelToleranceDb }
        var members = 0
        for k in 0..<count where inContext(k) { members += 1 }
        let n = Float(members)
        for (column, entry) in Self.summarised.enumerated() {
            var sum: Float = 0
            for k in 0..<count where inContext(k) { sum += history[row(k) + column] }
            let mean = sum / n
            var squares: Float = 0
            for k in 0..<count where inContext(k) {
                let deviation = history[row(k) + column] - mean
                squares += deviation * deviation
            }
            features[entry.mean] = mean
            features[entry.spread] = (squares / n).squareRoot()
        }
        var levelSum: Float = 0
        for k in 0..<count { levelSum += history[row(k) + levelColumn] }
        let levelMean = levelSum / Float(count)
        var levelSquares: Float = 0
        for k in 0..<count {
            let deviation = history[row(k) + levelColumn] - levelMean
            levelSquares += deviation * deviation
        }
        features[.contextLevelStdDb] = (levelSquares / Float(count)).squareRoot()
        features[.contextLevelShare] = n / Float(Self.spanWindows)
    }
}
