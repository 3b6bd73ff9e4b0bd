import Foundation
@testable import SomniqFeatures
import SomniqSynth
import Testing

@Suite struct SubframeTransformTests {
    /// A cough over noise with a stretch of digital silence (a gap) in it, ending in a cut-short block.
    static func signal(sampleRate: Int) -> [Float] {
        var synth = SoundSynthesizer(sampleRate: sampleRate, seed: 7)
        var samples = synth.roomNoise(seconds: 2.3, levelDbfs: -50).map(Float.init)
        samples += synth.cough(levelDbfs: -12).map(Float.init)
        samples += [Float](repeating: 0, count: sampleRate * 3 / 4)
        samples += synth.sine(frequency: 900, seconds: 1.13, amplitude: 0.2).map(Float.init)
        return samples
    }

    /// The features of an extractor fed spectra from a transform that took the samples in chunks of `chunk`.
    static func extractReceiving(_ samples: [Float], sampleRate: Int, chunk: Int) -> [FeatureVector] {
        let extractor = FeatureExtractor(sampleRate: sampleRate, receivesSpectra: true)
        let transform = SubframeTransform(sampleRate: sampleRate)
        var vector = FeatureVector()
        var windows: [FeatureVector] = []
        var pending: [Float] = []
        var block: Int64 = 0
        func consumeBlocks() {
            while pending.count >= extractor.grid.blockLength(block) {
                let length = extractor.grid.blockLength(block)
                if pending.withUnsafeBufferPointer({ extractor.consume(UnsafeBufferPointer(rebasing: $0[0..<length]), into: &vector) }) {
                    windows.append(vector)
                }
                pending.removeFirst(length)
                block += 1
            }
        }
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + chunk)
            extractor.receive(samples.withUnsafeBufferPointer { transform.add(UnsafeBufferPointer(rebasing: $0[start..<end])) })
            pending += samples[start..<end]
            consumeBlocks()
            start = end
        }
        extractor.receive(transform.finish())
        if !pending.isEmpty, pending.withUnsafeBufferPointer({ extractor.consume($0, into: &vector) }) { windows.append(vector) }
        if extractor.finish(into: &vector) { windows.append(vector) }
        return windows
    }

    @Test(arguments: [(8_000, 997), (8_000, 4_000), (11_025, 331), (16_000, 5_000)])
    func spectraMadeElsewhereGiveTheSameFeaturesBitForBit(sampleRate: Int, chunk: Int) {
        let samples = Self.signal(sampleRate: sampleRate)
        let own = extractFeatures(samples, sampleRate: sampleRate)
        let received = Self.extractReceiving(samples, sampleRate: sampleRate, chunk: chunk)
        #expect(own.count == received.count)
        #expect(own.count >= 9)
        for (index, (a, b)) in zip(own, received).enumerated() {
            for id in FeatureID.allCases where a[id].bitPattern != b[id].bitPattern {
                Issue.record("window \(index), \(id): \(a[id]) computed, \(b[id]) received")
            }
        }
    }

    @Test func aGapIsMeasuredButNotTransformed() {
        let sampleRate = 8_000
        let transform = SubframeTransform(sampleRate: sampleRate)
        let silence = [Float](repeating: 0, count: sampleRate / 2)
        let tone = SoundSynthesizer(sampleRate: sampleRate, seed: 0).sine(frequency: 440, seconds: 0.5, amplitude: 0.5).map(Float.init)
        let quiet = silence.withUnsafeBufferPointer { transform.add($0) }
        #expect(quiet.measures.count == AnalysisGrid.subframesPerBlock)
        #expect(quiet.measures.allSatisfy { $0.isGap })
        #expect(quiet.power.isEmpty)
        let loud = tone.withUnsafeBufferPointer { transform.add($0) }
        #expect(loud.measures.count == AnalysisGrid.subframesPerBlock)
        #expect(!loud.measures.contains { $0.isGap })
        #expect(loud.power.count == AnalysisGrid.subframesPerBlock * transform.binCount)
        // Nothing was cut short: the recording ended on a block's end.
        #expect(transform.finish().measures.isEmpty)
    }
}
