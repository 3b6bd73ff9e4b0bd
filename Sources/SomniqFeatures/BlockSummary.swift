/// What the feature extractor keeps of one half-second block: enough to build the two windows
/// the block belongs to without looking at its samples again. A class: the extractor keeps two and
/// refills them in turn, and reading one for a window must not copy (and retain) its arrays.
final class BlockSummary {
    var sampleCount = 0
    var isComplete = false
    var sumSquares = 0.0
    var peak: Float = 0
    var zeroCrossings = 0
    /// Sum of the block's sub-frame power spectra.
    var powerSum: [Float]
    var subframeCount = 0
    /// Sub-frames of digital silence (below `FeatureExtractor.noSignalDbfs`): a gap in the recording, which the
    /// window's spectral time course leaves out (see `FeatureExtractor`).
    var gapSubframes = 0
    var fluxSum: Float = 0
    var tonalitySum: Float = 0
    var tonalSubframes = 0
    /// The pairs of consecutive sub-frames (neither a gap) that the block's sub-frames close: the mean power of the
    /// quieter of the two, and whether the later one's peak held its pitch (`ToneSteadiness`); the first
    /// `subframePairCount` are valid. And the mean power of the block's loudest sub-frame.
    private(set) var subframePairLevel = [Float](repeating: 0, count: AnalysisGrid.subframesPerBlock)
    private(set) var subframePairSteady = [Bool](repeating: false, count: AnalysisGrid.subframesPerBlock)
    private(set) var subframePairCount = 0
    var loudestSubframeLevel: Float = 0
    /// Levels of the block's 10 ms micro-blocks, dBFS; the first `microCount` are valid.
    var microLevels: [Float]
    var microCount = 0
    /// Sum over the block's sub-frames of their log mel energies.
    var logMelSum: [Float]
    /// Sum over the block's sub-frames of their mel energies, and the least of each band's.
    var melEnergySum: [Float]
    var melEnergyMin: [Float]
    var melFluxSum: Float = 0
    var melFluxCount = 0
    /// Sums and sums of squares over the sub-frames of cepstral coefficients 1–4.
    var cepstrumSum = [Float](repeating: 0, count: 4)
    var cepstrumSquares = [Float](repeating: 0, count: 4)
    /// Sums over the sub-frames of each mel band's shape squared, and over consecutive pairs of its change (`MelShape`).
    var shapeSquareSum: [Float]
    var shapeChangeSum: [Float]
    /// Sum over the sub-frames of each octave's log flatness (`OctaveFlatness`).
    var octaveFlatnessSum = [Float](repeating: 0, count: OctaveFlatness.octaves)

    init(binCount: Int, melBands: Int) {
        powerSum = [Float](repeating: 0, count: binCount)
        logMelSum = [Float](repeating: 0, count: melBands)
        melEnergySum = [Float](repeating: 0, count: melBands)
        melEnergyMin = [Float](repeating: .greatestFiniteMagnitude, count: melBands)
        shapeSquareSum = [Float](repeating: 0, count: melBands)
        shapeChangeSum = [Float](repeating: 0, count: melBands)
        microLevels = [Float](repeating: 0, count: AnalysisGrid.microBlocksPerBlock)
    }

    func addSubframePair(level: Float, steady: Bool) {
        subframePairLevel[subframePairCount] = level
        subframePairSteady[subframePairCount] = steady
        subframePairCount += 1
    }

    func reset() {
        sampleCount = 0
        isComplete = false
        sumSquares = 0
        peak = 0
        zeroCrossings = 0
        for index in powerSum.indices { powerSum[index] = 0 }
        subframeCount = 0
        gapSubframes = 0
        fluxSum = 0
        tonalitySum = 0
        tonalSubframes = 0
        subframePairCount = 0
        loudestSubframeLevel = 0
        microCount = 0
        for index in logMelSum.indices { logMelSum[index] = 0 }
        for index in melEnergySum.indices { melEnergySum[index] = 0; melEnergyMin[index] = .greatestFiniteMagnitude }
        for index in shapeSquareSum.indices { shapeSquareSum[index] = 0; shapeChangeSum[index] = 0 }
        for index in octaveFlatnessSum.indices { octaveFlatnessSum[index] = 0 }
        melFluxSum = 0
        melFluxCount = 0
        for index in 0..<4 { cepstrumSum[index] = 0; cepstrumSquares[index] = 0 }
    }
}
