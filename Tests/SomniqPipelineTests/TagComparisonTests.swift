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

    /// Ten nights: a mouthguard on four (scoring low), side-sleeping tried on three of those and on none of the others,
    /// alcohol on one of the four and two of the six others, and `home` on every night.
    var triedTogether: [(summary: NightSummaryRecord, tags: [String])] {
        let guarded: [(Double, [String])] = [(10, ["mouthguard", "side"]), (12, ["alcohol", "mouthguard", "side"]),
                                             (11, ["mouthguard", "side"]), (14, ["mouthguard"])]
        let others: [(Double, [String])] = [(40, ["alcohol"]), (42, ["alcohol"]), (45, []), (50, []), (38, []), (44, [])]
        return (guarded + others).map { (night(score: $0.0), ["home"] + $0.1) }
    }

    /// Another tag tried mostly on one side's nights is named: the difference may be its. One spread alike over both
    /// sides, or on every night, is not.
    @Test func aTagTriedOnTheSameNightsIsNamed() throws {
        let comparison = TagComparison(nights: triedTogether)
        #expect(comparison.rows.map(\.tag) == ["alcohol", "home", "mouthguard", "side"])
        let guarded = try #require(comparison.rows.first { $0.tag == "mouthguard" })
        #expect(guarded.overlaps.map(\.tag) == ["side"] && guarded.overlaps[0].withNights == 3 && guarded.overlaps[0].withoutNights == 0)
        #expect(guarded.entanglement == "but side is on 3 of these 4 nights and 0 of the 6 others: the difference may come from side as "
                + "much as from mouthguard")
        #expect(guarded.sentence == "with mouthguard, 4 nights: median score 12 (10-14); without, 6 nights: 43 (38-50); unlikely to be "
                + "chance alone (rank-sum test p = 0.010); " + (guarded.entanglement ?? "-"))
        // Side's three nights all had the mouthguard, one of the seven others did: 1 - 1/7 apart.
        let side = try #require(comparison.rows.first { $0.tag == "side" })
        #expect(side.overlaps.map(\.tag) == ["mouthguard"])
        // Alcohol on 1 of 4 and 2 of 6 (a third and a quarter), and on 1 of side's 3 and 2 of the 7 others: not named.
        #expect(comparison.rows.first { $0.tag == "alcohol" }?.overlaps.isEmpty == true)
        // `home` is on every night: its row is thin (no night without), and no row names it.
        #expect(comparison.rows.allSatisfy { !$0.overlaps.map(\.tag).contains("home") })
        #expect(comparison.rows.first { $0.tag == "home" }?.entanglement == nil)
        // Two tags entangled with one row are both named, the more lopsided first.
        let both = TagComparison(nights: triedTogether.map { night in
            (night.summary, night.tags + (night.tags.contains("mouthguard") && night.summary.snoreScore < 14 || night.summary.snoreScore == 40
                                              ? ["pillow"] : []))
        })
        #expect(both.rows.first { $0.tag == "mouthguard" }?.entanglement == "but side is on 3 of these 4 nights and 0 of the 6 others, "
                + "pillow on 3 of 4 and 1 of 6: the difference may come from those as much as from mouthguard")
    }

    /// The comparison kept to some nights: the mouthguard among the nights without side-sleeping, or with alcohol.
    @Test func theNightsComparedCanBeKeptToSome() {
        let apart = TagComparison(nights: triedTogether, onlyWithout: ["side"])
        #expect(apart.nights == 7 && apart.scope == "the 7 nights without side")
        #expect(apart.rows.map(\.tag) == ["alcohol", "home", "mouthguard"], "side is on none of them")
        #expect(apart.rows.first { $0.tag == "mouthguard" }.map { $0.with.nights == 1 && $0.without.nights == 6 && $0.isThin } == true)
        let drinking = TagComparison(nights: triedTogether, onlyWith: ["alcohol", "home"])
        #expect(drinking.nights == 3 && drinking.scope == "the 3 nights with alcohol and home")
        #expect(drinking.rows.map(\.tag) == ["mouthguard", "side"], "the tags every night compared has are no row")
        let both = TagComparison(nights: triedTogether, onlyWith: ["home"], onlyWithout: ["alcohol", "side"])
        #expect(both.nights == 5 && both.scope == "the 5 nights with home and without alcohol or side")
        #expect(TagComparison(nights: triedTogether).scope == "10 nights")
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
