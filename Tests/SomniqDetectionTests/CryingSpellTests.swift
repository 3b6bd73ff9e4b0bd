import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// Crying comes in spells of sobs (models/default gives crying_sobbing an `events` rhythm): two spells with a quiet
/// stretch between them are two crying episodes, each timed to its first and last sob, though the high tier merges
/// alerts up to a minute apart; a shorter pause within a spell does not split it. And a sob of a spell is a sob
/// (`"claims": ["cough"]`): one the classifier scored higher as a cough is no cough episode, while a cough on its own
/// is kept. The same recording under a model without the rhythm is the control that shows each check can fail.
@Suite struct CryingSpellTests {
    let classes = defaultBundle.classifier.classes.count
    let crying = defaultBundle.classifier.classes.firstIndex { $0.id == "crying_sobbing" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!

    /// Sobs of 1.5 s every 2.5 s from 10 s (with one pause of 4 s between sobs, under the rhythm's 5 s) to 26.5 s;
    /// 20 s of quiet room; sobs again from 46.5 s to 58 s, the one at 51.5 s scored as a cough (cough 0.95, crying
    /// 0.6: not on top, so a sob only as a sound of the spell that a claimed class tops); a lone 0.3 s cough at 75 s.
    let firstSpell: [(Double, Double)] = [10.0, 12.5, 15.0, 19.0, 21.5, 25.0].map { ($0, $0 + 1.5) }
    let secondSpell: [(Double, Double)] = stride(from: 46.5, through: 57.5, by: 2.5).map { ($0, $0 + 1.5) }

    var recording: HandScoredRecording {
        var recording = HandScoredRecording(seconds: 90, classCount: classes, loud: firstSpell + secondSpell + [(75.0, 75.3)])
        for sob in firstSpell + secondSpell { recording.score(sob, crying, sob.0 == 51.5 ? 0.6 : 0.95) }
        recording.score((51.5, 53), cough, 0.95)
        recording.score((75, 75.3), cough, 0.95)
        return recording
    }

    var withoutRhythm: ModelBundle {
        alteredDefaultBundle { model in model.classes[crying].events = nil }
    }

    @Test func theModelGivesCryingARhythm() throws {
        let rhythm = try #require(defaultBundle.classifier.classes[crying].events)
        #expect(rhythm.boutGapSec == 5 && !rhythm.boutOnly && rhythm.claims == ["cough"] && rhythm.onTop)
    }

    @Test func twoSpellsAreTwoEpisodesTimedToTheirSobs() throws {
        let timeline = recording.timeline(defaultBundle)
        #expect(timeline.events.filter { $0.classIndex == crying }.count == firstSpell.count + secondSpell.count,
                "every sob is one crying event")
        let results = recording.run(defaultBundle)
        for result in results {
            let episodes = result.episodes.filter { $0.classIndex == crying }
            #expect(!episodes.contains { $0.startSeconds < 40 && $0.endSeconds > 35 }, "\(result.profile): no episode spans the quiet")
            #expect(result.episodes(of: crying, in: 10...28).count <= 1, "\(result.profile): the 4 s pause does not split the first spell")
            #expect(result.episodes(of: cough, in: 45...60).isEmpty, "\(result.profile): the sob scored as a cough is a sob")
        }
        for result in results.filter({ ["balanced", "sensitive", "very-sensitive"].contains($0.profile) }) {
            #expect(result.episodes(of: crying, in: 10...28).count == 1 && result.episodes(of: crying, in: 45...60).count == 1,
                    "\(result.profile)")
        }
        let balanced = try #require(results.first { $0.profile == "balanced" })
        #expect(balanced.episodes(of: cough, in: 74...77).count == 1, "the cough on its own is kept")
        let first = try #require(balanced.episodes(of: crying, in: 10...28).first)
        let second = try #require(balanced.episodes(of: crying, in: 45...60).first)
        #expect(abs(first.startSeconds - 10) <= 0.05 && abs(first.endSeconds - 26.5) <= 0.05, "\(first)")
        #expect(abs(second.startSeconds - 46.5) <= 0.05 && abs(second.endSeconds - 58) <= 0.05, "\(second.startSeconds) \(second.endSeconds)")
    }

    @Test func withoutTheRhythmTheSpellsMergeAndTheSobIsACough() throws {
        let balanced = try #require(recording.run(withoutRhythm).first { $0.profile == "balanced" })
        let episodes = balanced.episodes.filter { $0.classIndex == crying }
        #expect(episodes.count == 1 && episodes[0].startSeconds < 35 && episodes[0].endSeconds > 40, "\(episodes)")
        #expect(balanced.episodes(of: cough, in: 45...60).count == 1)
    }
}
