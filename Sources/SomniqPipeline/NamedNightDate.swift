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
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let example = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: clock?.hour ?? 23,
                                                               minute: clock?.minute ?? 0)) else { return nil }
        // Wall-clock readings in the zone: the start to the minute, the example to the second (its milliseconds are 0).
        let start = UTCTimestamp.format(milliseconds: data.startMilliseconds, in: timeZone).prefix(16).replacingOccurrences(of: "T", with: " ")
        let exampleStart = UTCTimestamp.format(milliseconds: Int64(example.timeIntervalSince1970) * 1000, in: timeZone)
            .replacingOccurrences(of: ".000", with: "")
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
}
