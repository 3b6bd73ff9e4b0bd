import SomniqPipeline
import Testing

/// The one line `classify` and `analyze` print for a recording says what it mostly was without overstating it.
@Suite struct ClassificationSummaryTests {
    @Test func theHeadlineNamesTheSoundHeardMostAndTheShareOfNothing() {
        #expect(ClassificationSummary.headline(["snoring": 70, "silence": 30]) == "mostly snoring")
        #expect(ClassificationSummary.headline(["snoring": 9, "other": 79, "silence": 12])
                    == "heard most: snoring, 9% of the time (other 79%, silence 12%)")
        #expect(ClassificationSummary.headline(["silence": 60, "other": 40]) == "nothing of note")
        #expect(ClassificationSummary.headline([:]) == "nothing of note")
    }

    /// A window under the detection floor in a four-minute night is there, and is not "0%" of it.
    @Test func aShareUnderHalfAPercentIsNotZero() {
        let headline = ClassificationSummary.headline(["breathing": 48, "other": 50, "silence": 141.5, "unclassified": 0.5])
        #expect(headline == "heard most: breathing, 20% of the time (other 21%, silence 59%, unclassified <1%)")
    }
}
