import Foundation
import SomniqStore

/// What helped: for each tag, the nights with it against the nights without it (median snore score, snoring share and
/// snores an hour, the lowest to highest score, and whether the scores' difference could be chance), in words a person
/// reads. Nights without a night summary (no level envelope) are left out.
public struct TagComparison: Equatable, Sendable {
    /// One side of a comparison: the nights with the tag, or those without.
    public struct Side: Equatable, Sendable {
        public var nights: Int
        public var medianScore: Double?
        public var lowestScore: Double?
        public var highestScore: Double?
        public var medianShare: Double?
        public var medianSnoresPerHour: Double?

        init(_ summaries: [NightSummaryRecord]) {
            nights = summaries.count
            let scores = summaries.map(\.snoreScore).sorted()
            medianScore = Self.median(scores)
            lowestScore = scores.first
            highestScore = scores.last
            medianShare = Self.median(summaries.map(\.snoringShare).sorted())
            medianSnoresPerHour = Self.median(summaries.map(\.snoresPerHour).sorted())
        }

        static func median(_ sorted: [Double]) -> Double? {
            guard !sorted.isEmpty else { return nil }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
    }

    public struct Row: Equatable, Sendable {
        public var tag: String
        public var with: Side
        public var without: Side
        /// The rank-sum test of the two sides' snore scores; `nil` when a side has no night.
        public var test: RankSumTest.Result?
        /// Other tags whose nights fall mostly on one side (`Overlap.isEntangled`), most lopsided first.
        public var overlaps: [Overlap] = []

        /// Fewer than `minimumNights` on a side: a difference may be chance.
        public var isThin: Bool { with.nights < TagComparison.minimumNights || without.nights < TagComparison.minimumNights }

        /// "with mouthguard, 6 nights: median score 23 (18-30); without, 9 nights: 41 (30-55); unlikely to be chance
        /// alone (rank-sum test p = 0.002)", with `caution` instead of the test's verdict when a side is thin.
        public var sentence: String {
            comparison + (chance.map { "; \($0)" } ?? "") + (caution.map { " (\($0))" } ?? "") + (entanglement.map { "; \($0)" } ?? "")
        }

        /// "but side is on 3 of these 4 nights and 0 of the 6 others: the difference may come from side as much as from
        /// mouthguard", when another tag's nights fall mostly on one side and neither side is thin.
        public var entanglement: String? {
            guard !isThin, let first = overlaps.first else { return nil }
            var text = "but \(first.tag) is on \(first.withNights) of these \(with.nights) nights and \(first.withoutNights) of the "
                + "\(without.nights) others"
            for overlap in overlaps.dropFirst() {
                text += ", \(overlap.tag) on \(overlap.withNights) of \(with.nights) and \(overlap.withoutNights) of \(without.nights)"
            }
            return text + ": the difference may come from \(overlaps.count == 1 ? first.tag : "those") as much as from \(tag)"
        }

        /// What the rank-sum test says of the difference in snore scores, when neither side is thin: unlikely to be
        /// chance (p < 0.05), could be chance, or too few nights for the test to tell any difference from chance (when
        /// no split of these nights could give p < 0.05: 3 and 3 nights give 0.10 at best).
        public var chance: String? {
            guard !isThin, let test else { return nil }
            if test.smallestP >= 0.05 {
                return "\(with.nights) and \(without.nights) nights cannot tell this from chance (rank-sum test: "
                    + "p = \(TagComparison.pText(test.smallestP)) at best)"
            }
            let p = test.p < 0.001 ? "p < 0.001" : "p = " + TagComparison.pText(test.p)
            return test.p < 0.05 ? "unlikely to be chance alone (rank-sum test \(p))" : "could be chance (rank-sum test \(p))"
        }

        /// "fewer than 3 nights on a side: too few to tell what helped", when a side is thin.
        public var caution: String? {
            isThin ? "fewer than \(TagComparison.minimumNights) nights on a side: too few to tell what helped" : nil
        }

        /// The sentence without its caution.
        public var comparison: String {
            func side(_ side: Side, _ label: String, full: Bool) -> String {
                let nights = "\(side.nights) " + (side.nights == 1 ? "night" : "nights")
                guard let median = side.medianScore, let low = side.lowestScore, let high = side.highestScore else { return "\(label), no night" }
                let (lowest, highest) = (Formatting.fixed(low, 0), Formatting.fixed(high, 0))
                let range = lowest == highest ? "" : " (\(lowest)-\(highest))"
                return "\(label), \(nights): " + (full ? "median score " : "") + Formatting.fixed(median, 0) + range
            }
            return side(with, "with \(tag)", full: true) + "; " + side(without, "without", full: false)
        }
    }

    /// Another tag on the nights of a comparison: on how many of the nights with the row's tag, and of those without.
    public struct Overlap: Equatable, Sendable {
        public var tag: String
        public var withNights: Int
        public var withoutNights: Int

        /// The shares of nights with this tag on the two sides differ by `entangledShare` or more (3 of 4 nights against
        /// 0 of 6; 2 of 4 against 0 of 6): a difference between the sides may be this tag's as much as the row's. A
        /// tag on every night, or spread alike, is not.
        func isEntangled(with: Int, without: Int) -> Bool {
            guard with > 0, without > 0 else { return false }
            return abs(lopsidedness(with: with, without: without)) >= TagComparison.entangledShare
        }

