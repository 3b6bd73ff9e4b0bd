import Foundation

/// The Wilcoxon rank-sum (Mann-Whitney U) test, two-sided: could two groups of nights come from one and the same spread
/// of values, their difference the luck of which nights fell on which side?
///
/// The values are ranked together (tied values share their mean rank) and the first group's rank sum is compared with
/// every way of choosing as many of the pooled ranks. Up to `exactLimit` values in all that distribution is counted
/// exactly, ties included (the permutation distribution of the rank sum, built one value at a time); beyond it, the
/// normal approximation with the tie correction and a continuity correction of half a rank. No assumption about the
/// values' distribution, which suits snore scores (bounded, often many nights near 0).
public enum RankSumTest {
    public struct Result: Equatable, Sendable {
        /// The chance of a rank sum at least as far from its mean as the one observed, either way.
        public var p: Double
        /// The smallest `p` any split of these values into groups of these sizes can give: at 0.05 or more, the groups
        /// are too small for this test to tell any difference from chance.
        public var smallestP: Double
        /// Counted exactly (`false`: the normal approximation).
        public var exact: Bool
    }

    public static let exactLimit = 80

    /// `nil` when a group is empty. `exactUpTo`: the most values counted exactly (tests compare the two ways).
    public static func test(_ first: [Double], _ second: [Double], exactUpTo: Int = exactLimit) -> Result? {
        guard !first.isEmpty, !second.isEmpty else { return nil }
        let ranks = doubledRanks(first + second)
        let observed = ranks.prefix(first.count).reduce(0, +)
        let total = ranks.count, size = first.count
        // Twice the ranks are whole numbers, so sums and the mean compare exactly.
        let mean = size * (total + 1)
        if total > exactUpTo {
            return approximate(ranks: ranks, size: size, distance: abs(observed - mean))
        }
        let counts = rankSumCounts(ranks, size: size)
        let all = counts.reduce(0, +)
        func p(atLeast distance: Int) -> Double {
            var tail = 0.0
            for (sum, count) in counts.enumerated() where count > 0 && abs(sum - mean) >= distance { tail += count }
            return min(1, tail / all)
        }
        let farthest = counts.indices.filter { counts[$0] > 0 }.map { abs($0 - mean) }.max() ?? 0
        return Result(p: p(atLeast: abs(observed - mean)), smallestP: p(atLeast: farthest), exact: true)
    }

    /// Twice each value's rank among all of them (1-based; tied values share the mean of their ranks).
    static func doubledRanks(_ values: [Double]) -> [Int] {
        let order = values.indices.sorted { (values[$0], $0) < (values[$1], $1) }
        var ranks = [Int](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            // Ranks start + 1 ... end + 1 shared: their mean, doubled.
            for position in start...end { ranks[order[position]] = start + end + 2 }
            start = end + 1
        }
        return ranks
    }

    /// `counts[s]`: how many ways of choosing `size` of `ranks` sum to `s`.
    static func rankSumCounts(_ ranks: [Int], size: Int) -> [Double] {
        let most = ranks.reduce(0, +)
        // ways[k][s]: subsets of the ranks seen so far with k members summing to s.
        var ways = [[Double]](repeating: [Double](repeating: 0, count: most + 1), count: size + 1)
        ways[0][0] = 1
        var reach = 0
        for rank in ranks {
            reach += rank
            for members in stride(from: size, through: 1, by: -1) {
                for sum in stride(from: reach, through: rank, by: -1) where ways[members - 1][sum - rank] > 0 {
                    ways[members][sum] += ways[members - 1][sum - rank]
                }
            }
        }
        return ways[size]
    }

    private static func approximate(ranks: [Int], size: Int, distance: Int) -> Result {
        let total = Double(ranks.count), n1 = Double(size), n2 = total - n1
        var tiedCubes = 0.0
        var counts: [Int: Int] = [:]
        for rank in ranks { counts[rank, default: 0] += 1 }
        for count in counts.values where count > 1 { tiedCubes += Double(count * count * count - count) }
        // The rank sum's variance, in ranks (not doubled).
        let variance = n1 * n2 / 12 * ((total + 1) - tiedCubes / (total * (total - 1)))
        guard variance > 0 else { return Result(p: 1, smallestP: 1, exact: false) }
        func p(_ distance: Double) -> Double {
            let z = max(0, distance / 2 - 0.5) / variance.squareRoot()
            return min(1, erfc(z / 2.0.squareRoot()))
        }
        let farthest = n1 * n2 / 2  // the rank sum's largest distance from its mean, in ranks
        return Result(p: p(Double(distance)), smallestP: p(2 * farthest), exact: false)
    }
}
