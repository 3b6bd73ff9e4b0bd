import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// Snoring is a bout, and a snore is a sound the classifier hears as snoring (`EventRhythm.boutOnly` and `onTop`, as
/// models/default sets them for snoring, from rules 0.18.0): a door slam, a dog bark or a cough at the bout's pace is
/// never one of its snores, nor its loudest. Checked on a scripted recording, with the same recording under a model
/// without the settings (and with the claims of rules 0.17.0) as the control that shows each check can fail.
@Suite struct BoutClaimTests {
    let classes = defaultBundle.classifier.classes.count
    let snoring = defaultBundle.classifier.classes.firstIndex { $0.id == "snoring" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!
    let door = defaultBundle.classifier.classes.firstIndex { $0.id == "door_slam" }!
    let dog = defaultBundle.classifier.classes.firstIndex { $0.id == "dog_bark" }!

    /// 120 s of a quiet room (−60 dBFS) with: a bout of one-second snores every 4 s from 10 s to 50 s (−20 dBFS), whose
    /// snore at 30 s is a cough (cough 0.95, snoring 0.3); a door slam at 32 s and a dog's bark at 41.5 s, louder than
    /// any snore (−8 dBFS), that the classifier half took for snoring (door 0.95 or dog 0.9, snoring 0.6); one
    /// snore-like second at 100 s, alone.
    var recording: HandScoredRecording {
        let snores = stride(from: 10.0, through: 50.0, by: 4.0).map { ($0, $0 + 1) }
        let thuds = [(32.0, 32.3), (41.5, 41.8)]
        var recording = HandScoredRecording(seconds: 120, classCount: classes, loud: snores + [(100.0, 101.0)], loudest: thuds)
        for snore in snores { recording.score(snore, snoring, snore.0 == 30 ? 0.3 : 0.9) }
        recording.score((30, 31), cough, 0.95)
        recording.score(thuds[0], door, 0.95)
        recording.score(thuds[0], snoring, 0.6)
        recording.score(thuds[1], dog, 0.9)
        recording.score(thuds[1], snoring, 0.6)
        recording.score((100, 101), snoring, 0.9)
        return recording
    }

    /// The same model without the two settings, and with the claims rules 0.17.0 gave snoring.
    var plainBundle: ModelBundle {
        alteredDefaultBundle { model in
            model.classes[snoring].events?.boutOnly = false
            model.classes[snoring].events?.onTop = false
            model.classes[snoring].events?.claims = ["cough", "door_slam"]
        }
    }

    @Test func theModelAsksForBoutsOfSoundsHeardAsSnoring() {
        let rhythm = defaultBundle.classifier.classes[snoring].events
        #expect(rhythm?.boutOnly == true && rhythm?.onTop == true && rhythm?.claims == [])
    }

    /// The bout counts its ten snores: the cough, the door and the bark are none of them, and the loudest snore is a
    /// snore's level, not the door's; the cough is a cough. Under every profile the bout is one snoring episode and the
    /// lone snore-like second none.
    @Test func aThudOrACoughInABoutIsNotASnore() {
        let timeline = recording.timeline(defaultBundle)
        let snores = timeline.events.filter { $0.classIndex == snoring && $0.bout != nil }
        #expect(snores.count == 10, "\(snores.map(\.onsetSeconds))")
        #expect(!snores.contains { $0.overlaps(30...31) || $0.overlaps(32...32.3) || $0.overlaps(41.5...41.8) })
        #expect(snores.map(\.peakDbfs).max() == -20, "the loudest snore is a snore")
        #expect(timeline.events.contains { $0.classIndex == cough && $0.overlaps(30...31) })
        for result in recording.run(defaultBundle) {
            #expect(result.episodes(of: snoring, in: 10...51).count == 1, "\(result.profile)")
            #expect(result.episodes(of: snoring, in: 95...110).isEmpty, "\(result.profile)")
            #expect(result.alertEpisodes.allSatisfy { result.episodes.indices.contains($0) })
            #expect(zip(result.alerts, result.alertEpisodes).allSatisfy { result.episodes[$1].classIndex == $0.classIndex })
        }
    }

    /// The control: with the old settings the door and the bark are snores of the bout (the door its loudest); the lone
    /// snore-like second is a snoring episode under the most sensitive profile.
    @Test func withoutTheSettingsThudsAreSnores() {
        let timeline = recording.timeline(plainBundle)
        let snores = timeline.events.filter { $0.classIndex == snoring && $0.bout != nil }
        #expect(snores.contains { $0.overlaps(32...32.3) } && snores.contains { $0.overlaps(41.5...41.8) })
        #expect(snores.map(\.peakDbfs).max() == -8)
        #expect(!recording.run(plainBundle).last!.episodes(of: snoring, in: 95...110).isEmpty)
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
