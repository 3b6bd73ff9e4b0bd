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
    private let resampler: Resampler
    private var dcBlocker: DCBlocker
    /// The piece of the recording being consumed, its DC offset taken off (`DCBlocker`).
    private var unbiased: [Float]
    /// Features this recording's band cannot give.
    public let missingFeatures: [FeatureID]
    private let measuresHighBand: Bool

    private var block: [Float]
    private var blockFill = 0
    private var blockIndex: Int64 = 0
    private var vector = FeatureVector()
    private var windowIndex = 0
    /// The 10 ms level envelope of the analysis band, for the whole recording so far (see `LevelEnvelope`).
    public private(set) var envelope = LevelEnvelope()

    // Power of the recording's own samples per half-second block, for `band_ratio_4k_up`.
    private let sourceGrid: AnalysisGrid
    private var sourcePosition: Int64 = 0
    private var sourceBlockEnergy = [Double](repeating: 0, count: 4)
    private var sourceBlockSamples = [Int](repeating: 0, count: 4)

    public init(sampleRate: Int) {
        sourceSampleRate = sampleRate
        extractor = FeatureExtractor(sampleRate: Self.analysisSampleRate)
        resampler = Resampler(inputRate: sampleRate, outputRate: Self.analysisSampleRate)
        sourceGrid = AnalysisGrid(sampleRate: sampleRate)
        missingFeatures = Self.missingFeatures(sampleRate: sampleRate)
        measuresHighBand = !missingFeatures.contains(.bandRatio4kUp)
        block = [Float](repeating: 0, count: extractor.grid.maximumBlockLength)
        dcBlocker = DCBlocker(sampleRate: sampleRate)
        unbiased = [Float](repeating: 0, count: max(1, sourceGrid.maximumBlockLength / 2))
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
        // At most half a block at a time, so that the source power ring never runs ahead of the windows.
        let step = unbiased.count
        var start = 0
        while start < samples.count {
            let count = min(samples.count - start, step)
            unbiased.withUnsafeMutableBufferPointer { buffer in
                dcBlocker.filter(UnsafeBufferPointer(rebasing: samples[start..<(start + count)]), into: buffer)
            }
            unbiased.withUnsafeBufferPointer { buffer in
                let piece = UnsafeBufferPointer(rebasing: buffer[0..<count])
                if measuresHighBand { accountSource(piece) }
                resampler.process(piece) { output in feed(output, emit: emit) }
            }
            start += step
        }
    }

    public func finish(emit: (FeatureVector) -> Void) {
        resampler.finish { output in feed(output, emit: emit) }
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
        windowIndex += 1
        emit(vector)
    }

    /// Sums the recording's own power per half-second block (a ring of four: the resampler lags by far less).
    private func accountSource(_ samples: UnsafeBufferPointer<Float>) {
        var index = 0
        while index < samples.count {
            let block = sourceBlock(of: sourcePosition)
            let end = sourceGrid.blockStart(block + 1)
            let take = Int(min(Int64(samples.count - index), end - sourcePosition))
            let slot = Int(block % 4)
            if sourcePosition == sourceGrid.blockStart(block) {
                sourceBlockEnergy[slot] = 0
                sourceBlockSamples[slot] = 0
            }
            var sum: Float = 0
            for k in index..<(index + take) { sum += samples[k] * samples[k] }
            sourceBlockEnergy[slot] += Double(sum)
            sourceBlockSamples[slot] += take
            sourcePosition += Int64(take)
            index += take
        }
    }

    private func sourceBlock(of position: Int64) -> Int64 {
        var block = position * 2 / Int64(sourceSampleRate)
        while sourceGrid.blockStart(block + 1) <= position { block += 1 }
        while sourceGrid.blockStart(block) > position { block -= 1 }
        return block
    }

    /// Share of the window's power above the analysis band: 1 − (analysis power / the recording's own power).
    private func highBandShare(window: Int, analysisRmsDbfs: Float) -> Float {
        var energy = 0.0, samples = 0
        for block in window...(window + 1) {
            let slot = block % 4
            guard Int64(block) <= sourceBlock(of: max(0, sourcePosition - 1)) else { continue }
            energy += sourceBlockEnergy[slot]
            samples += sourceBlockSamples[slot]
        }
        guard samples > 0, energy > 0 else { return 0 }
        let sourcePower = energy / Double(samples)
        let analysisPower = Double(analysisRmsDbfs) <= Double(FeatureExtractor.minimumDbfs) ? 0 : pow(10, Double(analysisRmsDbfs) / 10)
        return Float(max(0, min(1, 1 - analysisPower / sourcePower)))
    }
}
