import Foundation

/// How a dataset's labels relate to our classes, from a tab-separated file:
///
/// ```
/// # dataset label <TAB> our classes (comma-separated), empty for "nothing of ours" (silence is then right),
/// # ? for "unknown: do not score", ~classes for "a mixed bag that may hold these" [<TAB> file-name pattern]
/// alarm	smoke_detector,siren
/// door	door_slam
/// other
/// other	~crying_sobbing,speech	snoring-dataset__0_*
/// ```
///
/// A line with a third column (an `fnmatch` pattern on the clip's file name, without its folder) decides for the clips
/// of that label whose file name matches, before the line without one. A label the file does not name maps to the
/// class of the same name; `other` (and a line mapping a label to it) to none of ours (`noneOfOurs`).
///
/// A clip may also carry the dataset's own finer category (a manifest's `orig_label` column), which a line names after
/// a colon (`other:screaming`, `alarm:clock_alarm`). The line for the whole `label:category` decides first, then the
/// patterned lines (for the label with or without its category), then the line for the label alone. A label itself is
/// never split: an annotation's label may hold a colon.
///
/// ```
/// other:screaming	screaming
/// alarm:siren	siren
/// ```
public struct LabelMap: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        /// Any of these classes is a correct answer (the first is the canonical one).
        case classes([String])
        /// None of our classes is present: any detection but silence is a false positive.
        case none
        /// Unknown content: left out of scoring.
        case excluded
        /// A mixed bag of sounds that may hold any of these classes, which one not known clip by clip (a dataset's
        /// "everything but snoring" folder of crying, talking, doors and clocks): predicting one of them is neither
        /// right nor wrong, predicting nothing is right, predicting another class is a false positive; in a fit the
        /// clip is an example, either way, of none of these classes (and a counter-example of the others).
        case mixed([String])
    }

    /// A line that decides for the clips of `label` whose file name matches `pattern`.
    public struct PatternEntry: Equatable, Sendable {
        public var label: String
        public var pattern: String
        public var target: Target

        public init(label: String, pattern: String, target: Target) {
            self.label = label
            self.pattern = pattern
            self.target = target
        }
    }

    public var entries: [String: Target]
    /// In file order; the first that matches decides.
    public var patternEntries: [PatternEntry]

    public init(entries: [String: Target] = [:], patternEntries: [PatternEntry] = []) {
        self.entries = entries
        self.patternEntries = patternEntries
    }

    /// A label with the dataset's finer category, as the map names it and reports print it (`other:screaming`).
    public static func label(_ label: String, detail: String?) -> String { detail.map { "\(label):\($0)" } ?? label }

    /// Whether the map has a line of its own for `label` with `detail` (not only for the label alone, or the default).
    public func mapsOnItsOwn(_ label: String, detail: String?) -> Bool {
        guard let detail else { return false }
        let whole = Self.label(label, detail: detail)
        return entries[whole] != nil || patternEntries.contains { $0.label == whole }
    }

    /// The target of a clip (or event) of `label`, with the dataset's finer category `detail` where it has one; `path`,
    /// where there is one, lets a patterned line decide.
    public func target(for label: String, detail: String? = nil, path: String? = nil) -> Target {
        let whole = Self.label(label, detail: detail)
        if detail != nil, let entry = entries[whole] { return Self.resolved(entry) }
        if let path, !patternEntries.isEmpty {
            let name = (path as NSString).lastPathComponent
            if let entry = patternEntries.first(where: { ($0.label == label || $0.label == whole) && fnmatch($0.pattern, name, 0) == 0 }) {
                return Self.resolved(entry.target)
            }
        }
        return Self.resolved(entries[label] ?? .classes([label]))
    }

    /// The model's class of sounds that are none of ours (`TopClass.other`). A label that names it, or that a line maps to
    /// it, is a sound of none of our classes (`none`): silence is as right for it as `other`, one of ours is a false
    /// positive, and in a fit it is an example of `other` and a counter-example of every class. Read as a class of its
    /// own it taught `other` nothing (a user's `other/` folder, or an Audacity label "other"), and predicting silence
    /// for a stretch of a night nobody marked was counted as a miss.
    public static let noneOfOurs = "other"

    private static func resolved(_ target: Target) -> Target {
        target == .classes([noneOfOurs]) ? .none : target
    }

    public static func parse(_ text: String, path: String = "<map>") throws(DCASETable.ParseError) -> LabelMap {
        var entries: [String: Target] = [:]
        var patternEntries: [PatternEntry] = []
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines.subtracting(.init(charactersIn: "\t")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard fields.count <= 3, !fields[0].isEmpty else {
                throw .malformed(path: path, line: number + 1, reason: "expected label<TAB>classes[<TAB>file-name pattern]")
            }
            let value = fields.count >= 2 ? fields[1] : ""
            let target: Target
            if value == "?" {
                target = .excluded
            } else if value.isEmpty {
                target = .none
            } else if value.hasPrefix("~") {
                let classes = Self.classList(value.dropFirst())
                guard !classes.isEmpty else {
                    throw .malformed(path: path, line: number + 1, reason: "'~' needs the classes the mixed bag may hold")
                }
                target = .mixed(classes)
            } else {
                target = .classes(Self.classList(Substring(value)))
            }
            if fields.count == 3 {
                guard !fields[2].isEmpty else {
                    throw .malformed(path: path, line: number + 1, reason: "the third column, a file-name pattern, is empty")
                }
                patternEntries.append(PatternEntry(label: fields[0], pattern: fields[2], target: target))
            } else {
                entries[fields[0]] = target
            }
        }
        return LabelMap(entries: entries, patternEntries: patternEntries)
    }

    static func classList(_ value: Substring) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public static func parse(contentsOf path: String) throws(DCASETable.ParseError) -> LabelMap {
        try parse(try DCASETable.ParseError.text(of: path, what: "label map"), path: path)
    }
}
