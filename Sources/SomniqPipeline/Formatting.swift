import Foundation

/// Number and time formatting shared by the reports, locale-free so output is the same everywhere.
public enum Formatting {
    /// `h:mm:ss.s` (or `m:ss.s` under an hour) for an offset in seconds.
    public static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let hours = tenths / 36_000, minutes = tenths / 600 % 60, secs = tenths / 10 % 60, tenth = tenths % 10
        let tail = String(format: "%02d.%d", secs, tenth)
        return hours > 0 ? String(format: "%d:%02d:", hours, minutes) + tail : String(format: "%d:", minutes) + tail
    }

    public static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// Seconds to the tenth, rounded as `clock` rounds them (half a tenth up), so that the two never disagree:
    /// 0.35 s is "0:00.4" and "0.4", where `fixed` would print the binary value's "0.3".
    public static func tenths(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// A length of time as a person says it: "45 s" under a minute (whole seconds, "<1 s" below half of one), else
    /// minutes to the tenth, "1.3 min", where "0.0 min" would read as nothing at all. (The morning report's cards and
    /// tables round to whole minutes and hours, "4 h 05 min": `duration` in SomniqNightReport's HTML.swift.)
    public static func duration(_ seconds: Double) -> String {
        let whole = seconds.rounded()  // half a second up, as `clock` rounds
        guard whole < 60 else { return fixed(seconds / 60, 1) + " min" }
        return seconds > 0 && whole == 0 ? "<1 s" : "\(Int(whole)) s"
    }

    /// The date of the night a recording begun then belongs to, as the report dates nights (a start before noon counts
    /// to the day before), in `timeZone`: `2026-11-21`.
    public static func nightDate(_ milliseconds: Int64, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(milliseconds - 12 * 3_600_000) / 1000))
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `count` and its noun, singular for one: "1 alert", "0 alerts", "3 episodes".
    public static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// `text` as one shell word (single-quoted when it holds anything but plain path characters), for a command the
    /// user is told to run.
    public static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+=:,@".unicodeScalars.contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `text` as one line that shows what it holds: line breaks, tabs, other control characters and the bidirectional
    /// overrides that could make a name print as something else are written as escapes (`\n`, `\t`, `\u{1B}`), so a
    /// file named with a line break cannot forge a line of a report or an error.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where needsEscape(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
