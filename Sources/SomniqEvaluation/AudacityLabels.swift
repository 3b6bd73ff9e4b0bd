import Foundation

/// Audacity label tracks as exported by File ▸ Export ▸ Export Labels: `start	end	label` per line, seconds;
/// lines beginning with a backslash hold spectral selections and are skipped.
public enum AudacityLabels {
    public static func parse(_ text: String, file: String, path: String = "<labels>") throws(DCASETable.ParseError) -> [SoundEvent] {
        var events: [SoundEvent] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("\\") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, let start = Double(fields[0]), let end = Double(fields[1]), start >= 0, end >= start else {
                throw .malformed(path: path, line: number + 1, reason: "expected start<TAB>end<TAB>label in seconds (an Audacity label track)")
            }
            let label = fields.count >= 3 ? fields[2] : ""
            guard !label.isEmpty else { throw .malformed(path: path, line: number + 1, reason: "empty label") }
            events.append(SoundEvent(file: file, onset: start, offset: end, label: label))
        }
        return events
    }

    /// The events `labels` gives for `recordings`: a DCASE table, or a folder of Audacity label tracks, each named like
    /// its recording (`night.wav`'s in `night.txt`). A recording without a label file there has no labelled event; a
    /// label file that cannot be read or parsed is an error.
    public static func events(in labels: String, for recordings: [String]) throws(DCASETable.ParseError) -> [SoundEvent] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: labels, isDirectory: &isDirectory), isDirectory.boolValue else {
            return try DCASETable.parse(contentsOf: labels)
        }
        var events: [SoundEvent] = []
        for recording in recordings {
            let name = (recording as NSString).lastPathComponent
            let labelFile = (labels as NSString).appendingPathComponent((name as NSString).deletingPathExtension + ".txt")
            guard FileManager.default.fileExists(atPath: labelFile) else { continue }
            events += try parse(try DCASETable.ParseError.text(of: labelFile), file: name, path: labelFile)
        }
        return events
    }

    /// Labels as an Audacity label track, times to the microsecond as Audacity writes them.
    public static func format(_ events: [SoundEvent]) -> String {
        events.map(line).joined()
    }

    /// One label: start, end and text, tab-separated. Audacity has no escapes, so a tab or line break in the text
    /// (which would split the label or start a new one) becomes a space.
    public static func line(_ event: SoundEvent) -> String {
        let label = String(event.label.map { $0 == "\t" || $0.isNewline ? " " : $0 })
        return "\(String(format: "%.6f", event.onset))\t\(String(format: "%.6f", event.offset))\t\(label)\n"
    }
}
