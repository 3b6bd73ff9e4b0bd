import Foundation

/// What is done to a recording's own samples before they are analysed: the DC offset taken off (`DCBlocker`), the
/// power kept per half-second block at the recording's own rate (for `band_ratio_4k_up`, the share above the analysis
/// band), and the conversion to the analysis rate (`Resampler`).
///
/// It hands over `Piece`s: the analysis-rate samples that a stretch of the recording completed, with the source's block
/// power as it stood after that stretch. The analysis reads the power of a window's blocks from the piece that
/// completed the window, so it gives the same features, bit for bit, whether the conditioner runs just before it on the
/// same thread (`FeatureStream.consume`) or ahead of it on another (`RecordingAnalyzer`, decoding and conditioning on one
/// core, analysing on the other).
public final class SourceConditioner {
    /// The source's power in the last four half-second blocks (a ring: block `b` in slot `b % 4`), and how many of its
    /// samples have been conditioned.
    public struct Levels: Sendable {
        var energy = SIMD4<Double>(repeating: 0)
        var samples = SIMD4<Int>(repeating: 0)
        var position: Int64 = 0
    }

    /// Analysis-rate samples, and the source's levels after the stretch that completed them.
    public struct Piece: Sendable {
        public let samples: [Float]
        public let levels: Levels
    }

    public let sampleRate: Int
    private let resampler: Resampler
    private var dcBlocker: DCBlocker
    private let measuresLevels: Bool
    private let grid: AnalysisGrid
    private var levels = Levels()
    /// The stretch being conditioned, its DC offset taken off; at most half a block, so that the ring of four blocks
    /// never runs ahead of the windows that read it.
    private var unbiased: [Float]

    public init(sampleRate: Int, outputRate: Int, measuresLevels: Bool) {
        self.sampleRate = sampleRate
        self.measuresLevels = measuresLevels
        resampler = Resampler(inputRate: sampleRate, outputRate: outputRate)
        dcBlocker = DCBlocker(sampleRate: sampleRate)
        grid = AnalysisGrid(sampleRate: sampleRate)
        unbiased = [Float](repeating: 0, count: max(1, grid.maximumBlockLength / 2))
    }

    /// Conditions the next samples; hands over a piece for each stretch that completes analysis-rate samples.
    public func condition(_ samples: UnsafeBufferPointer<Float>, _ body: (Piece) -> Void) {
        unbias(samples) { stretch, levels in
            if let piece = resample(stretch, levels: levels) { body(piece) }
        }
    }

    /// The first half of `condition`: the next samples with their DC offset taken off, in stretches of at most half a
    /// block (handed to `body` in the conditioner's scratch, to be used before it returns), each with the source's
    /// levels after it. A caller may run this half on one thread and `resample` on another, the stretches in order.
    public func unbias(_ samples: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>, Levels) -> Void) {
        let step = unbiased.count
        var start = 0
        while start < samples.count {
            let count = min(samples.count - start, step)
            unbiased.withUnsafeMutableBufferPointer { buffer in
                dcBlocker.filter(UnsafeBufferPointer(rebasing: samples[start..<(start + count)]), into: buffer)
            }
            unbiased.withUnsafeBufferPointer { buffer in
                let stretch = UnsafeBufferPointer(rebasing: buffer[0..<count])
                if measuresLevels { account(stretch) }
                body(stretch, levels)
            }
            start += step
        }
    }

    /// The second half of `condition`: a stretch `unbias` made, converted to the analysis rate; the piece it completes,
    /// if any, carries `levels` (the stretch's own).
    public func resample(_ stretch: UnsafeBufferPointer<Float>, levels: Levels) -> Piece? {
        let output = resampler.process(stretch)
        return output.isEmpty ? nil : Piece(samples: output, levels: levels)
    }

    /// Ends the recording: the last analysis-rate samples (possibly none), with the final levels.
    public func finish() -> Piece {
        var last: [Float] = []
        resampler.finish { last.append(contentsOf: $0) }
        return Piece(samples: last, levels: levels)
    }

    /// The source's energy and sample count over `blocks` (those begun by the time of `levels`).
    func power(ofBlocks blocks: ClosedRange<Int>, in levels: Levels) -> (energy: Double, samples: Int) {
        var energy = 0.0, samples = 0
        let lastBegun = block(of: max(0, levels.position - 1))
        for block in blocks where Int64(block) <= lastBegun {
            energy += levels.energy[block % 4]
            samples += levels.samples[block % 4]
        }
        return (energy, samples)
    }

    /// Sums the stretch's power into its half-second blocks.
    private func account(_ samples: UnsafeBufferPointer<Float>) {
        var index = 0
        while index < samples.count {
            let block = block(of: levels.position)
            let end = grid.blockStart(block + 1)
            let take = Int(min(Int64(samples.count - index), end - levels.position))
            let slot = Int(block % 4)
            if levels.position == grid.blockStart(block) {
                levels.energy[slot] = 0
                levels.samples[slot] = 0
            }
            levels.energy[slot] += Double(UnsafeBufferPointer(rebasing: samples[index..<(index + take)]).sumOfSquares())
            levels.samples[slot] += take
            levels.position += Int64(take)
            index += take
        }
    }

    private func block(of position: Int64) -> Int64 {
        var block = position * 2 / Int64(sampleRate)
        while grid.blockStart(block + 1) <= position { block += 1 }
        while grid.blockStart(block) > position { block -= 1 }
        return block
    }
}
