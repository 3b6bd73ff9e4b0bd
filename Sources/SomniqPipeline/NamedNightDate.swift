import Foundation
import SomniqAudio
import SomniqStore

/// What to tell the user about a recording dated by its file's modification time whose name says another night: a
/// file named by its date alone (`night_2026_11_27.wav`) and copied off the recorder later, which copying re-dates, so
/// that the night would be stored, reported, tagged and compared as the night of the copy.
public enum NamedNightDate {
    /// The warning for `data`, its start read in `timeZone`; `nil` unless its start is the modification time's and its
    /// name holds a date whose night (`Formatting.nightDate`: a start before noon counts to the day before) it is not.
    public static func warning(_ data: RecordingData, timeZone: TimeZone) -> String? {
        guard data.startSource == RecordingStartTime.Source.modificationTime.rawValue else { return nil }
        if let both = RecordingStartTime.ambiguousDatesInFileName(data.path) { return warning(data, eitherOf: both, timeZone: timeZone) }
        guard let named = RecordingStartTime.calendarDateInFileName(data.path),
              let year = named.year, let month = named.month, let day = named.day else { return nil }
        let namedNight = nightDate(named)
        let storedNight = Formatting.nightDate(data.startMilliseconds, timeZone: timeZone)
        guard storedNight != namedNight else { return nil }
        // Four digits after the date (`20261130_2314`) may be the time: then the example gives it.
        let clock = RecordingStartTime.ambiguousClockInFileName(data.path)
        guard let exampleStart = example(year: year, month: month, day: day, hour: clock?.hour ?? 23, minute: clock?.minute ?? 0,
                                         timeZone: timeZone) else { return nil }
        // A wall-clock reading in the zone, to the minute.
        let start = wallClock(data.startMilliseconds, timeZone: timeZone)
        let said = clock.map {
            "its name says \(namedNight), then \($0.digits), which may be a time of day (\(String(format: "%02d:%02d", $0.hour, $0.minute))) "
                + "or a take's number"
        } ?? "its name says \(namedNight) but no time of day"
        return "\(said), so its start was taken from the file's modification time, "
            + "\(start) (\(timeZone.identifier)), and it is stored as the night of \(storedNight) "
            + "(copying a file re-dates it); if it was recorded the night of \(namedNight), give its start: "
            + "somniq-analyze analyze \(Formatting.shellQuoted(data.path)) --start \(exampleStart) "
            + "with the same --db (\(clock == nil ? "the time is an example" : "if that is its time"); the stored night moves "
            + "without being decoded again)"
    }

    /// The warning for a recording whose name's date reads both ways (`05-11-2026`), where the night its modification
    /// time gives is neither (a file's modification time on the night it was recorded decides it).
    static func warning(_ data: RecordingData, eitherOf named: (written: String, dayFirst: DateComponents, monthFirst: DateComponents),
                        timeZone: TimeZone) -> String? {
        let readings = [named.dayFirst, named.monthFirst]
        let nights = readings.map(nightDate)
        let storedNight = Formatting.nightDate(data.startMilliseconds, timeZone: timeZone)
        guard !nights.contains(storedNight) else { return nil }
        let starts = readings.compactMap {
            example(year: $0.year!, month: $0.month!, day: $0.day!, hour: $0.hour ?? 23, minute: $0.minute ?? 0, timeZone: timeZone)
        }
        guard starts.count == 2 else { return nil }
        let start = wallClock(data.startMilliseconds, timeZone: timeZone)
        return "its name says \(named.written), which is \(nights[0]) written day first or \(nights[1]) month first, so its start "
            + "was taken from the file's modification time, \(start) (\(timeZone.identifier)), and it is stored as the night of "
            + "\(storedNight) (copying a file re-dates it); give its start: somniq-analyze analyze \(Formatting.shellQuoted(data.path)) "
            + "--start \(starts[0]) (or --start \(starts[1])) with the same --db (\(named.dayFirst.hour == nil ? "the time is an example" : "the time from its name"); "
            + "the stored night moves without being decoded again)"
    }

    /// A name's date as a night is named, `YYYY-MM-DD`.
    static func nightDate(_ date: DateComponents) -> String {
        String(format: "%04d-%02d-%02d", date.year ?? 0, date.month ?? 0, date.day ?? 0)
    }

    /// A stored start as the zone's clock shows it, to the minute (`2026-12-02 10:00`).
    static func wallClock(_ milliseconds: Int64, timeZone: TimeZone) -> String {
        UTCTimestamp.format(milliseconds: milliseconds, in: timeZone).prefix(16).replacingOccurrences(of: "T", with: " ")
    }

    /// A start to give `--start` (ISO 8601 in `timeZone`, to the second): the time of day in the zone on that day.
    static func example(year: Int, month: Int, day: Int, hour: Int, minute: Int, timeZone: TimeZone) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)) else { return nil }
        return UTCTimestamp.format(milliseconds: Int64(date.timeIntervalSince1970) * 1000, in: timeZone).replacingOccurrences(of: ".000", with: "")
    }

    /// Where the night `night` (`YYYY-MM-DD`) was asked for and no recording began on it, the complete recordings whose
    /// names say that night but which are stored as another, their start taken from the file's modification time (named
    /// by date alone, then copied; or by a date that reads both ways, one of them that night): which they are and how to
    /// reach them, or `nil` where there are none.
    public static func misdatedHint(night: String, among recordings: [RecordingRecord], timeZone: TimeZone, db: String) -> String? {
        // The day a recording's name says, where it is `night` (one of two, for a date that reads both ways).
        func namedDay(_ path: String) -> DateComponents? {
            let said = RecordingStartTime.calendarDateInFileName(path).map { [$0] }
                ?? RecordingStartTime.ambiguousDatesInFileName(path).map { [$0.dayFirst, $0.monthFirst] } ?? []
            return said.first { nightDate($0) == night }
        }
        let misdated = recordings.filter { record in
            record.status == "complete" && record.startSource == RecordingStartTime.Source.modificationTime.rawValue
                && namedDay(record.path) != nil
        }
        guard let first = misdated.first, let named = namedDay(first.path),
              let exampleStart = example(year: named.year!, month: named.month!, day: named.day!, hour: 23, minute: 0, timeZone: timeZone)
        else { return nil }
        let storedNights = Set(misdated.compactMap { $0.startUTC.flatMap(UTCTimestamp.parse).map { Formatting.nightDate($0, timeZone: timeZone) } })
            .sorted().joined(separator: ", ")
        let which = misdated.count == 1
            ? "\(first.path) (id \(first.id)) is named for that night, but its start was taken from the file's modification time"
            : "\(misdated.count) recordings are named for that night (ids \(misdated.map { String($0.id) }.joined(separator: ", "))), but their "
                + "starts were taken from the files' modification times"
        return "\(which), which copying resets, so \(misdated.count == 1 ? "it is" : "they are") stored as the night of \(storedNights): "
            + "name \(misdated.count == 1 ? "it by its id" : "them by their ids"), or give \(misdated.count == 1 ? "it its" : "each its") start, "
            + "and the night moves without being decoded again: somniq-analyze analyze \(Formatting.shellQuoted(first.path)) --start "
            + "\(exampleStart) --db \(Formatting.shellQuoted(db)) (the time an example)"
    }
}
