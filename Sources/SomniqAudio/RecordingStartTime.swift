import Foundation

/// When a recording began, and how we know.
public struct RecordingStartTime: Equatable, Sendable {
    /// Where the start time came from, most trusted first.
    public enum Source: String, Sendable, CaseIterable {
        /// `--start` on the command line.
        case explicit
        /// A file name `sleep_recording_<unix-seconds>.caf|wav`, as the SomniQ app names its recordings.
        case fileName = "file-name"
        /// Broadcast-WAV origination or a date string in the file.
        case metadata
        /// The file's modification time minus its duration: when a recorder closes the file at the end.
        case modificationTime = "modification-time"
    }

    public var date: Date
    public var source: Source

    public init(date: Date, source: Source) {
        self.date = date
        self.source = source
    }

    /// Chooses the start time by the documented order: explicit, file name, metadata, modification time.
    public static func resolve(explicit: Date?, path: String, metadataDate: Date?, durationSeconds: Double) -> RecordingStartTime {
        if let explicit { return .init(date: explicit, source: .explicit) }
        if let date = dateFromFileName(path) { return .init(date: date, source: .fileName) }
        if let metadataDate { return .init(date: metadataDate, source: .metadata) }
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            ?? Date(timeIntervalSince1970: 0)
        // Whole milliseconds, so that a timestamp written to the database reads back the same.
        let start = (modified.timeIntervalSince1970 - durationSeconds) * 1000
        return .init(date: Date(timeIntervalSince1970: start.rounded() / 1000), source: .modificationTime)
    }

    /// Parses `sleep_recording_<unix-seconds>[.fraction].caf|wav` (any case of extension).
    public static func dateFromFileName(_ path: String) -> Date? {
        let name = (path as NSString).lastPathComponent
        let prefix = "sleep_recording_"
        guard name.hasPrefix(prefix) else { return nil }
        let stem = (String(name.dropFirst(prefix.count)) as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension.lowercased()
        guard ext == "caf" || ext == "wav", !stem.isEmpty,
              stem.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let seconds = Double(stem), seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Parses "yyyy-mm-ddThh:mm:ss" with an optional zone or fraction; a time without zone is UTC.
    public static func parseMetadataDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ", with: "T")
        guard !trimmed.isEmpty else { return nil }
        return parseISO8601(trimmed) ?? parseISO8601(trimmed + "Z")
    }

    /// Parses an ISO-8601 date-time with zone, with or without fractional seconds; `nil` for an impossible one
    /// (`problem(withISO8601:)`).
    public static func parseISO8601(_ text: String) -> Date? {
        guard problem(withISO8601: text) == nil else { return nil }
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// What is wrong with `text` as a recording's start, `yyyy-mm-ddThh:mm:ss[.fff](Z|±hh:mm)`: not of that form, or a
    /// date or time that does not exist (February 30, hour 24, a zone beyond ±14:00, a year before 1900 or after 9999,
    /// which the formatter would quietly roll over or misprint); `nil` when it is a real moment.
    public static func problem(withISO8601 text: String) -> String? {
        let pattern = #"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?(Z|([+-])([0-9]{2}):([0-9]{2}))$"#
        guard let match = text.wholeMatch(of: try! Regex(pattern)) else {
            return "not an ISO 8601 date-time with a zone, e.g. 2026-11-21T23:14:05Z or 2026-11-21T23:14:05+01:00"
        }
        func number(_ index: Int) -> Int { match.output[index].substring.flatMap { Int($0) } ?? 0 }
        let (year, month, day, hour, minute, second) = (number(1), number(2), number(3), number(4), number(5), number(6))
        guard (1900...9999).contains(year) else { return "the year \(year) is not one a recording was made in (1900-9999)" }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return "month \(month) of \(year) has \(days) days, not \(day)" }
        guard hour <= 23, minute <= 59, second <= 59 else { return "\(hour):\(minute):\(second) is not a time of day" }
        if match.output[8].substring != "Z" {
            let (offsetHours, offsetMinutes) = (number(10), number(11))
            guard offsetHours * 60 + offsetMinutes <= 14 * 60, offsetMinutes <= 59 else {
                return "the offset \(match.output[8].substring ?? "") is beyond any time zone (-12:00 to +14:00)"
            }
        }
        return nil
    }
}
