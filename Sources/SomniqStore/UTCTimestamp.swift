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
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
            + ":" + pad(second, 2) + "." + pad(millisecond, 3) + "Z"
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
