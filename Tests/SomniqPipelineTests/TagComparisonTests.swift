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
        #expect(row.sentence == "with mouthguard, 6 nights: median score 24 (18-30); without, 9 nights: 41 (30-55); "
                + "unlikely to be chance alone (rank-sum test p < 0.001)")
    }

    /// Whether a difference could be chance is the rank-sum test's, and too few nights to tell are said as such.
    @Test func theDifferenceIsWeighedAgainstChance() {
        func row(_ with: [Double], _ without: [Double]) -> TagComparison.Row {
            TagComparison(nights: with.map { (night(score: $0), ["side"]) } + without.map { (night(score: $0), [String]()) }).rows[0]
        }
        let overlapping = row([12, 40, 22, 35, 8], [30, 45, 28, 50, 33, 26])
        #expect(overlapping.chance == "could be chance (rank-sum test p = 0.25)")
        #expect(overlapping.sentence.hasSuffix("; without, 6 nights: 32 (26-50); could be chance (rank-sum test p = 0.25)"))
        let apart = row([1, 2, 3], [40, 50, 60])
        #expect(apart.chance == "3 and 3 nights cannot tell this from chance (rank-sum test: p = 0.10 at best)")
        let fourAndFour = row([1, 2, 3, 4], [40, 50, 60, 70])
        #expect(fourAndFour.chance == "unlikely to be chance alone (rank-sum test p = 0.029)")
        // A thin side is cautioned, and no verdict is drawn from it.
        #expect(row([1, 2], [40, 50, 60]).chance == nil)
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
