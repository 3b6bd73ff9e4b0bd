import Foundation
import Testing
@testable import SomniqPipeline

/// The rank-sum test against independent references: scipy 1.17.1's `mannwhitneyu` (exact where no value is tied,
/// asymptotic with its tie and continuity corrections beyond `exactLimit`), and, where values are tied, the share of
/// all splits of the pooled values whose rank sum lies at least as far from its mean (counted by enumerating every
/// split in Python: `itertools.combinations` over `scipy.stats.rankdata`'s mid-ranks).
@Suite struct RankSumTestTests {
    func p(_ first: [Double], _ second: [Double]) -> Double { RankSumTest.test(first, second)!.p }

    @Test func withoutTiesItIsTheExactMannWhitneyTest() {
        // 5 against 6 nights that overlap: scipy 0.24675324675324672 (76 of the 462 splits, two-sided).
        let result = RankSumTest.test([12, 40, 22, 35, 8], [30, 45, 28, 50, 33, 26])!
        #expect(result.exact)
        #expect(abs(result.p - 0.24675324675324672) < 1e-12, "\(result.p)")
        // Three against three, wholly apart: the two most extreme of the 20 splits, p = 0.1, and no split gives less.
        let apart = RankSumTest.test([1, 2, 3], [4, 5, 6])!
        #expect(abs(apart.p - 0.1) < 1e-12 && abs(apart.smallestP - 0.1) < 1e-12, "\(apart)")
        // Four against four can: 2 of the 70 splits.
        #expect(abs(RankSumTest.test([1, 2, 3, 4], [5, 6, 7, 8])!.smallestP - 2.0 / 70) < 1e-12)
    }

    @Test func tiedValuesShareTheirRank() {
        // Nights without snoring score 0, often on both sides: 72 of the 462 splits lie as far out (enumerated).
        #expect(abs(p([0, 0, 0, 12, 5], [0, 20, 31, 0, 18, 25]) - 72.0 / 462) < 1e-12)
        // The example of the issue that asked for trends, one score (30) on both sides: 3 of the 5,005 splits, where
        // scipy's exact method, which ignores ties, says 0.000799.
        let with: [Double] = [23, 18, 30, 20, 25, 28], without: [Double] = [41, 30, 55, 35, 45, 50, 38, 44, 40]
        #expect(abs(p(with, without) - 3.0 / 5005) < 1e-12)
        #expect(RankSumTest.doubledRanks([5, 1, 5, 3]) == [7, 2, 7, 4])
        // Every night alike: nothing to tell apart.
        #expect(p([10, 10, 10], [10, 10, 10, 10]) == 1)
    }

    @Test func itIsTheSameWhicheverSideComesFirst() {
        let a: [Double] = [3, 9, 14, 14, 2, 27, 8], b: [Double] = [15, 14, 30, 22, 9, 19]
        #expect(abs(p(a, b) - p(b, a)) < 1e-12)
        #expect(RankSumTest.test(a, []) == nil && RankSumTest.test([], b) == nil)
    }

    @Test func manyNightsAreApproximated() {
        let first = (0..<45).map { Double($0 % 17) }
        let second = (0..<50).map { Double(($0 * 7) % 23) }
        let result = RankSumTest.test(first, second)!
        #expect(!result.exact)
        #expect(abs(result.p - 0.008161023072403295) / 0.008161023072403295 < 1e-6, "\(result.p)")
        let shifted = RankSumTest.test(first, second.map { $0 + 3 })!
        #expect(abs(shifted.p - 3.6668494772811243e-06) / 3.6668494772811243e-06 < 1e-6, "\(shifted.p)")
        #expect(shifted.smallestP < 1e-12, "95 nights can show a difference far beyond chance")
    }

    /// Where both can be had, the exact count and the approximation agree to within what a normal approximation is
    /// worth (here, 80 nights with ties).
    @Test func theExactCountAndTheApproximationMeet() {
        let first = (0..<40).map { Double(($0 * 13) % 31) }
        let second = (0..<40).map { Double(($0 * 11) % 29) + 4 }
        let exact = RankSumTest.test(first, second)!
        let approximate = RankSumTest.test(first, second, exactUpTo: 0)!
        #expect(exact.exact && !approximate.exact)
        #expect(exact.p > 0.005 && exact.p < 0.5 && abs(approximate.p - exact.p) / exact.p < 0.05, "\(exact.p) \(approximate.p)")
    }
}
