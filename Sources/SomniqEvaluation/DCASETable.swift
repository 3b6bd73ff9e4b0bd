import Foundation
import SomniqFiles

/// Reads and writes DCASE event lists: tab-separated `filename	onset	offset	event_label`, times in seconds.
public enum DCASETable {
    public static let header = "filename\tonset\toffset\tevent_label"

    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case malformed(path: String, line: Int, reason: String)
        /// The file itself cannot be read (see `InputFileProblem`); `what` it is for ("labels", "label map").
        case unreadable(path: String, what: String, reason: String)

        public var description: String {
            switch self {
            case .malformed(let path, let line, let reason):
                "\(path):\(line): error: \(reason); expected filename<TAB>onset<TAB>offset<TAB>event_label, times in seconds"
            case .unreadable(let path, let what, let reason):
                "\(path): error: cannot read the \(what): \(reason)"
            }
        }

        /// The text of the file at `path`, or why it cannot be read.
        public static func text(of path: String, what: String = "labels") throws(ParseError) -> String {
            do {
                return try InputFile.text(path: path)
            } catch {
                throw .unreadable(path: path, what: what, reason: error.reason)
            }
        }
    }

    /// Parses a table; the header line is optional. Blank lines are skipped.
    public static func parse(_ text: String, path: String = "<labels>") throws(ParseError) -> [SoundEvent] {
        var events: [SoundEvent] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if number == 0, fields.count >= 2, Double(fields[1]) == nil { continue }  // header
            guard fields.count == 4 else {
                throw .malformed(path: path, line: number + 1, reason: fieldCountProblem(fields))
            }
            guard let onset = Double(fields[1]), let offset = Double(fields[2]), onset.isFinite, offset.isFinite,
                  onset >= 0, offset >= onset else {
                throw .malformed(path: path, line: number + 1,
                                 reason: "onset '\(fields[1])' and offset '\(fields[2])' must be seconds with 0 ≤ onset ≤ offset")
            }
            guard !fields[3].isEmpty else { throw .malformed(path: path, line: number + 1, reason: "empty event label") }
            events.append(SoundEvent(file: unescape(FormulaCells.restored(fields[0])), onset: onset, offset: offset,
                                     label: unescape(FormulaCells.restored(fields[3]))))
        }
        return events
    }

    /// What is wrong with a row of other than four tab-separated fields, with the likeliest cause: a table saved with
    /// commas, or an Audacity label track (onset, offset, label), which names no file.
    static func fieldCountProblem(_ fields: [String]) -> String {
        let count = "\(fields.count) field\(fields.count == 1 ? "" : "s")"
        if fields.count == 1, fields[0].split(separator: ",").count == 4 {
            return "\(count): its columns are separated by commas; the table is tab-separated (save it as tab-separated text)"
        }
        if fields.count == 3, Double(fields[0]) != nil, Double(fields[1]) != nil {
            return "\(count), onset, offset and label with no file name (an Audacity label track?); put the recording's "
                + "file name first"
        }
        return count
    }

    public static func parse(contentsOf path: String) throws(ParseError) -> [SoundEvent] {
        try parse(try ParseError.text(of: path), path: path)
    }

    /// The table for `events`, with a header, times to the millisecond. A tab, line break or backslash in a file name
    /// or label is written as `\t`, `\n`, `\r` or `\\` (and read back so by `parse`): one event is always one row of
    /// four columns.
    public static func format(_ events: [SoundEvent]) -> String {
        header + "\n" + events.map(line).joined()
    }

    /// One event's row. A file name or label that a spreadsheet would take for a formula is written with a leading
    /// `'` (`FormulaCells`), which `parse` takes off again.
    public static func line(_ event: SoundEvent) -> String {
        let file = FormulaCells.neutralised(escape(event.file)), label = FormulaCells.neutralised(escape(event.label))
        return "\(file)\t\(String(format: "%.3f", event.onset))\t\(String(format: "%.3f", event.offset))\t\(label)\n"
    }

    /// `text` with the characters that would break a row escaped.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\t" || $0.isNewline }) else { return text }
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\r\n": result += "\\r\\n"
            default: result.append(character.isNewline ? " " : character)
            }
        }
        return result
    }

    /// The inverse of `escape`: `\t`, `\n`, `\r` and `\\` are read back; any other backslash stays as it is.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "t": result += "\t"
                case "n": result += "\n"
                case "r": result += "\r"
                case "\\": result += "\\"
                default: result += "\\" + String(character)  // not one of ours (a Windows path): kept as written
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result += "\\" }
        return result
    }
}
