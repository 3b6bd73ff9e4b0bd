import Foundation
import SomniqReports

/// `somniq-analyze trends`: the comparison as a table, CSV or JSON.
extension TagComparison {
    static let columns = ["tag", "with_nights", "with_median_score", "with_lowest_score", "with_highest_score", "with_median_share",
                          "with_median_snores_per_hour", "without_nights", "without_median_score", "without_lowest_score",
                          "without_highest_score", "without_median_share", "without_median_snores_per_hour", "too_few_nights",
                          "p_value", "smallest_p_value", "entangled_tags"]

    /// What the p-values are, said under the table and in the JSON.
    static let testNote = "p: the Wilcoxon rank-sum (Mann-Whitney U) test of the snore scores with the tag against without, "
        + "two-sided, exact up to \(RankSumTest.exactLimit) nights; with many tags, about one in twenty differs at p < 0.05 by chance alone"

    /// The sentences, then a table of the figures; a line saying why there is nothing to compare otherwise.
    public func table() -> String {
        let kept = onlyWith.isEmpty && onlyWithout.isEmpty
        let trend = (piecesNote.map { $0 + ".\n" } ?? "") + (overTimeSentence().map { $0 + ".\n" } ?? "")
        guard !rows.isEmpty else {
            return trend + (kept ? "\(scope), none tagged: nothing to compare (tag nights with 'somniq-analyze tag ID --add mouthguard')\n"
                : "\(scope.prefix(1).uppercased() + scope.dropFirst()): no other tag to compare\n")
        }
        var text = kept ? "" : "Among \(scope):\n"
        text += trend
        text += rows.map { $0.sentence + "\n" }.joined() + "\n"
        var table = TextTable(headers: ["tag", "nights", "median score", "range", "snoring", "snores/h", "without", "median score",
                                        "range", "snoring", "snores/h", "p"],
                              alignments: [.left] + Array(repeating: .right, count: 11))
        func cells(_ side: Side) -> [String] {
            [String(side.nights), side.medianScore.map { Formatting.fixed($0, 1) } ?? "",
             side.lowestScore.map { l in "\(Formatting.fixed(l, 0))-\(Formatting.fixed(side.highestScore ?? l, 0))" } ?? "",
             side.medianShare.map { Formatting.fixed($0 * 100, 0) + "%" } ?? "", side.medianSnoresPerHour.map { Formatting.fixed($0, 0) } ?? ""]
        }
        for row in rows {
            let p = row.test.map { $0.p < 0.001 ? "<0.001" : Self.pText($0.p) } ?? ""
            table.append([row.tag] + cells(row.with) + cells(row.without) + [p])
        }
        text += table.render()
        text += "Snore score 0-100 (docs/guide.md); medians over nights, the range lowest to highest; snoring: share of the night.\n"
        text += Self.testNote + ".\n"
        return text
    }

    public func csv() -> String {
        CSVText.make { writer in
            writer.write(row: Self.columns)
            for row in rows {
                writer.text(row.tag)
                for side in [row.with, row.without] {
                    writer.integer(side.nights)
                    for value in [side.medianScore, side.lowestScore, side.highestScore, side.medianShare, side.medianSnoresPerHour] {
                        if let value { writer.number((value * 1000).rounded() / 1000) } else { writer.plain("") }
                    }
                }
                writer.integer(row.isThin ? 1 : 0)
                for value in [row.test?.p, row.test?.smallestP] {
                    if let value { writer.number(Self.rounded(p: value)) } else { writer.plain("") }
                }
                writer.text(row.overlaps.map(\.tag).joined(separator: ";"))
                writer.endRow()
            }
        }
    }

    struct JSONSide: Encodable {
        var nights: Int
        var medianScore, lowestScore, highestScore, medianShare, medianSnoresPerHour: Double?
    }

    struct JSONOverlap: Encodable {
        var tag: String
        var withNights, withoutNights: Int
    }

    struct JSONRow: Encodable {
        var tag: String
        var with, without: JSONSide
        var tooFewNights: Bool
        var pValue, smallestPValue: Double?
        var entangledTags: [JSONOverlap]
        var sentence: String
    }

    struct JSONTrend: Encodable {
        var nights: Int
        var firstNight, lastNight: String
        var tau, pValue, smallestPValue, slopePerWeek: Double
        var sentence: String
    }

    struct JSONComparison: Encodable {
        var nights: Int
        var recordings: Int
        var overTime: JSONTrend?
        var onlyWith, onlyWithout: [String]
        var minimumNights: Int
        var test: String
        var tags: [JSONRow]
    }

    /// A p-value to four significant digits (the tables' 0.001 would turn small ones into 0).
    static func rounded(p: Double) -> Double { Double(String(format: "%.4g", p))! }

    public func json() throws -> String {
        func side(_ side: Side) -> JSONSide {
            func round(_ value: Double?) -> Double? { value.map { ($0 * 1000).rounded() / 1000 } }
            return JSONSide(nights: side.nights, medianScore: round(side.medianScore), lowestScore: round(side.lowestScore),
                            highestScore: round(side.highestScore), medianShare: round(side.medianShare),
                            medianSnoresPerHour: round(side.medianSnoresPerHour))
        }
        let trend = overTime.map { trend in
            JSONTrend(nights: trend.nights, firstNight: Formatting.nightDate(trend.firstMilliseconds), lastNight: Formatting.nightDate(trend.lastMilliseconds),
                      tau: (trend.tau * 1000).rounded() / 1000, pValue: Self.rounded(p: trend.p), smallestPValue: Self.rounded(p: trend.smallestP),
                      slopePerWeek: (trend.slopePerWeek * 100).rounded() / 100, sentence: overTimeSentence() ?? "")
        }
        let comparison = JSONComparison(nights: nights, recordings: recordings, overTime: trend, onlyWith: onlyWith, onlyWithout: onlyWithout, minimumNights: Self.minimumNights,
                                        test: Self.testNote, tags: rows.map {
            JSONRow(tag: $0.tag, with: side($0.with), without: side($0.without), tooFewNights: $0.isThin,
                    pValue: $0.test.map { Self.rounded(p: $0.p) }, smallestPValue: $0.test.map { Self.rounded(p: $0.smallestP) },
                    entangledTags: $0.overlaps.map { JSONOverlap(tag: $0.tag, withNights: $0.withNights, withoutNights: $0.withoutNights) },
                    sentence: $0.sentence)
        })
        return try JSONOutput.encode(comparison)
    }
}
