import Foundation
import Testing
@testable import SomniqFeatures

/// The DC blocker against its definition: a one-pole running mean with a 1 Hz corner, taken off sample by sample.
@Suite struct DCBlockerTests {
    /// Three seconds of noise (peak 0.1) over an offset that drifts from 0.02 to -0.01 at 16 kHz, with an eighth of a
    /// second of exact zeros (an edit) after 1.25 s: the noise, and the noise with its offset.
    static let (noise, recording): ([Float], [Float]) = {
        var state: UInt32 = 12_345
        let noise = (0..<48_000).map { index -> Float in
            if (20_000..<22_000).contains(index) { return 0 }
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) * 0.2 - 0.1
        }
        return (noise, noise.enumerated().map { index, value in value == 0 ? 0 : value + 0.02 - 0.03 * Float(index) / 48_000 })
    }()

    static func filtered(_ samples: [Float], pieces: [Int]) -> [Float] {
        var blocker = DCBlocker(sampleRate: 16_000)
        var output = [Float](repeating: 0, count: samples.count)
        var start = 0, piece = 0
        samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { target in
                while start < samples.count {
                    let end = min(samples.count, start + pieces[piece % pieces.count])
                    blocker.filter(UnsafeBufferPointer(rebasing: input[start..<end]),
                                   into: UnsafeMutableBufferPointer(rebasing: target[start..<end]))
                    start = end
                    piece += 1
                }
            }
        }
        return output
    }

    /// However a recording is cut into calls (whole, in uneven pieces, a sample at a time for a while), it gives the
    /// same output, bit for bit.
    @Test func theOutputDoesNotDependOnHowTheRecordingIsCut() {
        let whole = Self.filtered(Self.recording, pieces: [Self.recording.count])
        #expect(Self.filtered(Self.recording, pieces: [997, 31, 4_096, 1, 1, 7, 640]) == whole)
        #expect(Self.filtered(Self.recording, pieces: [1]) == whole)
    }

    /// Within 2% of the noise's peak of the sample-by-sample one-pole filter (plain mean over its first 1 / smoothing
    /// samples) everywhere; the offset off (what is left of it, averaged over each tenth of a second after the first, under
    /// 0.003 where the offset is 0.02 and drifts by 0.01 a second: a 1 Hz mean lags by 1/2π s); zeros kept zeros. And
    /// without edges: the difference from the reference moves by under 0.0002 from one sample to the next, where a mean
    /// that stepped once a block would jump at every block's edge.
    @Test func itFollowsTheOnePoleMeanAndTakesTheOffsetOff() {
        let output = Self.filtered(Self.recording, pieces: [4_000])
        let smoothing = 2 * Double.pi / 16_000
        var mean = 0.0, heard = 0.0
        var largest: Float = 0, largestStep: Float = 0, lastDifference: Float?
        for (sample, filtered) in zip(Self.recording, output) {
            guard sample != 0 else {
                #expect(filtered == 0)
                continue
            }
            let reference: Double
            if heard * smoothing < 1 {
                heard += 1
                mean += (Double(sample) - mean) / heard
                reference = Double(sample) - mean
            } else {
                reference = Double(sample) - mean
                mean += smoothing * (Double(sample) - mean)
            }
            let difference = filtered - Float(reference)
            largest = max(largest, abs(difference))
            if let last = lastDifference, heard * smoothing >= 1 { largestStep = max(largestStep, abs(difference - last)) }
            lastDifference = difference
        }
        #expect(largest < 0.002, "largest difference \(largest)")
        #expect(largestStep < 0.0002, "largest step of the difference from one sample to the next \(largestStep)")
        for start in stride(from: 1_600, to: 48_000, by: 1_600) {
            let left = zip(output[start..<(start + 1_600)], Self.noise[start..<(start + 1_600)]).map { $0 - $1 }
            let average = left.reduce(0, +) / Float(left.count)
            #expect(abs(average) < 0.003, "offset left \(average) from sample \(start)")
        }
    }
}
