import Foundation

/// A recording's features at any sample rate, measured the same way at every rate: the audio is resampled to
/// the common analysis rate (8 kHz, so the analysis band is 0–4 kHz, the band every recording of 8 kHz or more
/// has) and analysed there by one `FeatureExtractor`. A sound thus gives the same feature vector at 8, 16, 44.1
/// or 48 kHz, up to the resampler's rounding. Before anything else, the recorder's DC offset is taken off its
/// samples (`DCBlocker`): an offset is the recorder's, not a sound.
///
/// What lies above a recording's Nyquist frequency is *missing*, never silence: a feature whose definition reads
/// a band the recording does not have (`FeatureID.requiredBandHz`) is NaN for it (at 4 kHz, every feature that
/// reads 2–4 kHz). The one feature above the analysis band, `band_ratio_4k_up`, is measured on the recording's
/// own samples where it has that band, and NaN where it does not.
///
/// Feed samples in any amounts with `consume`, then `finish`; each completed window is handed to `emit`.
public final class FeatureStream {
    /// The rate every recording is analysed at, in Hz.
    public static let analysisSampleRate = 8_000
    /// A band counts as present when the recording's Nyquist frequency reaches this share of its top.
    public static let bandTolerance: Float = 0.95

    public let sourceSampleRate: Int
    public let extractor: FeatureExtractor
    /// What is done to the recording's own samples before the analysis: see `SourceConditioner`. `consume` runs it
    /// here; a caller may instead run it on another thread and hand its pieces, in order, to `feed(_:emit:)`.
    public let conditioner: SourceConditioner
    /// Features this recording's band cannot give.
    public let missingFeatures: [FeatureID]
    private let measuresHighBand: Bool
    /// The recording's own power per block as it stood when the piece being fed was conditioned.
    private var sourceLevels: SourceConditioner.Levels

    private var block: [Float]
    private var blockFill = 0
    private var blockIndex: Int64 = 0
    private var vector = FeatureVector()
    private var context = ContextSummary()
    private var windowIndex = 0
    /// The 10 ms level envelope of the analysis band, for the whole recording so far (see `LevelEnvelope`).
    public private(set) var envelope = LevelEnvelope()

    /// `bandShapes: false` leaves the 78 features of `FeatureID.bandShapes` unmeasured (NaN; `FeatureExtractor`).
    public init(sampleRate: Int, bandShapes: Bool = true) {
        sourceSampleRate = sampleRate
        extractor = FeatureExtractor(sampleRate: Self.analysisSampleRate, bandShapes: bandShapes)
        missingFeatures = Self.missingFeatures(sampleRate: sampleRate)
        measuresHighBand = !missingFeatures.contains(.bandRatio4kUp)
        conditioner = SourceConditioner(sampleRate: sampleRate, outputRate: Self.analysisSampleRate,
                                        measuresLevels: measuresHighBand)
        sourceLevels = SourceConditioner.Levels()
        block = [Float](repeating: 0, count: extractor.grid.maximumBlockLength)
    }

    /// Makes room for the envelope of a recording of `frames` samples at once, so that a long night's envelope is
    /// not copied each time it outgrows its storage (which would briefly hold it up to three times over).
    /// At most two days' worth: a header may promise far more audio than the file holds.
    public func reserveEnvelope(frames: Int64) {
        let seconds = min(max(0, frames) / Int64(max(1, sourceSampleRate)), 48 * 3600)
        envelope.reserveCapacity(Int(seconds) * LevelEnvelope.rateHz + LevelEnvelope.rateHz)
    }

    /// Features that a recording at `sampleRate` cannot give: those reading above its Nyquist frequency.
    public static func missingFeatures(sampleRate: Int) -> [FeatureID] {
        let nyquist = Float(sampleRate) / 2
        return FeatureID.allCases.filter { nyquist < bandTolerance * $0.requiredBandHz }
    }

    /// Whether a sound whose band reaches `hertz` can be heard in a recording at `sampleRate`.
    public static func hears(hertz: Float, sampleRate: Int) -> Bool { Float(sampleRate) / 2 >= bandTolerance * hertz }

    public func consume(_ samples: UnsafeBufferPointer<Float>, emit: (FeatureVector) -> Void) {
        conditioner.condition(samples) { feed($0, emit: emit) }
    }

    public func finish(emit: (FeatureVector) -> Void) {
        feed(conditioner.finish(), emit: emit)
        finishAnalysis(emit: emit)
    }

    /// Analyses a piece the conditioner made (pieces in the order it made them, its last one included).
    public func feed(_ piece: SourceConditioner.Piece, emit: (FeatureVector) -> Void) {
        sourceLevels = piece.levels
        piece.samples.withUnsafeBufferPointer { feed($0, emit: emit) }
    }

    /// Ends the analysis once every piece, the conditioner's last one included, has been fed.
    public func finishAnalysis(emit: (FeatureVector) -> Void) {
        if blockFill > 0 {
            block.withUnsafeBufferPointer { buffer in
                if extractor.consume(UnsafeBufferPointer(rebasing: buffer[0..<blockFill]), into: &vector) { complete(emit) }
            }
            extractor.forEachMicroLevelOfLastBlock { envelope.append(dbfs: $0) }
            blockFill = 0
            blockIndex += 1
        }
        if extractor.finish(into: &vector) { complete(emit) }
    }

    private func feed(_ samples: UnsafeBufferPointer<Float>, emit: (FeatureVector) -> Void) {
        var offset = 0
        while offset < samples.count {
            let length = extractor.grid.blockLength(blockIndex)
            let take = min(length - blockFill, samples.count - offset)
            block.withUnsafeMutableBufferPointer { buffer in
                (buffer.baseAddress! + blockFill).update(from: samples.baseAddress! + offset, count: take)
            }
            blockFill += take
            offset += take
            if blockFill == length {
                block.withUnsafeBufferPointer { buffer in
                    if extractor.consume(UnsafeBufferPointer(rebasing: buffer[0..<length]), into: &vector) { complete(emit) }
                }
                extractor.forEachMicroLevelOfLastBlock { envelope.append(dbfs: $0) }
                blockFill = 0
                blockIndex += 1
            }
        }
    }

    private func complete(_ emit: (FeatureVector) -> Void) {
        for feature in missingFeatures { vector[feature] = .nan }
        if measuresHighBand { vector[.bandRatio4kUp] = highBandShare(window: windowIndex, analysisRmsDbfs: vector[.rmsDbfs]) }
        context.summarise(&vector)
        windowIndex += 1
        emit(vector)
    }

    /// Share of the window's power above the analysis band: 1 − (analysis power / the recording's own power).
    private func highBandShare(window: Int, analysisRmsDbfs: Float) -> Float {
        let (energy, samples) = conditioner.power(ofBlocks: window...(window + 1), in: sourceLevels)
        guard samples > 0, energy > 0 else { return 0 }
        let sourcePower = energy / Double(samples)
        let analysisPower = Double(analysisRmsDbfs) <= Double(FeatureExtractor.minimumDbfs) ? 0 : pow(10, Double(analysisRmsDbfs) / 10)
        return Float(max(0, min(1, 1 - analysisPower / sourcePower)))
    }
}
