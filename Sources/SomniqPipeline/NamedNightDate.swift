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
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let example = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 23)) else { return nil }
        let start = Date(timeIntervalSince1970: Double(data.startMilliseconds) / 1000)
        return "its name says \(namedNight) but no time of day, so its start was taken from the file's modification time, "
            + "\(format(start, "yyyy-MM-dd HH:mm", timeZone)) (\(timeZone.identifier)), and it is stored as the night of \(storedNight) "
            + "(copying a file re-dates it); if it was recorded the night of \(namedNight), give its start: "
            + "somniq-analyze analyze \(Formatting.shellQuoted(data.path)) --start \(format(example, "yyyy-MM-dd'T'HH:mm:ssxxx", timeZone)) "
            + "with the same --db (the time is an example; the stored night moves without being decoded again)"
    }

    private static func format(_ date: Date, _ pattern: String, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
