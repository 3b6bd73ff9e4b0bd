import Foundation

/// Whether the snore score went up or down over the nights, and how fast: Kendall's rank correlation (tau-b) of each
/// night's score with its date, two-sided, and the Theil-Sen slope (the median of the slopes between every two
/// nights of different dates), in points a week. Neither assumes anything of the scores' distribution, and one odd
/// night moves neither much.
///
/// A night's date is the report's (`Formatting.nightDate`: noon to noon, local time), not the minute it began: two
/// recordings of one night (two recorders, two sleepers) tie in time rather than make a slope of thousands of points a
/// week between two starts a minute apart, and a night begun at 01:00 counts to the evening before.
///
/// The p-value is computed as scipy's `kendalltau` computes it: exactly from the distribution of the number of
/// discordant pairs when no two scores tie and there are at most 33 nights (or all pairs but one agree), otherwise
/// by the normal approximation with the variance corrected for ties.
public struct ScoreTrend: Equatable, Sendable {
    public var nights: Int
    /// The first and last nights' starts, milliseconds since the epoch.
    public var firstMilliseconds: Int64
    public var lastMilliseconds: Int64
    /// Kendall's tau-b of score against time, -1 to 1.
    public var tau: Double
    /// The chance of a correlation at least this strong either way, were the scores in no order over time.
    public var p: Double
    /// The smallest `p` these many nights (and these ties) can give: at 0.05 or more, too few to tell a trend from chance.
    public var smallestP: Double
    /// The Theil-Sen slope, snore-score points a week.
    public var slopePerWeek: Double

    /// Nights with fewer than this have no trend said.
    public static let minimumNights = 3
    /// Up to this many nights without tied scores, the p-value is exact (scipy's limit).
    public static let exactLimit = 33

