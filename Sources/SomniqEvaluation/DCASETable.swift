import Foundation

/// Reads and writes DCASE event lists: tab-separated `filename	onset	offset	event_label`, times in seconds.
public enum DCASETable {
    public static let header = "filename\tonset\toffset\tevent_label"

    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case malformed(path: String, line: Int, reason: String)

        public var description: String {
            switch self {
            case .malformed(let path, let line, let reason):
                "\(path):\(line): error: \(reason); expected filename<TAB>onset<TAB>offset<TAB>event_label, times in seconds"
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
                throw .malformed(path: path, line: number + 1, reason: "\(fields.count) fields")
            }
            guard let onset = Double(fields[1]), let offset = Double(fields[2]), onset.isFinite, offset.isFinite,
                  onset >= 0, offset >= onset else {
                throw .malformed(path: path, line: number + 1, reason: "onset and offset must be seconds with 0 ≤ onset ≤ offset")
            }
            guard !fields[3].isEmpty else { throw .malformed(path: path, line: number + 1, reason: "empty event label") }
            events.append(SoundEvent(file: fields[0], onset: onset, offset: offset, label: fields[3]))
        }
        return events
    }

    public static func parse(contentsOf path: String) throws -> [SoundEvent] {
        try parse(try String(contentsOfFile: path, encoding: .utf8), path: path)
    }

    /// The table for `events`, with a header, times to the millisecond.
    public static func format(_ events: [SoundEvent]) -> String {
        header + "\n" + events.map {
            "\($0.file)\t\(String(format: "%.3f", $0.onset))\t\(String(format: "%.3f", $0.offset))\t\($0.label)\n"
        }.joined()
    }
}
