import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqSynth
import Testing

/// What the alert processor hears in a window is settled a bounded time after it (`RecordingTimeline.horizonSeconds`):
/// the timeline of a recording cut at any moment agrees with the whole recording's on every window at least that long
/// before the cut. This is what lets a live follower print the alerts `analyze` stores (#48).
@Suite struct RecordingTimelineHorizonTests {
    static let model = defaultBundle.classifier
    static func index(_ id: String) -> Int { model.classes.firstIndex { $0.id == id }! }

    /// Half an hour scripted as a snorer's night: bouts of one to six minutes of snores at breathing pace (peaks and
    /// lengths varying, some scored low, some taken for coughs, some with a soft tail), the room drifting by a few dB,
    /// coughing fits, gasps out of quiet, crying, and a minute and a half of one loud snoring-like stretch.
    struct ScriptedNight {
        let seconds = 1_800.0
        let classCount = RecordingTimelineHorizonTests.model.classes.count
        var envelope = LevelEnvelope()
        var confidences: [Float]
        let windows: Int

        init(seed: UInt64) {
            var random = SeededGenerator(seed: seed)
            windows = AnalysisGrid(sampleRate: 16_000).windowCount(frameCount: Int64(seconds * 16_000))
            confidences = [Float](repeating: 0.02, count: windows * classCount)
            var level = [Float](repeating: 0, count: Int(seconds * 100))
            for block in level.indices {
                let time = Float(block) / 100
                level[block] = -60 + 4 * sin(time / 200) + Float.random(in: -1...1, using: &random)
            }
            func sound(_ start: Double, _ length: Double, _ peak: Float) {
                for block in Int(start * 100)..<min(level.count, Int((start + length) * 100)) {
                    let phase = Float(Double(block) / 100 - start) / Float(length)
                    level[block] = max(level[block], peak - 12 * abs(2 * phase - 1))
                }
            }
            let snoring = RecordingTimelineHorizonTests.index("snoring"), cough = RecordingTimelineHorizonTests.index("cough")
            let gasp = RecordingTimelineHorizonTests.index("gasp"), crying = RecordingTimelineHorizonTests.index("crying_sobbing")
            var time = 20.0
            while time < seconds - 60 {
                switch Int.random(in: 0..<6, using: &random) {
                case 0...2:
                    // A bout of snores.
                    let pace = Double.random(in: 3.2...4.6, using: &random)
                    // Up to four minutes of snores the classifier barely leans to before the bout is heard, and a
                    // loudness that drifts through the bout: what a bout's first snores say of it is not what its
                    // last say.
                    let unsure = Int.random(in: 0...60, using: &random)
                    let end = time + Double(unsure) * pace + Double.random(in: 30...300, using: &random)
                    var peak = Float.random(in: -38 ... -20, using: &random)
                    let drift = Float.random(in: -1.5...1.5, using: &random)
                    var count = 0
                    while time < min(end, seconds - 5) {
                        let length = Double.random(in: 0.6...1.4, using: &random)
                        peak = min(-8, max(-42, peak + drift + Float.random(in: -2...2, using: &random)))
                        sound(time, length, peak)
                        let roll = Int.random(in: 0..<20, using: &random)
                        score(time, length, snoring, roll < 3 || count < unsure ? 0.3 : Float.random(in: 0.6...0.95, using: &random))
                        count += 1
                        if roll == 3 {
                            score(time, length, cough, 0.8)
                        } else if roll == 4 {
                            sound(time + length + 0.3, 0.3, peak - 15)
                        }
                        time += pace + Double.random(in: -0.4...0.4, using: &random)
                    }
                    time += Double.random(in: 5...60, using: &random)
                case 3:
                    // A coughing fit.
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        sound(time, 0.4, Float.random(in: -25 ... -10, using: &random))
                        score(time, 0.4, cough, Float.random(in: 0.55...0.95, using: &random))
                        time += Double.random(in: 0.8...5, using: &random)
                    }
                    time += Double.random(in: 10...60, using: &random)
                case 4:
                    // A gasp out of quiet, then a crying spell.
                    sound(time, 0.8, -18)
                    score(time, 0.8, gasp, 0.9)
                    time += Double.random(in: 5...20, using: &random)
                    for _ in 0..<Int.random(in: 2...8, using: &random) {
                        sound(time, 1.2, Float.random(in: -30 ... -15, using: &random))
                        score(time, 1.2, crying, Float.random(in: 0.55...0.9, using: &random))
                        time += Double.random(in: 1.5...4, using: &random)
                    }
                    time += Double.random(in: 10...60, using: &random)
                default:
                    // One stretch the classifier hears as snoring throughout, growing louder: its loudest moment,
                    // at the end, is not what its start is judged by.
                    let length = Double.random(in: 30...90, using: &random)
                    for step in stride(from: time, to: min(seconds - 5, time + length), by: 0.5) {
                        sound(step, 0.5, -44 + 36 * Float((step - time) / length) + Float.random(in: -2...2, using: &random))
                    }
                    score(time, length, snoring, 0.8)
                    time += length + Double.random(in: 10...60, using: &random)
                }
            }
            for value in level { envelope.append(dbfs: value) }