    /// `nil` with fewer than `minimumNights` nights, when every night scores the same, or when all are of one date.
    /// - Parameter timeZone: where the nights are dated.
    public init?(nights: [(startMilliseconds: Int64, score: Double)], timeZone: TimeZone = .current) {
        let sorted = nights.sorted { $0.startMilliseconds < $1.startMilliseconds }
        let n = sorted.count
        guard n >= Self.minimumNights else { return nil }
        let days = sorted.map { Double(Self.nightDay($0.startMilliseconds, timeZone: timeZone)) }
        let scores = sorted.map(\.score)
        var concordant = 0, discordant = 0
        var slopes: [Double] = []
        slopes.reserveCapacity(n * (n - 1) / 2)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let dx = days[j] - days[i], dy = scores[j] - scores[i]
                if dx != 0 { slopes.append(dy / dx) }
                if dx == 0 || dy == 0 { continue }
                if (dx > 0) == (dy > 0) { concordant += 1 } else { discordant += 1 }
            }
        }
        let pairs = n * (n - 1) / 2
        let xTies = Self.ties(days), yTies = Self.ties(scores)
        guard xTies.pairs < pairs, yTies.pairs < pairs, !slopes.isEmpty else { return nil }
        self.nights = n
        firstMilliseconds = sorted[0].startMilliseconds
        lastMilliseconds = sorted[n - 1].startMilliseconds
        tau = Double(concordant - discordant) / (Double(pairs - xTies.pairs).squareRoot() * Double(pairs - yTies.pairs).squareRoot())
        slopes.sort()
        let middle = slopes.count / 2
        slopePerWeek = 7 * (slopes.count % 2 == 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2)

        let tied = xTies.pairs > 0 || yTies.pairs > 0
        if !tied && (n <= Self.exactLimit || min(discordant, pairs - discordant) <= 1) {
            p = Self.exactP(n: n, discordant: discordant)
            smallestP = Self.exactP(n: n, discordant: 0)
        } else {
            // The normal approximation of concordant minus discordant pairs, its variance corrected for ties.
            let m = Double(n * (n - 1))
            let variance = (m * Double(2 * n + 5) - xTies.v1 - yTies.v1) / 18 + 2 * Double(xTies.pairs) * Double(yTies.pairs) / m
                + xTies.v0 * yTies.v0 / (9 * m * Double(n - 2))
            func twoSided(_ difference: Int) -> Double { min(1, erfc(Double(abs(difference)) / variance.squareRoot() / 2.0.squareRoot())) }
            p = twoSided(concordant - discordant)
            // The most extreme order: every pair of distinct days and distinct scores agreeing.
            smallestP = twoSided(concordant + discordant)
        }
    }

    /// The night a recording begun at `milliseconds` belongs to, as days since 1970-01-01: the day of
    /// `Formatting.nightDate` (the local date twelve hours before).
    static func nightDay(_ milliseconds: Int64, timeZone: TimeZone) -> Int64 {
        let noonBefore = milliseconds - 12 * 3_600_000
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(noonBefore) / 1000))) * 1000
        let local = noonBefore + offset
        return local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
    }

    /// Tied pairs in `values`, and the two sums of the tie groups' sizes scipy's variance takes (`t(t-1)(t-2)`,
    /// `t(t-1)(2t+5)`).
    static func ties(_ values: [Double]) -> (pairs: Int, v0: Double, v1: Double) {
        var groups: [Double: Int] = [:]
        for value in values { groups[value, default: 0] += 1 }
        var result = (pairs: 0, v0: 0.0, v1: 0.0)
        for count in groups.values where count > 1 {
            let t = Double(count)
            result.pairs += count * (count - 1) / 2
            result.v0 += t * (t - 1) * (t - 2)
            result.v1 += t * (t - 1) * (2 * t + 5)
        }
        return result
    }

    /// The two-sided exact p-value of `discordant` discordant pairs among `n` untied values: twice the chance of as few
    /// (or as many) in a random order, from the distribution of a permutation's inversions, built one value at a time
    /// and scaled as it goes.
    static func exactP(n: Int, discordant: Int) -> Double {
        let pairs = n * (n - 1) / 2
        let c = min(discordant, pairs - discordant)
        if n <= 2 || 4 * c == n * (n - 1) { return 1 }
        // counts[k]: permutations of the first j values with k inversions (k ≤ c), over j!/2.
        var counts = [Double](repeating: 0, count: c + 1)
        counts[0] = 1
        if c >= 1 { counts[1] = 1 }
        if n >= 3 {
            for j in 3...n {
                var running = 0.0
                var summed = counts
                for k in 0...c {
                    running += counts[k]
                    summed[k] = running
                }
                for k in 0...c { counts[k] = summed[k] - (k >= j ? summed[k - j] : 0) }
                for k in 0...c { counts[k] /= Double(j) }
            }
        }
        return min(1, counts.reduce(0, +))
    }

    /// "Over 14 nights (2026-11-21 to 2026-12-04) the snore score fell by about 1.2 points a week; unlikely to be chance
    /// alone (Kendall's tau -0.45, p = 0.006)", or that so few nights cannot tell a trend from chance.
    public func sentence(from first: String, to last: String) -> String {
        // The slope's sign, or where the median slope is 0 (many nights scoring 0, say) the correlation's.
        let leaning = slopePerWeek != 0 ? slopePerWeek : tau
        let direction = leaning == 0 ? "held steady" : (leaning < 0 ? "fell" : "rose")
        let rate = slopePerWeek == 0 ? "" : " by about \(Formatting.fixed(abs(slopePerWeek), abs(slopePerWeek) < 10 ? 1 : 0)) points a week"
        var text = "Over \(nights) nights (\(first) to \(last)) the snore score \(direction)\(rate)"
        let tauText = Formatting.fixed(tau, 2)
        if smallestP >= 0.05 {
            text += "; \(nights) nights cannot tell a trend from chance (Kendall's tau: p = \(TagComparison.pText(smallestP)) at best)"
        } else {
            let pText = p < 0.001 ? "p < 0.001" : "p = " + TagComparison.pText(p)
            text += p < 0.05 ? "; unlikely to be chance alone (Kendall's tau \(tauText), \(pText))"
                : "; could be chance (Kendall's tau \(tauText), \(pText))"
        }
        return text
    }
}
