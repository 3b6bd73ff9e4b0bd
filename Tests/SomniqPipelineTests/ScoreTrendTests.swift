import Foundation
import SomniqPipeline
import Testing

/// The snore score over time: Kendall's tau-b and its p-value against scipy 1.17.1's `kendalltau`, the Theil-Sen slope
/// against `theilslopes`.
@Suite struct ScoreTrendTests {
    static let base: Int64 = 1_795_302_000_000  // 2026-11-21T23:00:00Z

    static let utc = TimeZone(identifier: "UTC")!
    static let hour: Int64 = 3_600_000

    /// One night a day from `base`, scoring `scores` in turn.
    func trend(_ scores: [Double]) -> ScoreTrend? {
        ScoreTrend(nights: scores.enumerated().map { (startMilliseconds: Self.base + Int64($0.offset) * 86_400_000, score: $0.element) },
                   timeZone: Self.utc)
    }

    func close(_ a: Double, _ b: Double, relative: Double = 1e-6) -> Bool { abs(a - b) <= relative * max(abs(b), 1e-300) }

    @Test func exactWithoutTies() throws {
        let six = try #require(trend([3, 1, 4, 2, 6, 5]))
        #expect(close(six.tau, 0.4666666666666666) && close(six.p, 0.2722222222222222), "\(six)")
        #expect(close(six.slopePerWeek, 3.5))
        let falling = try #require(trend([40, 38, 41, 35, 36, 30, 33, 29, 31, 25, 27, 22, 26, 20, 24, 18, 21, 15, 17, 12]))
        #expect(close(falling.tau, -0.8526315789473685) && close(falling.p, 4.964599165690299e-10), "\(falling)")
        #expect(close(falling.slopePerWeek, -9.916666666666668))
        // The smallest p of n untied nights is that of every pair in order: 2 / n!.
        #expect(close(try #require(trend([1, 2, 3, 4])).smallestP, 2.0 / 24))
        #expect(close(try #require(trend([9, 1, 5])).smallestP, 2.0 / 6))
    }

    @Test func theNormalApproximationWithTiesOrManyNights() throws {
        let tied = try #require(trend([3, 1, 4, 4, 6, 5]))
        #expect(close(tied.tau, 0.6900655593423543) && close(tied.p, 0.05578260870684413), "\(tied)")
        let forty = try #require(trend((0..<40).map { Double(($0 * 37) % 41) - 0.3 * Double($0) }))
        #expect(close(forty.tau, -0.2435897435897436) && close(forty.p, 0.02684965929224565), "\(forty)")
        #expect(close(forty.slopePerWeek, -2.766666666666668))
        // Many nights at 0: the most extreme order of these scores (scipy on them sorted) is the smallest p.
        let zeros = try #require(trend([0, 0, 5, 0, 12, 3, 0, 20]))
        #expect(close(zeros.tau, 0.4029114820126901) && close(zeros.p, 0.1840386271964254), "\(zeros)")
        #expect(close(zeros.smallestP, 0.0034720115046738076))
    }

    /// Nights are dated as the report dates them, not timed to the minute: two recordings of one night (two sleepers)
    /// tie in time, and a night begun after midnight is the night before's date plus one. Values from scipy 1.17.1's
    /// `kendalltau` and `theilslopes` of the scores against the nights' dates (0, 0, 1, 1, ...).
    @Test func nightsAreDatedNotTimed() throws {
        // Two sleepers, four nights, the second recording of each night five minutes or less after the first.
        let offsets: [Int64] = [0, 5 * 60_000, 24 * Self.hour, 24 * Self.hour + 60_000, 48 * Self.hour, 48 * Self.hour + 4 * 60_000,
                                72 * Self.hour, 72 * Self.hour + 2 * 60_000]
        let twoSleepers = try #require(ScoreTrend(nights: zip(offsets, [10.0, 30, 12, 33, 15, 31, 18, 36]).map {
            (startMilliseconds: Self.base + $0.0, score: $0.1)
        }, timeZone: Self.utc))
        #expect(close(twoSleepers.tau, 0.3857583749052298) && close(twoSleepers.p, 0.2016429225591495), "\(twoSleepers)")
        #expect(close(twoSleepers.slopePerWeek, 18.083333333333332), "a slope between two starts minutes apart is no trend")
        // Three recordings begun seconds apart are one date: no trend to tell.
        #expect(ScoreTrend(nights: [(Self.base, 24), (Self.base + 1_000, 23), (Self.base + 2_000, 24.5)], timeZone: Self.utc) == nil)
        // 23:00, then 01:00 two calendar days later (the next night's date), then 23:30 that day: one night apart each.
        let afterMidnight = try #require(ScoreTrend(nights: [(Self.base, 10), (Self.base + 26 * Self.hour, 20),
                                                             (Self.base + 48 * Self.hour + 30 * 60_000, 30)], timeZone: Self.utc))
        #expect(afterMidnight.slopePerWeek == 70, "\(afterMidnight)")
        // The date is the local one: 23:00 UTC on 2026-11-21 is 08:00 on the 22nd in Tokyo, a morning that ends the
        // night of the 21st; 11:00 UTC the next day is 20:00 there, the night of the 22nd (in UTC still the night of
        // the 21st), and 11:00 UTC a day later the night of the 23rd (of the 22nd in UTC).
        let starts = [Self.base, Self.base + 12 * Self.hour, Self.base + 36 * Self.hour]
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let local = try #require(ScoreTrend(nights: zip(starts, [10.0, 20, 30]).map { ($0, $1) }, timeZone: tokyo))
        #expect(local.slopePerWeek == 70, "\(local)")
        let inUTC = try #require(ScoreTrend(nights: zip(starts, [10.0, 20, 30]).map { ($0, $1) }, timeZone: Self.utc))
        #expect(inUTC.slopePerWeek == 105, "dates 0, 0, 1: slopes 20 and 10 a day: \(inUTC)")
    }

    @Test func tooFewNightsOrNoChangeSayNothing() {
        #expect(trend([10, 20]) == nil)
        #expect(trend([7, 7, 7, 7]) == nil)
    }

    @Test func theSentence() throws {
        // The median slope 0 (most nights score 0), the correlation rising: said to rise, without a rate.
        let mostlyNone = try #require(trend([0, 0, 0, 0, 0, 0, 0, 0, 2, 0]))
        #expect(mostlyNone.slopePerWeek == 0 && mostlyNone.tau > 0)
        #expect(mostlyNone.sentence(from: "a", to: "b").hasPrefix("Over 10 nights (a to b) the snore score rose; "), "\(mostlyNone)")
        let falling = try #require(trend([40, 38, 41, 35, 36, 30, 33, 29, 31, 25, 27, 22, 26, 20, 24, 18, 21, 15, 17, 12]))
        #expect(falling.sentence(from: "2026-11-21", to: "2026-12-10") == "Over 20 nights (2026-11-21 to 2026-12-10) the snore score fell "
                + "by about 9.9 points a week; unlikely to be chance alone (Kendall's tau -0.85, p < 0.001)")
        #expect(try #require(trend([3, 1, 4, 2, 6, 5])).sentence(from: "a", to: "b")
                == "Over 6 nights (a to b) the snore score rose by about 3.5 points a week; could be chance (Kendall's tau 0.47, p = 0.27)")
        #expect(try #require(trend([1, 2, 3, 4])).sentence(from: "a", to: "b")
                == "Over 4 nights (a to b) the snore score rose by about 7.0 points a week; 4 nights cannot tell a trend from chance "
                + "(Kendall's tau: p = 0.083 at best)")
    }
}
