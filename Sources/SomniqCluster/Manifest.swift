import CSV
import Foundation
import SomniqAudio
import SomniqFiles
import SomniqStore

/// The recordings of a study, listed in a file rather than found by a glob over a network filesystem: one path a line,
/// or a CSV or TSV table with a `path` column (other columns are left for the study's own use). Paths are relative to
/// the manifest's folder unless absolute; blank lines and lines starting with `#` (in a plain list) are skipped.
public struct Manifest: Sendable {
    public struct Entry: Equatable, Sendable {
        /// The path as the manifest writes it: the file's identity for sharding, the same on every machine that
        /// mounts the study in another place.
        public var identity: String
        /// Where the file is from here.
        public var path: String
        /// When the recording began, from the manifest's `start` column (ISO 8601, checked), if it has one.
        public var start: Date? = nil
        /// What was tried that night, from the manifest's `tags` column (comma-separated, checked), if it has one.
        public var tags: [String] = []
    }

    public let location: String
    public let entries: [Entry]

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(String, String)
        case noPathColumn(String, [String])
        case empty(String)
        /// A `start` cell that is no date: the file, its line, the cell and why.
        case badStart(String, Int, String, String)
        /// A `tags` cell holding a tag that cannot be one: the file, its line, the tag and why.
        case badTag(String, Int, String, String)

        public var description: String {
            switch self {
            case .unreadable(let file, let reason): "\(file): error: cannot read the manifest: \(reason)"
            case .noPathColumn(let file, let header):
                "\(file): error: the manifest's header has no 'path' column (it has: \(header.joined(separator: ", "))); "
                    + "name the column of file paths 'path', or list one path a line without a header"
            case .empty(let file): "\(file): error: the manifest lists no recording"
            case .badStart(let file, let line, let cell, let problem):
                "\(file):\(line): error: start \(cell): \(problem); or leave the cell empty for the file's own start"
            case .badTag(let file, let line, let tag, let problem):
                "\(file):\(line): error: tag \(tag.debugDescription): \(problem); separate tags with commas"
            }
        }
    }

    /// Reads the manifest at `path`; a start given without a zone is read in `timeZone`.
    public init(path: String, timeZone: TimeZone = .current) throws(Failure) {
        location = path
        let text: String
        do {
            text = try InputFile.text(path: path)
        } catch {
            throw .unreadable(path, error.reason)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        guard let firstLine = lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { throw .empty(path) }
        var listed: [String] = []
        var starts: [String: Date] = [:]
        var tags: [String: [String]] = [:]
        let delimiter: UnicodeScalar? = firstLine.contains("\t") ? "\t" : firstLine.contains(",") ? "," : nil
        let headerCells = delimiter.map { d in firstLine.split(separator: Character(d), omittingEmptySubsequences: false).map(String.init) }
        if let delimiter, let headerCells, headerCells.contains(where: { Self.isPathHeader($0) }) || Self.looksLikeHeader(headerCells) {
            do {
                let reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: false, delimiter: delimiter)
                let header = reader.headerRow ?? []
                guard let column = header.firstIndex(where: Self.isPathHeader) else { throw Failure.noPathColumn(path, header) }
                let startColumn = header.firstIndex { $0.trimmingCharacters(in: .whitespaces).lowercased() == "start" }
                let tagsColumn = header.firstIndex { $0.trimmingCharacters(in: .whitespaces).lowercased() == "tags" }
                var line = 1
                while let row = reader.next() {
                    line += 1
                    guard column < row.count else { continue }
                    let cell = row[column]
                    guard !cell.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                    listed.append(cell)
                    if let tagsColumn, tagsColumn < row.count {
                        let written = row[tagsColumn].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                        for tag in written {
                            if let problem = AnalysisStore.tagProblem(tag) { throw Failure.badTag(path, line, tag, problem) }
                        }
                        tags[cell] = written
                    }
                    if let startColumn, startColumn < row.count {
                        let written = row[startColumn].trimmingCharacters(in: .whitespaces)
                        guard !written.isEmpty else { continue }
                        if let problem = RecordingStartTime.problem(withGivenStart: written) {
                            throw Failure.badStart(path, line, written, problem)
                        }
                        starts[cell] = RecordingStartTime.parseGivenStart(written, timeZone: timeZone)
                    }
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                throw .unreadable(path, "\(error)")
            }
        } else {
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                listed.append(line)
            }
            // One column under a header: `path` is one; another name (`file`, `recording`) that is no file there is one
            // too, named as such rather than reported as a missing recording.
            if let first = listed.first, first == firstLine, Self.isPathHeader(first) {
                listed.removeFirst()
            } else if let first = listed.first, first == firstLine, Self.looksLikeHeader([first]),
                      !FileManager.default.fileExists(atPath: first.hasPrefix("/") ? first : (folder as NSString).appendingPathComponent(first)) {
                throw .noPathColumn(path, [first.trimmingCharacters(in: .whitespaces)])
            }
        }
        guard !listed.isEmpty else { throw .empty(path) }
        var seen = Set<String>()
        entries = listed.compactMap { written in
            let identity = Self.normalise(written)
            guard seen.insert(identity).inserted else { return nil }
            let resolved = written.hasPrefix("/") ? written : (folder.isEmpty ? written : (folder as NSString).appendingPathComponent(written))
            return Entry(identity: identity, path: resolved, start: starts[written], tags: tags[written] ?? [])
        }
    }

    private static func isPathHeader(_ cell: String) -> Bool {
        cell.trimmingCharacters(in: .whitespaces).lowercased() == "path"
    }

    /// A first row whose cells all look like names rather than files (no `/`, no audio extension): a header,
    /// whichever column holds the paths.
    private static func looksLikeHeader(_ cells: [String]) -> Bool {
        cells.allSatisfy { cell in !cell.contains("/") && !cell.contains(".") }
    }

    /// `./a//b.wav` as `a/b.wav`: one identity however the line was written.
    public static func normalise(_ written: String) -> String {
        let absolute = written.hasPrefix("/")
        var parts: [Substring] = []
        for part in written.split(separator: "/") where part != "." { parts.append(part) }
        return (absolute ? "/" : "") + parts.joined(separator: "/")
    }
}
