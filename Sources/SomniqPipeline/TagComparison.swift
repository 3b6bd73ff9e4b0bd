import SomniqStore

/// What helped: for each tag, the nights with it against the nights without it (median snore score, snoring share and
/// snores an hour, and the lowest to highest score), in words a person reads. Nights without a night summary (no
/// level envelope) are left out.
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

        /// Fewer than `minimumNights` on a side: a difference may be chance.
        public var isThin: Bool { with.nights < TagComparison.minimumNights || without.nights < TagComparison.minimumNights }

        /// "with mouthguard, 6 nights: median score 23 (18-30); without, 9 nights: 41 (30-55)", and `caution` when a side
        /// is thin.
        public var sentence: String { comparison + (caution.map { " (\($0))" } ?? "") }

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

    public var rows: [Row]
    /// Nights compared (those with a summary).
    public var nights: Int

    /// - Parameter nights: each night's summary and tags.
    public init(nights: [(summary: NightSummaryRecord, tags: [String])]) {
        self.nights = nights.count
        let tags = Set(nights.flatMap(\.tags)).sorted()
        rows = tags.map { tag in
            Row(tag: tag, with: Side(nights.filter { $0.tags.contains(tag) }.map(\.summary)),
                without: Side(nights.filter { !$0.tags.contains(tag) }.map(\.summary)))
        }
    }

    /// The comparison of every complete night in `store` that has a summary.
    public init(store: AnalysisStore) throws {
        let summaries = try store.nightSummaries()
        let tags = try store.tagsByRecording()
        self.init(nights: summaries.keys.sorted().map { (summaries[$0]!, tags[$0] ?? []) })
    }
}
