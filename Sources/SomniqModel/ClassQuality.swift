import Foundation
import SomniqFiles

/// How well a model hears one class, as its report card measured it on labelled clips that the models scoring them
/// were fitted without: what a user weighs an episode of that class by. A model folder carries these in
/// `quality.tsv` (`scripts/evaluate-devset --quality`); a model fitted by a user has none until its own card is made.
public struct ClassQuality: Equatable, Sendable {
    /// Labelled clips of the class, and the sources (corpora, recorders) they come from.
    public var clips: Int
    public var sources: Int
    /// Grouped 5-fold: of the clips called this class, the share that were (`nil` when none was called it); of the
    /// clips of the class, the share called it.
    public var precision: Double?
    public var recall: Double
    /// The same with each source scored by a model fitted without it: what to expect from recordings unlike any the
    /// model learnt from.
    public var newSourcePrecision: Double?
    public var newSourceRecall: Double

    public init(clips: Int, sources: Int, precision: Double?, recall: Double, newSourcePrecision: Double?, newSourceRecall: Double) {
        self.clips = clips
        self.sources = sources
        self.precision = precision
        self.recall = recall
        self.newSourcePrecision = newSourcePrecision
        self.newSourceRecall = newSourceRecall
    }

    public static let fileName = "quality.tsv"
    static let columns = ["class", "clips", "sources", "precision", "recall", "new_source_precision", "new_source_recall"]

    /// The classes' figures in `text` (the file at `path`): lines starting `#` are comments, then a header naming
    /// `columns` in order, then a row a class; an empty precision is one never called that class.
    public static func parse(_ text: String, path: String) throws(ModelError) -> [String: ClassQuality] {
        var sawHeader = false
        var qualities: [String: ClassQuality] = [:]
        // A line ends at "\n" or "\r\n" (one Character in Swift, which a split on "\n" would not see).
        for (index, trimmed) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let cells = trimmed.split(separator: "\t", omittingEmptySubsequences: false)
            let field = "line \(index + 1)"
            guard sawHeader else {
                guard cells.map(String.init) == columns else {
                    throw .invalid(path: path, field: field, reason: "expected the header \(columns.joined(separator: " TAB "))")
                }
                sawHeader = true
                continue
            }
            guard cells.count == columns.count else {
                throw .invalid(path: path, field: field, reason: "\(cells.count) cells where the header names \(columns.count)")
            }
            func count(_ cell: Int) throws(ModelError) -> Int {
                guard let value = Int(cells[cell]), value >= 0 else {
                    throw .invalid(path: path, field: "\(field), \(columns[cell])", reason: "'\(cells[cell])' is not a count")
                }
                return value
            }
            func share(_ cell: Int, optional: Bool = false) throws(ModelError) -> Double? {
                if optional, cells[cell].isEmpty { return nil }
                guard let value = Double(cells[cell]), (0...1).contains(value) else {
                    throw .invalid(path: path, field: "\(field), \(columns[cell])", reason: "'\(cells[cell])' is not a share from 0 to 1")
                }
                return value
            }
            let name = String(cells[0])
            guard qualities[name] == nil else { throw .invalid(path: path, field: field, reason: "\(name) is listed twice") }
            qualities[name] = ClassQuality(clips: try count(1), sources: try count(2), precision: try share(3, optional: true),
                                           recall: try share(4)!, newSourcePrecision: try share(5, optional: true),
                                           newSourceRecall: try share(6)!)
        }
        guard sawHeader else { throw .invalid(path: path, field: "header", reason: "the file holds no header line") }
        return qualities
    }

    /// The figures in the model folder `folder`, or none when it has no `quality.tsv`.
    static func load(folder: String) throws(ModelError) -> [String: ClassQuality] {
        let path = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(fileName)
        guard InputFile.problem(path: path) != .notFound else { return [:] }
        let text: String
        do {
            text = try InputFile.text(path: path, maximumBytes: 1 << 20)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        return try parse(text, path: path)
    }
}
