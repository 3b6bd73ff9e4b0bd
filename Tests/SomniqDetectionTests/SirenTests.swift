import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// A siren is heard over 3 s (models/default, from rules 0.13.0): its rule hears a steady tone at 400-1800 Hz, which
/// a chime's ding also is for a window or two, and its critical tier alerts at once. The control is the model
/// without the setting.
@Suite struct SirenTests {
    let classes = defaultBundle.classifier.classes.count
    let siren = defaultBundle.classifier.classes.firstIndex { $0.id == "siren" }!

    /// A chime: its rule's capped confidence (0.6) for a second.
    var chime: HandScoredRecording {
        var recording = HandScoredRecording(seconds: 30, classCount: classes, loud: [(10, 11)])
        recording.score((10, 11), siren, 0.6)
        return recording
    }

    @Test func aSirenSoundingForSecondsIsHeard() throws {
        var recording = HandScoredRecording(seconds: 60, classCount: classes, loud: [(10, 40)])
        recording.score((10, 40), siren, 0.6)
        for result in recording.run(defaultBundle).filter({ ["sensitive", "very-sensitive"].contains($0.profile) }) {
            let episodes = result.episodes(of: siren, in: 9...41)
            #expect(episodes.count == 1, "\(result.profile): \(episodes)")
            #expect(result.alerts.contains { $0.classIndex == siren && Double($0.frame) * AnalysisGrid.hopSeconds <= 13.5 },
                    "\(result.profile): alerted within 3.5 s of its start")
        }
    }

    @Test func aChimeIsNotASiren() throws {
        for result in chime.run(defaultBundle) {
            #expect(result.episodes(of: siren, in: 0...30).isEmpty, "\(result.profile)")
        }
        let heardAtOnce = alteredDefaultBundle { model in model.classes[siren].adjust = nil }
        let loosest = try #require(chime.run(heardAtOnce).first { $0.profile == "very-sensitive" })
        #expect(loosest.episodes(of: siren, in: 0...30).count == 1, "the control: without the 3 s mean, the chime is a siren")
    }
}
