import SomniqModel
import Testing

/// A whole clip's class: the class on top in the most of its loud windows, `other` competing (`TopClass.clip`), the
/// one rule `evaluate` scores clips by and `classify` reports.
@Suite struct ClipRuleTests {
    typealias Top = (label: String, confidence: Float)

    @Test func loudWindowsAreThoseWithinTenDecibelsOfTheLoudest() {
        #expect(TopClass.loudWindows(levels: [-60, -30, -35, -45]) == [false, true, true, false])
        #expect(TopClass.loudWindows(levels: [-30, -40, -40.5]) == [true, true, false], "10 dB below is still loud")
        #expect(TopClass.loudWindows(levels: [-75, -72]) == [false, true], "under -70 dBFS the loudest alone")
        #expect(TopClass.loudWindows(levels: [-120, -120]) == [true, false], "a silent clip keeps one window")
        #expect(TopClass.loudWindows(levels: []) == [])
    }

    /// A household sound heard as none of ours in most of its loud windows is none of ours, though one window of it
    /// sounded like a cough; with `other` aside (the headline's reading) the cough would win.
    @Test func otherCompetesForTheClip() {
        let tops: [Top] = [("cough", 0.8), ("other", 0.6), ("other", 0.7), ("other", 0.5)]
        let verdict = TopClass.clip(tops, levels: [-20, -22, -21, -25])
        #expect(verdict.label == "other")
        #expect(abs(verdict.confidence - 0.6) < 1e-6, "the mean over the loud windows where it is on top")
        #expect(TopClass.dominant(["cough": 0.5, "other": 1.5]) == "cough")
    }

    /// The pauses around a sound do not vote: three quiet windows of snoring lose to one loud bark.
    @Test func onlyTheLoudWindowsVote() {
        let tops: [Top] = [("snoring", 0.9), ("dog_bark", 0.7), ("snoring", 0.9), ("snoring", 0.9)]
        let verdict = TopClass.clip(tops, levels: [-45, -20, -45, -44])
        #expect(verdict.label == "dog_bark")
        #expect(verdict.confidence == 0.7)
        #expect(TopClass.clip(tops, levels: [-25, -20, -25, -24]).label == "snoring", "all loud: the most windows win")
    }

    @Test func silenceWhenNothingElseIsOnTop() {
        let tops: [Top] = [(TopClass.unclassified, 0.1), ("silence", 0.9), ("snoring", 0.9)]
        #expect(TopClass.clip(tops, levels: [-30, -31, -60]).label == "silence", "the quiet snoring window does not vote")
        #expect(TopClass.clip([], levels: []).label == "silence")
    }

    @Test func aTieGoesToTheAlphabeticallyFirstClass() {
        let tops: [Top] = [("speech", 0.8), ("laughter", 0.8)]
        #expect(TopClass.clip(tops, levels: [-20, -20]).label == "laughter")
    }
}
