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

        /// Fewer than `minimumNights` on a side: a difference may be chance.
        public var isThin: Bool { with.nights < TagComparison.minimumNights || without.nights < TagComparison.minimumNights }

        /// "with mouthguard, 6 nights: median score 23 (18-30); without, 9 nights: 41 (30-55); unlikely to be chance
        /// alone (rank-sum test p = 0.002)", with `caution` instead of the test's verdict when a side is thin.
        public var sentence: String { comparison + (chance.map { "; \($0)" } ?? "") + (caution.map { " (\($0))" } ?? "") }

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

    public static let minimumNights = 3

    /// A p-value to two significant digits ("0.25", "0.031", "0.0042").
    static func pText(_ p: Double) -> String {
        p >= 0.095 ? Formatting.fixed(p, 2) : p >= 0.0095 ? Formatting.fixed(p, 3) : Formatting.fixed(p, 4)
    }

    public var rows: [Row]
    /// Nights compared (those with a summary).
    public var nights: Int

    /// - Parameter nights: each night's summary and tags.
    public init(nights: [(summary: NightSummaryRecord, tags: [String])]) {
        self.nights = nights.count
        let tags = Set(nights.flatMap(\.tags)).sorted()
        rows = tags.map { tag in
            let with = nights.filter { $0.tags.contains(tag) }.map(\.summary)
            let without = nights.filter { !$0.tags.contains(tag) }.map(\.summary)
            return Row(tag: tag, with: Side(with), without: Side(without),
                       test: RankSumTest.test(with.map(\.snoreScore), without.map(\.snoreScore)))
        }
    }

    /// The comparison of every complete night in `store` that has a summary.
    public init(store: AnalysisStore) throws {
        let summaries = try store.nightSummaries()
        let tags = try store.tagsByRecording()
        self.init(nights: summaries.keys.sorted().map { (summaries[$0]!, tags[$0] ?? []) })
    }
}
