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
        /// `2026-11-30 23.14.05`, `21.11.2026 23.14`), read as local time in the zone the analysis is given, or as UTC
        /// where it ends in `Z`.
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

    /// A date and time in a file name as recorders, phone apps and cameras write them: year first (`20261130_231405`,
    /// `2026-11-30 23.14.05`, `2026-11-30_23-14`, `Recording 2026-11-30 at 23.14.05`, `live-20261130T231405Z`), or day
    /// and month first with the year last where only one order gives a real day (`21-11-2026_23-14` and `21.11.2026
    /// 23.14` day first, `11-21-2026 23.14` month first; `05-11-2026` may be either, and gives `nil`: see
    /// `ambiguousDatesInFileName`). Read as the local time of `timeZone` (a recorder's clock shows local time), or as UTC
    /// where the time ends in `Z`; a date without a time of day, a date or time that does not exist, or digits run on
    /// into more digits give `nil`. A local time that a change of clocks skips is read with the offset before it (02:30
    /// as 03:30), one it repeats as its first occurrence.
    public static func localDateFromFileName(_ path: String, timeZone: TimeZone) -> Date? {
        guard let named = NamedDate(path), let day = named.day, let time = named.timeOfDay else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = named.utc ? TimeZone(identifier: "UTC")! : timeZone
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day,
                                                  hour: time.hour, minute: time.minute, second: time.second))
    }

    /// The calendar date in a file name, with or without a time of day (`night_2026_11_27`, `2026-11-30_0001`,
    /// `20261130_231405`, `21.11.2026`), as `localDateFromFileName` reads it; `nil` without one, for a day that does not
    /// exist, or for a date that reads both ways (`ambiguousDatesInFileName`). What a name says of a night's date where
    /// it says nothing of its time.
    public static func calendarDateInFileName(_ path: String) -> DateComponents? {
        NamedDate(path)?.day
    }

    /// A date in a file name written day and month first (or month and day) that is a real day either way
    /// (`05-11-2026`: 5 November, or May 11 as written in the US): as written, then day first, then month first. `nil`
    /// for a name without such a date.
    /// Each reading holds the time of day written after the date where `localDateFromFileName` would read one.
    public static func ambiguousDatesInFileName(_ path: String) -> (written: String, dayFirst: DateComponents, monthFirst: DateComponents)? {
        guard let named = NamedDate(path), named.readings.count == 2 else { return nil }
        let time = named.timeOfDay
        let readings = named.readings.map {
            DateComponents(year: $0.year, month: $0.month, day: $0.day, hour: time?.hour, minute: time?.minute, second: time?.second)
        }
        return (named.written, readings[0], readings[1])
    }

    /// The four digits run on after a name's date that `localDateFromFileName` does not read as a time, because they
    /// are as likely a take's number (`20261130_2314`: 23:14, or take 2314?), as an hour and a minute where they can be
    /// one; `nil` otherwise. What the warning of a copy's date offers as the time to give.
    public static func ambiguousClockInFileName(_ path: String) -> (digits: String, hour: Int, minute: Int)? {
        guard let named = NamedDate(path), let clock = named.clock, clock.count == 4, named.beforeClock != "T",
              let hour = Int(clock.prefix(2)), let minute = Int(clock.suffix(2)), hour < 24, minute < 60 else {
            return nil
        }
        return (String(clock), hour, minute)
    }

    /// The date a file name holds, as written, the real days it can be (one; two for a day-and-month-first date that
    /// reads both ways; none for a day that does not exist), and the time of day written after it.
    private struct NamedDate {
        var written: String
        var readings: [DateComponents]
        /// The time of day's digits and separators, what stands between the date and them, and whether a `Z` follows.
        var clock: Substring?
        var beforeClock: Substring?
        var utc: Bool

        /// The one day the date can be.
        var day: DateComponents? { readings.count == 1 ? readings[0] : nil }

        /// The time of day after the date. Four digits with nothing between them are as likely a take's number as a
        /// time (`2026-11-30_0001`), unless an ISO 8601 `T` says they are a time; `nil` for those, for a time that
        /// does not exist (`24-14-05`), and where none is written.
        var timeOfDay: (hour: Int, minute: Int, second: Int)? {
            guard let clock else { return nil }
            let digits = clock.compactMap(\.wholeNumberValue)
            guard digits.count == 6 || clock.count > 4 || beforeClock == "T" else { return nil }
            let time = (hour: digits[0] * 10 + digits[1], minute: digits[2] * 10 + digits[3], second: digits.count == 6 ? digits[4] * 10 + digits[5] : 0)
            guard time.hour < 24, time.minute < 60, time.second < 60 else { return nil }
            return time
        }

        /// The first date in the name that a time of day follows, or else its first date: year first, then year last.
        init?(_ path: String) {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let dates = stem.matches(of: RecordingStartTime.yearFirst).map(Self.init(yearFirst:))
                + stem.matches(of: RecordingStartTime.yearLast).compactMap(Self.init(yearLast:))
            guard let first = dates.first(where: { $0.clock != nil }) ?? dates.first else { return nil }
            self = first
        }

        private init(yearFirst match: Regex<YearFirst>.Match) {
            let (year, month, day) = (Int(match.output.1)!, Int(match.output.2)!, Int(match.output.3)!)
            self.init(written: [match.output.1, match.output.2, match.output.3].joined(separator: "-"),
                      readings: [DateComponents(year: year, month: month, day: day)],
                      clock: match.output.5, beforeClock: match.output.4, utc: match.output.6 != nil)
        }

        /// `nil` where the two separators differ (`21-11.2026`).
        private init?(yearLast match: Regex<YearLast>.Match) {
            guard match.output.2 == match.output.4 else { return nil }
            let (first, second, year) = (Int(match.output.1)!, Int(match.output.3)!, Int(match.output.5)!)
            var readings = [DateComponents(year: year, month: second, day: first)]
            if first != second { readings.append(DateComponents(year: year, month: first, day: second)) }
            let written = [match.output.1, match.output.2, match.output.3, match.output.4, match.output.5].joined()
            self.init(written: written, readings: readings, clock: match.output.7, beforeClock: match.output.6, utc: match.output.8 != nil)
        }

        private init(written: String, readings: [DateComponents], clock: Substring?, beforeClock: Substring?, utc: Bool) {
            self.written = written
            self.readings = readings.filter {
                RecordingStartTime.problem(withISO8601: String(format: "%04d-%02d-%02dT12:00:00Z", $0.year!, $0.month!, $0.day!)) == nil
            }
            (self.clock, self.beforeClock, self.utc) = (clock, beforeClock, utc)
        }
    }

    private typealias YearFirst = (Substring, Substring, Substring, Substring, Substring?, Substring?, Substring?)
    private typealias YearLast = (Substring, Substring, Substring, Substring, Substring, Substring, Substring?, Substring?, Substring?)

    /// Not after a digit: a year (19xx or 20xx), month and day, each apart by one of `-_.` or by nothing; then, if
    /// given, one of ` _T-`, " at " or nothing, and the time of day: hour and minute, and seconds if given, each pair
    /// apart by one of `-_.:` or by nothing (`h` and `m` too: `23h14m05`), then `Z` for UTC or nothing; and no digit
    /// after.
    private static var yearFirst: Regex<YearFirst> {
        #/(?:^|[^0-9])((?:19|20)[0-9]{2})[-_.]?([0-9]{2})[-_.]?([0-9]{2})(?:([ _T-]|[ _]at[ _])?([0-9]{2}[-_.:h]?[0-9]{2}(?:[-_.:m]?[0-9]{2})?)(Z)?)?(?![0-9])/#
    }

    /// Not after a digit: two pairs of digits (day and month, in either order) and a year (19xx or 20xx), apart by one
    /// of `-_.`, the same both times; then, if given, a time of day as `yearFirst` reads it; and no digit after.
    private static var yearLast: Regex<YearLast> {
        #/(?:^|[^0-9])([0-9]{2})([-_.])([0-9]{2})([-_.])((?:19|20)[0-9]{2})(?:([ _T-]|[ _]at[ _])?([0-9]{2}[-_.:h]?[0-9]{2}(?:[-_.:m]?[0-9]{2})?)(Z)?)?(?![0-9])/#
    }

    /// A start as a person gives it (`--start`, a manifest's `start` column): a date, `T` or a space, and a time of day
    /// to the minute or the second (`2026-11-21T23:14`, `2026-11-21 23:14:05.5`), then a zone (`Z`, `+01:00`, `+0100`,
    /// `+01`) or none, when it is read in `timeZone` as a date in a file name is. `nil` for anything else or a moment
    /// that does not exist (`problem(withGivenStart:)` says why).
    public static func parseGivenStart(_ text: String, timeZone: TimeZone) -> Date? {
        guard let (written, zoned) = canonicalGivenStart(text), problem(withISO8601: zoned ? written : written + "Z") == nil else { return nil }
        return zoned ? parseISO8601(written) : parseMetadataDate(written, timeZone: timeZone)
    }

    /// What is wrong with `text` as a start `parseGivenStart` reads; `nil` when it is a real moment.
    public static func problem(withGivenStart text: String) -> String? {
        guard let (written, zoned) = canonicalGivenStart(text) else {
            return "not a date and time: give it as 2026-11-21T23:14 (read in --timezone's zone, by default $TZ's) or with its "
                + "zone, 2026-11-21T23:14:05+01:00 or 2026-11-21T22:14:05Z"
        }
        return problem(withISO8601: zoned ? written : written + "Z")
    }

    /// `text` written as `yyyy-mm-ddThh:mm:ss[.f](Z|±hh:mm)`, the zone left off where none is given, and whether one is.
    private static func canonicalGivenStart(_ text: String) -> (String, zoned: Bool)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let match = trimmed.wholeMatch(of: #/([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2})(:[0-9]{2}(?:\.[0-9]{1,9})?)?(Z|([+-][0-9]{2}):?([0-9]{2})?)?/#) else {
            return nil
        }
        let zone = match.output.4.map { $0 == "Z" ? "Z" : "\(match.output.5!):\(match.output.6 ?? "00")" } ?? ""
        return (match.output.1 + "T" + match.output.2 + (match.output.3 ?? ":00") + zone, match.output.4 != nil)
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