        func lopsidedness(with: Int, without: Int) -> Double { Double(withNights) / Double(with) - Double(withoutNights) / Double(without) }
    }

    public static let minimumNights = 3
    /// How much more often another tag must be on one side's nights than on the other's to be said to be entangled.
    public static let entangledShare = 0.5

    /// A p-value to two significant digits ("0.25", "0.031", "0.0042").
    static func pText(_ p: Double) -> String {
        p >= 0.095 ? Formatting.fixed(p, 2) : p >= 0.0095 ? Formatting.fixed(p, 3) : Formatting.fixed(p, 4)
    }

    public var rows: [Row]
    /// Nights compared (those with a summary, and within `onlyWith` and `onlyWithout`).
    public var nights: Int
    /// The recordings those nights were heard in: more than `nights` where a night was recorded in pieces (`NightPieces`).
    public var recordings: Int
    /// The tags every night compared has, and those none has: the comparison kept to some nights (the nights without
    /// alcohol, to see what a mouthguard does apart from it).
    public var onlyWith: [String]
    public var onlyWithout: [String]
    /// The snore score over time on the nights compared, where their starts are known (`starts`).
    public var overTime: ScoreTrend?

    /// - Parameters:
    ///   - nights: each recording's summary and tags.
    ///   - onlyWith: compare only the nights with every one of these tags.
    ///   - onlyWithout: compare only the nights with none of these tags.
    ///   - starts: each recording's start (milliseconds since the epoch), by id, for the score over time.
    ///   - durations: each recording's length in seconds, by id: with `starts`, recordings that are pieces of one night
    ///     are compared as one night (`NightPieces`), dated in `timeZone`.
    public init(nights recordings: [(summary: NightSummaryRecord, tags: [String])], onlyWith: [String] = [], onlyWithout: [String] = [],
                starts: [Int64: Int64] = [:], durations: [Int64: Double] = [:], timeZone: TimeZone = .current) {
        self.onlyWith = Array(Set(onlyWith)).sorted()
        self.onlyWithout = Array(Set(onlyWithout)).sorted()
        let kept = NightPieces.nights(recordings, starts: starts, durations: durations, timeZone: timeZone).filter { night in
            onlyWith.allSatisfy(night.tags.contains) && !onlyWithout.contains(where: night.tags.contains)
        }
        self.nights = kept.count
        self.recordings = kept.map(\.recordingIDs.count).reduce(0, +)
        overTime = ScoreTrend(nights: kept.compactMap { night in
            starts[night.summary.recordingID].map { (startMilliseconds: $0, score: night.summary.snoreScore) }
        }, timeZone: timeZone)
        let tags = Set(kept.flatMap(\.tags)).subtracting(onlyWith).sorted()
        rows = tags.map { tag in
            let with = kept.filter { $0.tags.contains(tag) }, without = kept.filter { !$0.tags.contains(tag) }
            var row = Row(tag: tag, with: Side(with.map(\.summary)), without: Side(without.map(\.summary)),
                          test: RankSumTest.test(with.map(\.summary.snoreScore), without.map(\.summary.snoreScore)))
            row.overlaps = tags.filter { $0 != tag }.map { other in
                Overlap(tag: other, withNights: with.count { $0.tags.contains(other) }, withoutNights: without.count { $0.tags.contains(other) })
            }
            .filter { $0.isEntangled(with: with.count, without: without.count) }
            .sorted {
                let (a, b) = (abs($0.lopsidedness(with: with.count, without: without.count)), abs($1.lopsidedness(with: with.count, without: without.count)))
                return a != b ? a > b : $0.tag < $1.tag
            }
            return row
        }
    }

    /// The comparison of every complete night in `store` that has a summary (within `onlyWith` and `onlyWithout`).
    public init(store: AnalysisStore, onlyWith: [String] = [], onlyWithout: [String] = [], timeZone: TimeZone = .current) throws {
        let (recordings, starts, durations) = try NightPieces.stored(in: store)
        self.init(nights: recordings, onlyWith: onlyWith, onlyWithout: onlyWithout, starts: starts, durations: durations, timeZone: timeZone)
    }

    /// The score over time as a sentence, the nights dated in `timeZone`.
    public func overTimeSentence(timeZone: TimeZone = .current) -> String? {
        overTime.map { $0.sentence(from: Formatting.nightDate($0.firstMilliseconds, timeZone: timeZone),
                                   to: Formatting.nightDate($0.lastMilliseconds, timeZone: timeZone)) }
    }

    /// "12 recordings make 10 nights: a night recorded in pieces (a recorder restarted, a file split) counts once", where
    /// some were.
    public var piecesNote: String? {
        guard recordings > nights else { return nil }
        return "\(recordings) recordings make \(nights) " + (nights == 1 ? "night" : "nights")
            + ": a night recorded in pieces (a recorder restarted, a file split) counts once"
    }

    /// "the 7 nights without alcohol", "the 4 nights with side and without alcohol", or "6 nights" when every night is
    /// compared.
    public var scope: String {
        let counted = "\(nights) " + (nights == 1 ? "night" : "nights")
        var kept: [String] = []
        if !onlyWith.isEmpty { kept.append("with " + onlyWith.joined(separator: " and ")) }
        if !onlyWithout.isEmpty { kept.append("without " + onlyWithout.joined(separator: " or ")) }
        return kept.isEmpty ? counted : "the \(counted) " + kept.joined(separator: " and ")
    }
}
