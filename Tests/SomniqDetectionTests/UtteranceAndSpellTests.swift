import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// Sleep talk comes as utterances, cries in sobs, and coughs as spells (models/default: speech and laughter smoothed over
/// 1 s, a 1 s debounce under balanced and their own 8 s merge gap; crying smoothed and debounced so too; coughs whose
/// onsets follow within 6 s are one spell). Each check has a control: the same recording under the model without the
/// setting, to show the check can fail.
@Suite struct UtteranceAndSpellTests {
    let classes = defaultBundle.classifier.classes.count
    let speech = defaultBundle.classifier.classes.firstIndex { $0.id == "speech" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!

    /// Three things said: 2 s from 10 s; then 1.5 s from 30 s and 2.5 s from 33 s, one utterance with a breath's
    /// pause in it (1.5 s, under the 8 s gap), 18 s after the first (under the medium tier's 30 s).
    let words: [(Double, Double)] = [(10, 12), (30, 31.5), (33, 35.5)]

    var sleepTalk: HandScoredRecording {
        var recording = HandScoredRecording(seconds: 60, classCount: classes, loud: words)
        for word in words { recording.score(word, speech, 0.95) }
        return recording
    }

    @Test func twoUtterancesAreTwoEpisodesTimedToTheirWords() throws {
        let results = sleepTalk.run(defaultBundle)
        for result in results.filter({ ["balanced", "sensitive", "very-sensitive"].contains($0.profile) }) {
            let first = result.episodes(of: speech, in: 9...13), second = result.episodes(of: speech, in: 29...36)
            #expect(first.count == 1 && second.count == 1, "\(result.profile): \(result.episodes.filter { $0.classIndex == speech })")
            #expect(!result.episodes.contains { $0.classIndex == speech && $0.startSeconds < 20 && $0.endSeconds > 25 },
                    "\(result.profile): no episode spans the 18 s between the utterances")
            if let first = first.first, let second = second.first {
                #expect(abs(first.startSeconds - 10) <= 0.05 && abs(first.endSeconds - 12) <= 0.05, "\(result.profile): \(first)")
                #expect(abs(second.startSeconds - 30) <= 0.05 && abs(second.endSeconds - 35.5) <= 0.05, "\(result.profile): \(second)")
            }
        }
    }

    @Test func underTheTierAloneTheUtterancesMerge() throws {
        let tierOnly = alteredDefaultBundle { model in model.classes[speech].adjust?.mergeGapSec = nil }
        let balanced = try #require(sleepTalk.run(tierOnly).first { $0.profile == "balanced" })
        let episodes = balanced.episodes.filter { $0.classIndex == speech }
        #expect(episodes.count == 1 && episodes[0].startSeconds < 12 && episodes[0].endSeconds > 30, "\(episodes)")
    }

    /// A second and a half said, or laughed, is heard under balanced; with the medium tier's 2 s smoothing and 2 s
    /// debounce it is not (the smoothed confidence needs longer than the burst to stay over the threshold). Laughter
    /// is smoothed and debounced as speech is (rules 0.22.0): a laugh is a burst of voice of a second or a few.
    @Test(arguments: ["speech", "laughter"]) func aShortUtteranceIsHeardUnderBalanced(id: String) throws {
        let voice = try #require(defaultBundle.classifier.classes.firstIndex { $0.id == id })
        var recording = HandScoredRecording(seconds: 30, classCount: classes, loud: [(10, 11.5)])
        recording.score((10, 11.5), voice, 0.95)
        let balanced = try #require(recording.run(defaultBundle).first { $0.profile == "balanced" })
        #expect(balanced.episodes(of: voice, in: 9...13).count == 1)
        let tierOnly = alteredDefaultBundle { model in
            model.classes[voice].adjust?.windowSec = nil
            model.classes[voice].adjust?.debounceScale = nil
        }
        let tierBalanced = try #require(recording.run(tierOnly).first { $0.profile == "balanced" })
        #expect(tierBalanced.episodes(of: voice, in: 9...13).isEmpty, "the control: the tier's smoothing misses it")
    }

    /// A cry of three seconds in sobs: its windows alternate between a sob (0.95) and the breath between (0.55).
    /// Crying is smoothed over 1 s with half its tier's debounce (rules 0.23.0): under the high tier's 2 s smoothing
    /// and 2 s debounce the smoothed confidence reaches `on` 2 s into the cry and the cry is over before the debounce
    /// is, so a cry of a few seconds, as many of the development nights' are, raised nothing.
    @Test func aCryOfAFewSecondsInSobsIsHeardUnderBalanced() throws {
        let cry = try #require(defaultBundle.classifier.classes.firstIndex { $0.id == "crying_sobbing" })
        var recording = HandScoredRecording(seconds: 30, classCount: classes, loud: [(10, 13)])
        recording.score((10, 13), cry, 0.95)
        for window in 0..<recording.windows where Int((AnalysisGrid.windowStartSeconds(window) * 2).rounded()) % 2 == 1
            && recording.confidences[window * classes + cry] == 0.95 {
            recording.confidences[window * classes + cry] = 0.55
        }
        for result in recording.run(defaultBundle).filter({ ["balanced", "sensitive", "very-sensitive"].contains($0.profile) }) {
            let episodes = result.episodes(of: cry, in: 9...15)
            #expect(episodes.count == 1, "\(result.profile): \(result.episodes.filter { $0.classIndex == cry })")
            if let episode = episodes.first {
                #expect(abs(episode.startSeconds - 10) <= 0.05 && abs(episode.endSeconds - 13) <= 0.05, "\(result.profile): \(episode)")
            }
        }
        let tierOnly = alteredDefaultBundle { model in model.classes[cry].adjust = nil }
        let tierBalanced = try #require(recording.run(tierOnly).first { $0.profile == "balanced" })
        #expect(tierBalanced.episodes(of: cry, in: 9...15).isEmpty, "the control: the tier's smoothing misses it")
    }

    /// Coughs 0.4 s long every 4.5 s from 10 s to 23.9 s (one fit), and a second fit of three from 44 s, 20 s later.
    @Test func aCoughingFitIsOneEpisode() throws {
        let fits = [10.0, 14.5, 19, 23.5, 44, 48.5, 53].map { ($0, $0 + 0.4) }
        var recording = HandScoredRecording(seconds: 70, classCount: classes, loud: fits)
        for burst in fits { recording.score(burst, cough, 0.95) }
        for result in recording.run(defaultBundle).filter({ ["balanced", "sensitive", "very-sensitive"].contains($0.profile) }) {
            let first = result.episodes(of: cough, in: 9...25), second = result.episodes(of: cough, in: 43...54)
            #expect(first.count == 1 && second.count == 1, "\(result.profile): \(result.episodes.filter { $0.classIndex == cough })")
            if let first = first.first {
                #expect(abs(first.startSeconds - 10) <= 0.05 && abs(first.endSeconds - 23.9) <= 0.05, "\(result.profile): \(first)")
            }
        }
        let shortGap = alteredDefaultBundle { model in model.classes[cough].events?.boutGapSec = 3 }
        let balanced = try #require(recording.run(shortGap).first { $0.profile == "balanced" })
        #expect(balanced.episodes(of: cough, in: 9...25).count > 1, "the control: with a 3 s gap the fit falls apart")
    }
}
