import Foundation

/// ISO-8601 UTC timestamps with millisecond precision, e.g. `2026-11-22T06:27:57.500Z`.
///
/// Computed by integer arithmetic on the proleptic Gregorian calendar (Howard Hinnant's
/// days-from-civil algorithm) rather than a date formatter: exact, locale-free and fast enough
/// to stamp every window of a night.
public enum UTCTimestamp {
    /// Milliseconds since 1970-01-01T00:00:00Z for `start + offsetSeconds`, rounded to the millisecond.
    public static func milliseconds(startMilliseconds: Int64, offsetSeconds: Double) -> Int64 {
        startMilliseconds + Int64((offsetSeconds * 1000).rounded())
    }

    public static func format(milliseconds: Int64) -> String {
        let millisecondsPerDay: Int64 = 86_400_000
        var days = milliseconds / millisecondsPerDay
        var remainder = milliseconds % millisecondsPerDay
        if remainder < 0 { remainder += millisecondsPerDay; days -= 1 }
        let (year, month, day) = civil(daysSinceEpoch: days)
        let hour = remainder / 3_600_000
        let minute = remainder / 60_000 % 60
        let second = remainder / 1000 % 60
        let millisecond = remainder % 1000
        guard (0...9999).contains(year) else {
            return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
                + ":" + pad(second, 2) + "." + pad(millisecond, 3) + "Z"
        }
        // One string a window: written digit by digit into its 24 bytes, no intermediate strings.
        return String(unsafeUninitializedCapacity: 24) { bytes in
            var position = 0
            func put(_ value: Int64, _ width: Int, then separator: UInt8) {
                var rest = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    bytes[position + offset] = UInt8(48 + rest % 10)
                    rest /= 10
                }
                bytes[position + width] = separator
                position += width + 1
            }
            put(year, 4, then: UInt8(ascii: "-"))
            put(month, 2, then: UInt8(ascii: "-"))
            put(day, 2, then: UInt8(ascii: "T"))
            put(hour, 2, then: UInt8(ascii: ":"))
            put(minute, 2, then: UInt8(ascii: ":"))
            put(second, 2, then: UInt8(ascii: "."))
            put(millisecond, 3, then: UInt8(ascii: "Z"))
            return position
        }
    }

    /// The same moment as the wall clock of `timeZone` shows it, with its offset: `2026-12-01T23:10:15.500+01:00`.
    public static func format(milliseconds: Int64, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        let local = format(milliseconds: milliseconds + Int64(offset) * 1000)
        let minutes = abs(offset) / 60
        return local.dropLast() + (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// Milliseconds since the epoch of a timestamp in this format (`nil` if it is not one).
    public static func parse(_ text: String) -> Int64? {
        let scalars = Array(text.utf8)
        guard scalars.count == 24, scalars[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (48...57).contains(scalars[index]) else { return nil }
                value = value * 10 + Int64(scalars[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let millisecond = number(20..<23) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
