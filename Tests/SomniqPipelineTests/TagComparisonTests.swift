import SomniqDetection
import SomniqFeatures
import SomniqPipeline
import SomniqStore
import Testing

@Suite struct TagComparisonTests {
    func night(score: Double, share: Double = 0.2) -> NightSummaryRecord {
        var summary = NightSummary(durationSeconds: 3600, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
        summary.score = score
        summary.snoringSeconds = share * 3600
        return NightSummaryRecord(recordingID: 0, summary)
    }

    /// The issue's own example: medians, and the lowest to highest score, per side.
    @Test func theSentenceAPersonReads() {
        let with = [23.0, 18, 30, 20, 25, 28].map { (night(score: $0), ["mouthguard"]) }
        let without = [41.0, 30, 55, 35, 45, 50, 38, 44, 40].map { (night(score: $0), [String]()) }
        let comparison = TagComparison(nights: with + without)
        #expect(comparison.nights == 15)
        let row = comparison.rows[0]
        #expect(row.with.nights == 6 && row.with.medianScore == 24 && row.with.lowestScore == 18 && row.with.highestScore == 30)
        #expect(row.without.medianScore == 41)
        #expect(!row.isThin)
        #expect(row.sentence == "with mouthguard, 6 nights: median score 24 (18-30); without, 9 nights: 41 (30-55)")
    }

    @Test func fewerThanThreeNightsOnASideIsSaid() {
        let nights = [(night(score: 10), ["side"]), (night(score: 50), []), (night(score: 60), []), (night(score: 40), [])]
        let row = TagComparison(nights: nights).rows[0]
        #expect(row.isThin)
        #expect(row.sentence == "with side, 1 night: median score 10; without, 3 nights: 50 (40-60) "
                + "(fewer than 3 nights on a side: too few to tell what helped)")
        #expect(TagComparison(nights: [(night(score: 5), [])]).rows.isEmpty)
    }
}
