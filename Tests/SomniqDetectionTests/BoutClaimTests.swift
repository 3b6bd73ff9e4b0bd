import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// Snoring is a bout, and a snore of a bout is a snore (`EventRhythm.boutOnly` and `claims`, as models/default sets
/// them for snoring): checked on a scripted recording, with the same recording under a model without them as the
/// control that shows each check can fail.
@Suite struct BoutClaimTests {
    let classes = defaultBundle.classifier.classes.count
    let snoring = defaultBundle.classifier.classes.firstIndex { $0.id == "snoring" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!

    /// 120 s of a quiet room (−60 dBFS) with: a bout of one-second snores every 4 s from 10 s to 50 s, whose snore at
    /// 30 s the classifier scored as a cough (cough 0.95, snoring 0.3); a real cough of 0.3 s at 80 s, alone; one
    /// snore-like second at 100 s, alone.
    var recording: HandScoredRecording {
        let snores = stride(from: 10.0, through: 50.0, by: 4.0).map { ($0, $0 + 1) }
        var recording = HandScoredRecording(seconds: 120, classCount: classes, loud: snores + [(80.0, 80.3), (100.0, 101.0)])
        for snore in snores { recording.score(snore, snoring, snore.0 == 30 ? 0.3 : 0.9) }
        recording.score((30, 31), cough, 0.95)
        recording.score((80, 80.3), cough, 0.95)
        recording.score((100, 101), snoring, 0.9)
        return recording
    }

    /// The same model without the two settings.
    var plainBundle: ModelBundle {
        alteredDefaultBundle { model in
            model.classes[snoring].events?.boutOnly = false
            model.classes[snoring].events?.claims = []
        }
    }

    @Test func theModelAsksForBothSettings() {
        #expect(defaultBundle.classifier.classes[snoring].events?.boutOnly == true)
        #expect(defaultBundle.classifier.classes[snoring].events?.claims == ["cough", "door_slam"])
    }

    /// Under every profile: the bout is one snoring episode; the snore scored as a cough is no cough episode, raises
    /// no cough alert and is no cough event; the real cough is kept; the lone snore-like second is no snoring episode.
    @Test func aBoutClaimsItsSnoresAndALoneSnoreIsNoEpisode() {
        let timeline = recording.timeline(defaultBundle)
        #expect(!timeline.events.contains { $0.classIndex == cough && $0.overlaps(30...31) })
        #expect(timeline.events.contains { $0.classIndex == cough && $0.overlaps(80...80.3) })
        #expect(timeline.events.filter { $0.classIndex == snoring && $0.bout != nil }.count == 11)
        for result in recording.run(defaultBundle) {
            #expect(result.episodes(of: snoring, in: 10...51).count == 1, "\(result.profile)")
            #expect(result.episodes(of: cough, in: 10...51).isEmpty, "\(result.profile)")
            #expect(!result.alerts.contains { $0.classIndex == cough && AnalysisGrid.windowStartSeconds($0.frame) < 55 }, "\(result.profile)")
            #expect(result.episodes(of: snoring, in: 95...110).isEmpty, "\(result.profile)")
            #expect(result.alertEpisodes.allSatisfy { result.episodes.indices.contains($0) })
            #expect(zip(result.alerts, result.alertEpisodes).allSatisfy { result.episodes[$1].classIndex == $0.classIndex })
        }
        let balanced = recording.run(defaultBundle).first { $0.profile == "balanced" }!
        #expect(balanced.episodes(of: cough, in: 79...82).count == 1)
    }

    /// The control: without the settings the snore scored as a cough is a cough episode under every profile, and the
    /// lone snore-like second a snoring episode under the most sensitive one.
    @Test func withoutTheSettingsBothMistakesAppear() {
        let results = recording.run(plainBundle)
        for result in results {
            #expect(result.episodes(of: cough, in: 10...51).count == 1, "\(result.profile)")
        }
        #expect(!results.last!.episodes(of: snoring, in: 95...110).isEmpty)
    }

    /// A snore-like sound on its own (sleep talk the classifier half took for a snore) 10.5 s before a bout is neither
    /// where the snoring began nor a snoring episode of its own: the bout's episode starts at its first snore under
    /// every profile that finds the bout.
    @Test func aLoneSnoreJustBeforeABoutIsNotWhereItBegins() throws {
        let snores = stride(from: 20.0, through: 44.0, by: 4.0).map { ($0, $0 + 1) }
        var recording = HandScoredRecording(seconds: 80, classCount: classes, loud: [(8.5, 9.5)] + snores)
        for snore in snores { recording.score(snore, snoring, 0.9) }
        recording.score((8.5, 9.5), snoring, 0.6)
        let timeline = recording.timeline(defaultBundle)
        #expect(timeline.events.contains { $0.classIndex == snoring && $0.bout == nil && $0.overlaps(8.5...9.5) },
                "the lone sound is a snoring event, outside the bout")
        for result in recording.run(defaultBundle) {
            #expect(result.episodes(of: snoring, in: 0...15).isEmpty, "\(result.profile)")
            for episode in result.episodes(of: snoring, in: 15...50) {
                #expect(abs(episode.startSeconds - 20) <= 0.05, "\(result.profile): \(episode)")
            }
        }
        #expect(recording.run(defaultBundle).first { $0.profile == "balanced" }!.episodes(of: snoring, in: 15...50).count == 1)
    }

    @Test func aClaimOfAnUnknownClassIsRefused() throws {
        var model = defaultBundle.classifier
        model.classes[snoring].events?.claims = ["coughing"]
        let data = try JSONEncoder().encode(model)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ClassifierModel.self, from: data) }
    }
}
