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
        guard data.startSource == RecordingStartTime.Source.modificationTime.rawValue,
              let named = RecordingStartTime.calendarDateInFileName(data.path),
              let year = named.year, let month = named.month, let day = named.day else { return nil }
        let namedNight = String(format: "%04d-%02d-%02d", year, month, day)
        let storedNight = Formatting.nightDate(data.startMilliseconds, timeZone: timeZone)
        guard storedNight != namedNight else { return nil }
        // Four digits after the date (`20261130_2314`) may be the time: then the example gives it.
        let clock = RecordingStartTime.ambiguousClockInFileName(data.path)
        guard let exampleStart = example(year: year, month: month, day: day, hour: clock?.hour ?? 23, minute: clock?.minute ?? 0,
                                         timeZone: timeZone) else { return nil }
        // A wall-clock reading in the zone, to the minute.
        let start = UTCTimestamp.format(milliseconds: data.startMilliseconds, in: timeZone).prefix(16).replacingOccurrences(of: "T", with: " ")
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

    /// A start to give `--start` (ISO 8601 in `timeZone`, to the second): the time of day in the zone on that day.
    static func example(year: Int, month: Int, day: Int, hour: Int, minute: Int, timeZone: TimeZone) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)) else { return nil }
        return UTCTimestamp.format(milliseconds: Int64(date.timeIntervalSince1970) * 1000, in: timeZone).replacingOccurrences(of: ".000", with: "")
    }

    /// Where the night `night` (`YYYY-MM-DD`) was asked for and no recording began on it, the complete recordings whose
    /// names say that night but which are stored as another, their start taken from the file's modification time (named
    /// by date alone, then copied): which they are and how to reach them, or `nil` where there are none.
    public static func misdatedHint(night: String, among recordings: [RecordingRecord], timeZone: TimeZone, db: String) -> String? {
        let misdated = recordings.filter { record in
            guard record.status == "complete", record.startSource == RecordingStartTime.Source.modificationTime.rawValue,
                  let named = RecordingStartTime.calendarDateInFileName(record.path),
                  let year = named.year, let month = named.month, let day = named.day else { return false }
            return String(format: "%04d-%02d-%02d", year, month, day) == night
        }
        guard let first = misdated.first, let named = RecordingStartTime.calendarDateInFileName(first.path),
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
