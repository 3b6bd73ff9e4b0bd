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

    /// The last `spanWindows` windows' values of `summarised` (then the level), oldest first once full.
    private var history: [[Float]]
    private var next = 0
    private var count = 0

    public init() {
        history = [[Float]](repeating: [Float](repeating: 0, count: Self.summarised.count + 1), count: Self.spanWindows)
    }

    /// Writes the context features of the window `features` (its own features complete), and remembers the window.
    public mutating func summarise(_ features: inout FeatureVector) {
        let levelColumn = Self.summarised.count
        for (column, entry) in Self.summarised.enumerated() { history[next][column] = features[entry.source] }
        history[next][levelColumn] = features[.rmsDbfs]
        next = (next + 1) % Self.spanWindows
        count = min(count + 1, Self.spanWindows)

        let level = features[.rmsDbfs]
        // Oldest first, so that the sums add in the same order however the ring stands.
        let span = (0..<count).map { history[(next - count + $0 + Self.spanWindows) % Self.spanWindows] }
        let context = span.filter { abs($0[levelColumn] - level) <= Self.levelToleranceDb }
        let n = Float(context.count)
        for (column, entry) in Self.summarised.enumerated() {
            var sum: Float = 0
            for row in context { sum += row[column] }
            let mean = sum / n
            var squares: Float = 0
            for row in context { squares += (row[column] - mean) * (row[column] - mean) }
            features[entry.mean] = mean
            features[entry.spread] = (squares / n).squareRoot()
        }
        var levelSum: Float = 0
        for row in span { levelSum += row[levelColumn] }
        let levelMean = levelSum / Float(span.count)
        var levelSquares: Float = 0
        for row in span { levelSquares += (row[levelColumn] - levelMean) * (row[levelColumn] - levelMean) }
        features[.contextLevelStdDb] = (levelSquares / Float(span.count)).squareRoot()
        features[.contextLevelShare] = n / Float(Self.spanWindows)
    }
}
