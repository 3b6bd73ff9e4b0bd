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

    /// Parses an ISO-8601 date-time with zone, with or without fractional seconds.
    public static func parseISO8601(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
