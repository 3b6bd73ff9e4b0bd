import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqSynth
import Testing

let shippedBundle = try! ModelBundle.load(path: root + "/models/default")

/// A quiet room with `sounds` laid over it at their start times (seconds), at `sampleRate`.
func scene(seconds: Double, sampleRate: Int, seed: UInt64, _ sounds: (inout SoundSynthesizer) -> [(Double, [Double])]) -> [Float] {
    var synth = SoundSynthesizer(sampleRate: sampleRate, seed: seed)
    var mix = synth.roomNoise(seconds: seconds, levelDbfs: -62)
    for (start, sound) in sounds(&synth) {
        let offset = Int((start * Double(sampleRate)).rounded())
        for (index, value) in sound.enumerated() where offset + index < mix.count { mix[offset + index] += value }
    }
    return mix.map(Float.init)
}

/// One-second snores every `period` seconds, each followed by a soft exhalation: `count` of them from `start`.
func snoringBout(start: Double, count: Int, period: Double, snoreSeconds: Double = 1.0, level: Double = -26)
    -> (inout SoundSynthesizer) -> [(Double, [Double])] {
    { synth in
        (0..<count).flatMap { index -> [(Double, [Double])] in
            let time = start + Double(index) * period
            return [(time, synth.snore(seconds: snoreSeconds, flutterHz: 50, levelDbfs: level)),
                    (time + snoreSeconds + 0.4, synth.breath(seconds: 1.2, levelDbfs: level - 26))]
        }
    }
}

@Suite struct NightTimingTests {
    /// A tone burst's start and end are found to 10 ms at every rate, whatever the window grid says.
    @Test(arguments: [8_000, 16_000, 44_100])
    func aToneBurstIsTimedToTenMilliseconds(sampleRate: Int) {
        let onset = 3.137, offset = 5.452
        let samples = scene(seconds: 9, sampleRate: sampleRate, seed: 5) { synth in
            [(onset, synth.sine(frequency: 1000, seconds: offset - onset, amplitude: 0.1))]
        }
        let stream = FeatureStream(sampleRate: sampleRate)
        samples.withUnsafeBufferPointer { stream.consume($0) { _ in } }
        stream.finish { _ in }
        #expect(stream.envelope.count == Int((Double(samples.count) / Double(sampleRate) * 100).rounded(.down)))
        let timing = SoundTiming(envelope: stream.envelope)
        let span = try! #require(timing.span(peakIn: 3.5...4.5, within: 2.5...6.5))
        #expect(abs(span.onsetSeconds - onset) <= 0.01, "onset \(span.onsetSeconds) at \(sampleRate) Hz")
        #expect(abs(span.offsetSeconds - offset) <= 0.01, "offset \(span.offsetSeconds) at \(sampleRate) Hz")
        #expect(abs(span.peakDbfs - -23) < 1.5, "a 0.1 sine is at -23 dBFS, found \(span.peakDbfs)")
    }

    /// A smoke alarm that starts at 30.0 s is an episode from 30.0 s, not from the window grid after the smoothing.
    @Test(arguments: [16_000, 44_100])
    func anAlarmEpisodeStartsWhenTheAlarmDoes(sampleRate: Int) {
        let samples = scene(seconds: 50, sampleRate: sampleRate, seed: 8) { synth in
            [(30.0, synth.smokeAlarm(seconds: 11.5, levelDbfs: -20))]  // T3 beeps: the last one ends at 30 + 10.5 s
        }
        let analyzer = RecordingAnalyzer(bundle: shippedBundle)
        let data = analyzer.analyzeRecording(samples: samples, sampleRate: sampleRate)
        let result = analyzer.runProfiles([shippedBundle.profiles.profile(named: "balanced")!], on: data)[0]
        let alarm = data.classIDs.firstIndex(of: "smoke_detector")!
        let episodes = result.episodes.filter { $0.classIndex == alarm }
        try! #require(episodes.count == 1, "\(result.episodes)")
        #expect(abs(episodes[0].startSeconds - 30.0) <= 0.01, "start \(episodes[0].startSeconds)")
        #expect(abs(episodes[0].endSeconds - 40.5) <= 0.01, "end \(episodes[0].endSeconds)")
        #expect(episodes[0].peakDbfs != nil)
        // The alert keeps its causal time: after the alarm began, on the window grid.
        let alert = result.alerts.first { $0.classIndex == alarm }!
        #expect(AnalysisGrid.windowStartSeconds(alert.frame) + AnalysisGrid.windowSeconds > 30.0)
    }

    /// Every snore of a synthesised bout is found, once, and the bout is one.
    @Test(arguments: [(16_000, 4.0, 1.0), (44_100, 3.5, 1.0), (8_000, 5.0, 1.5)])
    func snoresOfABoutAreCountedExactly(sampleRate: Int, period: Double, snoreSeconds: Double) {
        let count = 15
        let samples = scene(seconds: 20 + Double(count) * period + 15, sampleRate: sampleRate, seed: 11,
                            snoringBout(start: 20, count: count, period: period, snoreSeconds: snoreSeconds))
        for model in [bundle, shippedBundle] {
            let data = RecordingAnalyzer(bundle: model).analyzeRecording(samples: samples, sampleRate: sampleRate)
            let snoring = data.classIDs.firstIndex(of: "snoring")!
            let snores = data.timeline!.events.filter { $0.classIndex == snoring }
            #expect(snores.count == count, "\(model.classifier.name): \(snores.map(\.onsetSeconds))")
            for (index, snore) in snores.enumerated() where snores.count == count {
                let truth = 20 + Double(index) * period
                #expect(abs(snore.onsetSeconds - truth) < 0.15 && abs(snore.offsetSeconds - truth - snoreSeconds) < 0.25,
                        "snore \(index): \(snore.onsetSeconds)–\(snore.offsetSeconds), truth \(truth)")
            }
            let bouts = data.timeline!.bouts.filter { $0.classIndex == snoring }
            #expect(bouts.count == 1 && bouts.first?.eventCount == count, "\(bouts)")
        }
    }

    /// A bout of one-second snores every 4 s is one snoring episode under every profile, timed to the bout.
    @Test func aBoutOfOneSecondSnoresIsOneEpisodeUnderEveryProfile() {
        let samples = scene(seconds: 120, sampleRate: 16_000, seed: 12, snoringBout(start: 20, count: 20, period: 4))
        for model in [bundle, shippedBundle] {
            let analyzer = RecordingAnalyzer(bundle: model)
            let data = analyzer.analyzeRecording(samples: samples, sampleRate: 16_000)
            let snoring = data.classIDs.firstIndex(of: "snoring")!
            for result in analyzer.runProfiles(model.profiles.profiles, on: data) {
                let episodes = result.episodes.filter { $0.classIndex == snoring }
                #expect(episodes.count == 1, "\(model.classifier.name) \(result.profile): \(episodes.map { ($0.startSeconds, $0.endSeconds) })")
                if let episode = episodes.first {
                    #expect(abs(episode.startSeconds - 20) < 0.15, "\(result.profile) start \(episode.startSeconds)")
                    #expect(abs(episode.endSeconds - 97) < 0.25, "\(result.profile) end \(episode.endSeconds)")
                }
            }
        }
    }
}