            func score(_ start: Double, _ length: Double, _ classIndex: Int, _ value: Float) {
                for window in 0..<windows where AnalysisGrid.windowStartSeconds(window) < start + length
                    && AnalysisGrid.windowStartSeconds(window) + AnalysisGrid.windowSeconds > start {
                    confidences[window * classCount + classIndex] = max(confidences[window * classCount + classIndex], value)
                }
            }
        }

        /// What the alert processor hears, from the recording cut after `seconds` (the whole one by default).
        func heard(upTo cut: Double? = nil) -> (windows: Int, heard: [Float]) {
            let cut = cut ?? seconds
            let windowCount = AnalysisGrid(sampleRate: 16_000).windowCount(frameCount: Int64(cut * 16_000))
            let envelope = LevelEnvelope(codes: Array(self.envelope.codes.prefix(Int(cut * 100))))
            let confidences = Array(self.confidences.prefix(windowCount * classCount))
            let timeline = RecordingTimeline(envelope: envelope, model: RecordingTimelineHorizonTests.model, confidences: confidences,
                                             windowCount: windowCount)
            return (windowCount, timeline.heardConfidences(confidences, classCount: classCount, windowCount: windowCount))
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aRecordingCutAnywhereHearsWhatTheWholeOneHearsBeforeTheHorizon(seed: UInt64) {
        let night = ScriptedNight(seed: seed)
        let whole = night.heard()
        let classes = night.classCount
        let horizons = (0..<classes).map { RecordingTimeline.horizonSeconds(classIndex: $0, model: Self.model) }
        // The night holds what the horizons are about: snores heard and unheard, coughs claimed, a gasp.
        let snoring = Self.index("snoring")
        #expect((0..<whole.windows).contains { whole.heard[$0 * classes + snoring] > 0.5 })
        #expect((0..<whole.windows).contains { whole.heard[$0 * classes + snoring] == 0 && night.confidences[$0 * classes + snoring] > 0.5 })
        var compared = 0
        for cut in stride(from: 45.0, to: night.seconds, by: 37) {
            let part = night.heard(upTo: cut)
            for classIndex in 0..<classes {
                for window in 0..<part.windows
                where AnalysisGrid.windowStartSeconds(window) + AnalysisGrid.windowSeconds + horizons[classIndex] <= cut {
                    let early = part.heard[window * classes + classIndex], late = whole.heard[window * classes + classIndex]
                    if early != late {
                        Issue.record("seed \(seed), cut at \(cut) s: class \(Self.model.classes[classIndex].id) at \(AnalysisGrid.windowStartSeconds(window)) s heard \(early), the whole night \(late)")
                        return
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 100_000)
    }

    @Test func theHorizonsAreWhatALiveFollowerCanWaitFor() {
        let horizon = { RecordingTimeline.horizonSeconds(classIndex: Self.index($0), model: Self.model) }
        #expect(horizon("smoke_detector") == 0, "an alarm is heard as the classifier hears it, at once")
        #expect(horizon("speech") == 0)
        #expect(horizon("gasp") > 30 && horizon("gasp") < 40, "the room's background half a minute ahead")
        #expect(horizon("snoring") > 60 && horizon("snoring") <= 180, "\(horizon("snoring")) s")
        #expect(horizon("cough") > 30 && horizon("cough") <= 180, "claimed by crying's bouts")
    }
}
