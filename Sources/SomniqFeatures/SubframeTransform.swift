import Foundation

/// The analysis's first step, each sub-frame's power spectrum, made as the samples come rather than when a block is
/// complete: `SourceConditioner` runs it on the decoding thread, beside the resampler, and the extractor reads the
/// spectra in order (`FeatureExtractor.receive`), so that the transforms, the largest cost a sub-frame has, are off the
/// thread the analysis waits on.
///
/// Sub-frames are cut as `AnalysisGrid` cuts blocks (a block's samples after its eighth sub-frame belong to none), and
/// each is measured by `measure`, the function the extractor uses when it transforms its own blocks: the spectra are
/// the same, bit for bit, wherever they are made.
public final class SubframeTransform {
    /// What a sub-frame's samples give the extractor: their sum of squares, their count, and whether they are a gap
    /// (digital silence, below `FeatureExtractor.noSignalDbfs`, whose spectrum is never read, so not computed).
    public struct Measure: Sendable, Equatable {
        public let sumSquares: Float
        public let sampleCount: Int
        public let isGap: Bool
    }

    /// The sub-frames a stretch of samples completed, in order, and the power spectra of those that are not gaps
    /// (`binCount` values each, in the same order).
    public struct Batch: Sendable {
        public internal(set) var measures: [Measure] = []
        public internal(set) var power: [Float] = []

        public init() {}
    }

    public let grid: AnalysisGrid
    public var binCount: Int { analyzer.binCount }
    private let analyzer: SpectralFrameAnalyzer
    private let hann: [Float]
    /// The sub-frame being filled, its samples from the sub-frame's start.
    private var frame: [Float]
    private var block: Int64 = 0
    private var subframe = 0
    /// Samples of `block` taken so far.
    private var taken = 0

    /// The transform of the extractor at `sampleRate` (the same size of transform, the same window).
    public init(sampleRate: Int) {
        grid = AnalysisGrid(sampleRate: sampleRate)
        analyzer = SpectralFrameAnalyzer(fftSize: FeatureExtractor.fftSize(sampleRate: sampleRate))
        hann = SpectralFrameAnalyzer.hannWindow(length: grid.subframeLength)
        frame = [Float](repeating: 0, count: grid.subframeLength)
    }

    /// Takes the next samples; returns the sub-frames they completed.
    public func add(_ samples: UnsafeBufferPointer<Float>) -> Batch {
        var batch = Batch()
        var offset = 0
        while offset < samples.count {
            let blockLength = grid.blockLength(block)
            if subframe < AnalysisGrid.subframesPerBlock {
                let start = grid.subframeOffset(subframe)
                let end = min(grid.subframeOffset(subframe + 1), blockLength)
                let take = min(end - taken, samples.count - offset)
                frame.withUnsafeMutableBufferPointer { frame in
                    (frame.baseAddress! + (taken - start)).update(from: samples.baseAddress! + offset, count: take)
                }
                taken += take
                offset += take
                if taken == end {
                    emit(length: end - start, into: &batch)
                    subframe += 1
                }
            } else {
                let take = min(blockLength - taken, samples.count - offset)
                taken += take
                offset += take
            }
            if taken == blockLength {
                block += 1
                subframe = 0
                taken = 0
            }
        }
        return batch
    }

    /// Ends the recording: the sub-frame it cut short, if any (the extractor reads it in the last, partial block).
    public func finish() -> Batch {
        var batch = Batch()
        if subframe < AnalysisGrid.subframesPerBlock, taken > grid.subframeOffset(subframe) {
            emit(length: taken - grid.subframeOffset(subframe), into: &batch)
            subframe += 1
        }
        return batch
    }

    private func emit(length: Int, into batch: inout Batch) {
        let bins = analyzer.binCount
        let first = batch.power.count
        batch.power.append(contentsOf: repeatElement(0, count: bins))
        let measure = frame.withUnsafeBufferPointer { frame in
            batch.power.withUnsafeMutableBufferPointer { power in
                hann.withUnsafeBufferPointer { window in
                    Self.measure(UnsafeBufferPointer(rebasing: frame[0..<length]), window: window, analyzer: analyzer,
                                 into: UnsafeMutableBufferPointer(rebasing: power[first..<(first + bins)]))
                }
            }
        }
        if measure.isGap { batch.power.removeLast(bins) }
        batch.measures.append(measure)
    }

    /// Mean power under which a sub-frame is a gap (`FeatureExtractor.noSignalDbfs`).
    private static let noSignalPower = Float(pow(10, Double(FeatureExtractor.noSignalDbfs) / 10))

    /// A sub-frame's sum of squares, and unless it is a gap its power spectrum (`|FFT(frame · window)|²`) in `power`.
    static func measure(_ frame: UnsafeBufferPointer<Float>, window: UnsafeBufferPointer<Float>,
                        analyzer: SpectralFrameAnalyzer, into power: UnsafeMutableBufferPointer<Float>) -> Measure {
        var sumSquares: Float = 0
        for value in frame { sumSquares += value * value }
        let isGap = sumSquares < noSignalPower * Float(frame.count)
        if !isGap { analyzer.powerSpectrum(frame: frame, window: window, into: power) }
        return Measure(sumSquares: sumSquares, sampleCount: frame.count, isGap: isGap)
    }
}
