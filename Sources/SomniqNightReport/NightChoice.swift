import Foundation
import SomniqPipeline

/// Recordings named by their night, as the morning report dates nights (`LocalClock.nightOf`): `2026-11-21` is every
/// recording begun from noon on the 21st to noon on the 22nd, local time, and `last` is the latest such night. A
/// person thinks of "last night" or "the night of the 21st", not of a database id.
public enum NightChoice {
    /// The recording's id and start, milliseconds since the epoch (UTC).
    public typealias Night = (id: Int64, startMilliseconds: Int64)

    /// Whether `argument` names a night: `last`, or a date `YYYY-MM-DD`.
    public static func namesANight(_ argument: String) -> Bool { argument == "last" || date(argument) != nil }

    /// The recordings of the night `argument` names among `recordings`, in the order of their starts; empty when none
    /// began that night.
    public static func recordings(of argument: String, among recordings: [Night], clock: LocalClock) -> [Int64] {
        let dated = recordings.map { (id: $0.id, start: $0.startMilliseconds, night: Formatting.nightDate($0.startMilliseconds, timeZone: clock.timeZone)) }
        let wanted = argument == "last" ? dated.max { ($0.start, $0.id) < ($1.start, $1.id) }?.night : date(argument).map { _ in argument }
        guard let wanted else { return [] }
        return dated.filter { $0.night == wanted }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map(\.id)
    }

    /// Why no recording was found for `argument`, with the nights there are: "no recording began on the night of
    /// 2026-11-21 (from noon that day to noon the next, Europe/Berlin); the nights stored run from 2026-11-18 to
    /// 2026-11-24 (5 nights)".
    public static func noneFound(_ argument: String, among recordings: [Night], clock: LocalClock) -> String {
        if argument == "last" { return "no analysed recording, so no last night" }
        let nights = Set(recordings.map { Formatting.nightDate($0.startMilliseconds, timeZone: clock.timeZone) }).sorted()
        // Foundation on Linux names UTC "GMT".
        let zone = ["GMT", "UTC"].contains(clock.timeZone.identifier) ? "UTC" : clock.timeZone.identifier
        let stored = switch nights.count {
        case 0: "no night is stored"
        case 1: "the one night stored is \(nights[0])"
        default: "the nights stored run from \(nights.first!) to \(nights.last!) (\(nights.count) nights)"
        }
        return "no recording began on the night of \(argument) (from noon that day to noon the next, \(zone)); \(stored)"
    }

    /// The date `YYYY-MM-DD` names, checked to be a day of the calendar.
    static func date(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: year, month: month, day: day)
        else { return nil }
        return (year, month, day)
    }
}
