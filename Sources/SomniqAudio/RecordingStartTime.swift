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
        /// A date and time in the file name as recorders and phone apps write them (`20261130_231405`,
        /// `2026-11-30 23.14.05`), read as local time in the zone the analysis is given, or as UTC where it ends in `Z`.
        case localFileName = "file-name-local"
        /// The file's modification time minus its duration: when a recorder closes the file at the end.
        case modificationTime = "modification-time"
    }

    public var date: Date
    public var source: Source

    public init(date: Date, source: Source) {
        self.date = date
        self.source = source
    }

    /// Chooses the start time by the documented order: explicit, the app's file name, metadata, a date and time in the
    /// file name (read in `timeZone`), modification time.
    public static func resolve(explicit: Date?, path: String, metadataDate: Date?, durationSeconds: Double,
                               timeZone: TimeZone = .current) -> RecordingStartTime {
        if let explicit { return .init(date: explicit, source: .explicit) }
        if let date = dateFromFileName(path) { return .init(date: date, source: .fileName) }
        if let metadataDate { return .init(date: metadataDate, source: .metadata) }
        if let date = localDateFromFileName(path, timeZone: timeZone) { return .init(date: date, source: .localFileName) }
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

    /// A date and time in a file name, year first as recorders, phone apps and cameras write them: `20261130_231405`,
    /// `2026-11-30 23.14.05`, `2026-11-30_23-14`, `Recording 2026-11-30 at 23.14.05`, `live-20261130T231405Z`. Read as
    /// the local time of `timeZone` (a recorder's clock shows local time), or as UTC where the time ends in `Z`; a date
    /// without a time of day, a date or time that does not exist, or digits run on into more digits give `nil`.
    /// A local time that a change of clocks skips is read with the offset before it (02:30 as 03:30), one it repeats
    /// as its first occurrence.
    public static func localDateFromFileName(_ path: String, timeZone: TimeZone) -> Date? {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        guard let match = stem.firstMatch(of: fileNameDate) else { return nil }
        let clock = match.output.5.compactMap(\.wholeNumberValue)
        // Four digits with nothing between them are as likely a take's number as a time (`2026-11-30_0001`), unless
        // an ISO 8601 `T` says they are a time.
        guard clock.count == 6 || match.output.5.count > 4 || match.output.4 == "T" else { return nil }
        let (year, month, day) = (Int(match.output.1)!, Int(match.output.2)!, Int(match.output.3)!)
        let (hour, minute) = (clock[0] * 10 + clock[1], clock[2] * 10 + clock[3])
        let second = clock.count == 6 ? clock[4] * 10 + clock[5] : 0
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute, second)
        guard problem(withISO8601: text) == nil else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = match.output.6 == nil ? timeZone : TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    /// The calendar date in a file name, with or without a time of day (`night_2026_11_27`, `2026-11-30_0001`,
    /// `20261130_231405`), year first as `localDateFromFileName` reads it; `nil` without one, or for a day that does not
    /// exist. What a name says of a night's date where it says nothing of its time.
    public static func calendarDateInFileName(_ path: String) -> DateComponents? {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let found: (Substring, Substring, Substring)
        if let withTime = stem.firstMatch(of: fileNameDate) {
            found = (withTime.output.1, withTime.output.2, withTime.output.3)
        } else if let alone = stem.firstMatch(of: #/(?:^|[^0-9])((?:19|20)[0-9]{2})[-_.]?([0-9]{2})[-_.]?([0-9]{2})(?![0-9])/#) {
            found = (alone.output.1, alone.output.2, alone.output.3)
        } else {
            return nil
        }
        let (year, month, day) = (Int(found.0)!, Int(found.1)!, Int(found.2)!)
        guard problem(withISO8601: String(format: "%04d-%02d-%02dT12:00:00Z", year, month, day)) == nil else { return nil }
        return DateComponents(year: year, month: month, day: day)
    }

    /// The four digits run on after a name's date that `localDateFromFileName` does not read as a time, because they
    /// are as likely a take's number (`20261130_2314`: 23:14, or take 2314?), as an hour and a minute where they can be
    /// one; `nil` otherwise. What the warning of a copy's date offers as the time to give.
    public static func ambiguousClockInFileName(_ path: String) -> (digits: String, hour: Int, minute: Int)? {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        guard let match = stem.firstMatch(of: fileNameDate), match.output.5.count == 4, match.output.4 != "T",
              let hour = Int(match.output.5.prefix(2)), let minute = Int(match.output.5.suffix(2)), hour < 24, minute < 60 else {
            return nil
        }
        return (String(match.output.5), hour, minute)
    }

    /// Not after a digit: a year (19xx or 20xx), month and day, each apart by one of `-_.` or by nothing; then one of
    /// ` _T-`, " at " or nothing; then the time of day: hour and minute, and seconds if given, each pair apart by one
    /// of `-_.:` or by nothing (`h` and `m` too: `23h14m05`); then `Z` for UTC, or nothing; and no digit after.
    private static var fileNameDate: Regex<(Substring, Substring, Substring, Substring, Substring?, Substring, Substring?)> {
        #/(?:^|[^0-9])((?:19|20)[0-9]{2})[-_.]?([0-9]{2})[-_.]?([0-9]{2})([ _T-]|[ _]at[ _])?([0-9]{2}[-_.:h]?[0-9]{2}(?:[-_.:m]?[0-9]{2})?)(Z)?(?![0-9])/#
    }

    /// Parses "yyyy-mm-ddThh:mm:ss" with an optional zone or fraction; a time without a zone is read in `timeZone`, as
    /// a recorder writes its clock's local time.
    public static func parseMetadataDate(_ text: String, timeZone: TimeZone = .current) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ", with: "T")
        guard !trimmed.isEmpty else { return nil }
        if let zoned = parseISO8601(trimmed) { return zoned }
        guard let asUTC = parseISO8601(trimmed + "Z") else { return nil }
        // The same wall-clock reading in `timeZone`: the calendar's components of the UTC reading, placed in the zone.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        var local = Calendar(identifier: .gregorian)
        local.timeZone = timeZone
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: asUTC)
        return local.date(from: parts)
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
