import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqSynth
import Testing

let defaultBundle = try! ModelBundle.load(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path + "/models/default")

/// Confidences shaped like a night: per class, bursts of random length and height over low noise.
func generatedConfidences(windows: Int, classes: Int, seed: UInt64) -> [Float] {
    var random = SeededGenerator(seed: seed)
    var values = [Float](repeating: 0, count: windows * classes)
    for classIndex in 0..<classes {
        var frame = 0
        while frame < windows {
            let gap = Int.random(in: 0...40, using: &random)
            let length = Int.random(in: 1...60, using: &random)
            let level = Float.random(in: 0.2...1, using: &random)
            let burstStart = min(windows, frame + gap)
            for index in frame..<burstStart {
                values[index * classes + classIndex] = Float.random(in: 0...0.45, using: &random)
            }
            for index in burstStart..<min(windows, frame + gap + length) {
                values[index * classes + classIndex] = min(1, max(0, level + Float.random(in: -0.35...0.2, using: &random)))
            }
            frame += gap + length
        }
    }
    return values
}

@Suite struct ProfileOrderingTests {
    /// A stricter profile never raises more alerts than a looser one, class by class, on the same input.
    @Test(arguments: 0..<40)
    func aStricterProfileNeverAlertsMore(seed: Int) {
        let classes = defaultBundle.classifier.classes.count
        let windows = 1200
        let confidences = generatedConfidences(windows: windows, classes: classes, seed: UInt64(seed))
        let results = defaultBundle.profiles.profiles.map {
            ProfileRunner.run(profile: $0, bundle: defaultBundle, confidences: confidences, windowCount: windows,
                              durationSeconds: Double(windows) / 2 + 0.5)
        }
        for (stricter, looser) in zip(results, results.dropFirst()) {
            for classIndex in 0..<classes {
                let strict = stricter.alerts.filter { $0.classIndex == classIndex }.count
                let loose = looser.alerts.filter { $0.classIndex == classIndex }.count
                #expect(strict <= loose, "\(stricter.profile) \(strict) > \(looser.profile) \(loose) for class \(classIndex), seed \(seed)")
            }
        }
    }

    /// The same with the whole recording known (as `analyze` runs the profiles): events, bouts, and the activations
    /// a bout claims or that hold no bout withdrawn with their alerts. The envelope is loud in half-second bursts
    /// wherever some class is confident, quiet between, so snores, bouts and claims all occur.
    @Test(arguments: 0..<40)
    func aStricterProfileNeverAlertsMoreWithTheTimeline(seed: Int) {
        let classes = defaultBundle.classifier.classes.count
        let windows = 1200
        let confidences = generatedConfidences(windows: windows, classes: classes, seed: UInt64(seed))
        var envelope = LevelEnvelope()
        var random = SeededGenerator(seed: 500 + UInt64(seed))
        for block in 0..<(windows / 2 + 1) * LevelEnvelope.rateHz {
            let window = min(windows - 1, block / (LevelEnvelope.rateHz / 2))
            let confident = (0..<classes).contains { confidences[window * classes + $0] > 0.5 }
            let inBurst = block % 100 < Int.random(in: 40...90, using: &random)
            envelope.append(dbfs: confident && inBurst ? Float.random(in: -30 ... -12, using: &random) : Float.random(in: -62 ... -58, using: &random))
        }
        let timeline = RecordingTimeline(envelope: envelope, model: defaultBundle.classifier, confidences: confidences, windowCount: windows)
        let results = defaultBundle.profiles.profiles.map {
            ProfileRunner.run(profile: $0, bundle: defaultBundle, confidences: confidences, windowCount: windows,
                              durationSeconds: Double(windows) / 2 + 0.5, timeline: timeline)
        }
        for (stricter, looser) in zip(results, results.dropFirst()) {
            for classIndex in 0..<classes {
                let strict = stricter.alerts.filter { $0.classIndex == classIndex }.count
                let loose = looser.alerts.filter { $0.classIndex == classIndex }.count
                #expect(strict <= loose, "\(stricter.profile) \(strict) > \(looser.profile) \(loose) for class \(classIndex), seed \(seed)")
            }
        }
    }

    /// No two alerts of a class fall inside its cooldown.
    @Test(arguments: 0..<10)
    func alertsOfAClassRespectItsCooldown(seed: Int) {
        let classes = defaultBundle.classifier.classes.count
        let confidences = generatedConfidences(windows: 2000, classes: classes, seed: 1000 + UInt64(seed))
        for profile in defaultBundle.profiles.profiles {
            let result = ProfileRunner.run(profile: profile, bundle: defaultBundle, confidences: confidences,
                                           windowCount: 2000, durationSeconds: 1000.5)
            for classIndex in 0..<classes {
                guard let rule = result.rules[classIndex] else {
                    #expect(!result.alerts.contains { $0.classIndex == classIndex }, "tier none never alerts")
                    continue
                }
                let frames = result.alerts.filter { $0.classIndex == classIndex }.map(\.frame)
                for (earlier, later) in zip(frames, frames.dropFirst()) {
                    #expect(Double(later - earlier) / rule.frameHz >= rule.cooldownSec - 1e-9)
                }
            }
        }
    }
}

@Suite struct EpisodeBuilderTests {
    let adjustment = TierAdjustment(onDelta: 0, offDelta: 0, debounceScale: 1, cooldownScale: 1, useWindowMean: false,
                                    windowSec: 1, windowThreshDelta: 0, mergeGapSec: 10,
                                    severity: SeverityRule(base: .mild, moderateAfterSec: 30, severeAfterSec: 120))

    func activation(_ index: Int, _ onset: Int, _ end: Int, peak: Float = 0.8, alerts: Int = 1, suppressed: Int = 0) -> Activation {
        Activation(classIndex: 2, index: index, onsetFrame: onset, endFrame: end, peakConfidence: peak,
                   alertCount: alerts, suppressedCount: suppressed)
    }

    @Test func mergesActivationsWithinTheGap() {
        // Frames at 2 Hz: [10 s, 15.5 s], then [25 s, 40.5 s] (gap 9.5 s, merged), then [60 s, 61 s] (gap 19.5 s, apart).
        let episodes = EpisodeBuilder.merge(
            [activation(0, 20, 30, peak: 0.7), activation(1, 50, 80, peak: 0.9, alerts: 0, suppressed: 1), activation(2, 120, 121)],
            tier: .high, adjustment: adjustment, durationSeconds: 1000)
        #expect(episodes.count == 2)
        #expect(episodes[0].startSeconds == 10)
        #expect(episodes[0].endSeconds == 41)
        #expect(episodes[0].peakConfidence == 0.9)
        #expect(episodes[0].alertCount == 1)
        #expect(episodes[0].suppressedCount == 1)
        #expect(episodes[0].activations == 0...1)
        #expect(episodes[0].severity == .moderate)
        #expect(episodes[1].severity == .mild)
    }

    @Test func clipsTheLastEpisodeAtTheEndOfTheFile() {
        let episodes = EpisodeBuilder.merge([activation(0, 10, 19)], tier: .high, adjustment: adjustment, durationSeconds: 9.7)
        #expect(episodes[0].endSeconds == 9.7)
    }
}
