import Foundation

/// How a dataset's labels relate to our classes, from a tab-separated file:
///
/// ```
/// # dataset label <TAB> our classes (comma-separated), empty for "nothing of ours" (silence is then right),
/// # ? for "unknown: do not score"
/// alarm	smoke_detector,siren
/// door	door_slam
/// other
/// ```
///
/// A label the file does not name maps to the class of the same name.
public struct LabelMap: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        /// Any of these classes is a correct answer (the first is the canonical one).
        case classes([String])
        /// None of our classes is present: any detection but silence is a false positive.
        case none
        /// Unknown content: left out of scoring.
        case excluded
    }

    public var entries: [String: Target]

    public init(entries: [String: Target] = [:]) { self.entries = entries }

    public func target(for label: String) -> Target { entries[label] ?? .classes([label]) }

    public static func parse(_ text: String, path: String = "<map>") throws(DCASETable.ParseError) -> LabelMap {
        var entries: [String: Target] = [:]
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines.subtracting(.init(charactersIn: "\t")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard fields.count <= 2, !fields[0].isEmpty else {
                throw .malformed(path: path, line: number + 1, reason: "expected label<TAB>classes")
            }
            let value = fields.count == 2 ? fields[1] : ""
            if value == "?" {
                entries[fields[0]] = .excluded
            } else if value.isEmpty {
                entries[fields[0]] = Target.none
            } else {
                entries[fields[0]] = .classes(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
        }
        return LabelMap(entries: entries)
    }

    public static func parse(contentsOf path: String) throws -> LabelMap {
        try parse(try String(contentsOfFile: path, encoding: .utf8), path: path)
    }
}
