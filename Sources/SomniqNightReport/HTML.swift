import Foundation

/// Text escaped for HTML (element content and quoted attribute values alike). Characters that would act rather than
/// show, in a page or in the terminal a page is `cat` to, are shown as what they are: control characters as their
/// Unicode control pictures (ESC as ␛, a tab as ␉, a line break as ␊), and the invisible marks that reorder
/// bidirectional text (U+202E, which shows `gnp.exe` as `exe.png`) as `[U+202E]`. A file or model name is never
/// rendered as anything but its characters.
func esc(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { "&<>\"'".unicodeScalars.contains($0) || isHidden($0) }) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        case _ where scalar.value < 0x20: result.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
        case _ where scalar.value == 0x7F: result += "\u{2421}"
        case _ where isHidden(scalar): result += String(format: "[U+%04X]", scalar.value)
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Control characters (C0, DEL, C1) and the bidirectional marks, embeddings, overrides and isolates.
private func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
}

/// A coordinate or a length for SVG: at most two decimals, no trailing zeros, never `-0`.
func num(_ value: Double) -> String {
    let hundredths = (value * 100).rounded()
    if hundredths == 0 { return "0" }
    var text = String(format: "%.2f", hundredths / 100)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
}

/// Times of day and dates in one time zone, without locales: the same bytes on every machine.
public struct LocalClock: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private func components(_ milliseconds: Int64) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute, .second], from: date)
    }

    /// `23:05`
    public func time(_ milliseconds: Int64) -> String {
        let parts = components(milliseconds)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `23:05:12`
    public func timeWithSeconds(_ milliseconds: Int64) -> String {
        let parts = components(milliseconds)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// `Sat 21 Nov 2026`
    public func date(_ milliseconds: Int64) -> String {
        let parts = components(milliseconds)
        return "\(Self.weekdays[((parts.weekday ?? 1) - 1) % 7]) \(parts.day ?? 0) \(Self.months[((parts.month ?? 1) - 1) % 12]) \(parts.year ?? 0)"
    }

    /// The night a recording starting then belongs to, as sleep diaries date it: the evening's date, so that a night
    /// started at 00:30 on the 22nd is the night of the 21st (a start before noon counts to the day before).
    public func nightOf(_ milliseconds: Int64) -> Int64 { milliseconds - 12 * 3600 * 1000 }

    /// `21`: the day of the month, for a chart's axis.
    public func dayOfMonth(_ milliseconds: Int64) -> String { String(components(milliseconds).day ?? 0) }

    /// `2026-11-21`
    public func isoDate(_ milliseconds: Int64) -> String {
        let parts = components(milliseconds)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The zone's name and offset at that moment: `Europe/Berlin, UTC+01:00`, or `UTC`.
    public func zone(_ milliseconds: Int64) -> String {
        let seconds = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        if seconds == 0 && (timeZone.identifier == "UTC" || timeZone.identifier == "GMT") { return "UTC" }
        let sign = seconds < 0 ? "-" : "+"
        let offset = String(format: "UTC%@%02d:%02d", sign, abs(seconds) / 3600, abs(seconds) / 60 % 60)
        return "\(timeZone.identifier), \(offset)"
    }

    /// Milliseconds of the first local time at or after `from` that is a whole multiple of `stepSeconds` of the
    /// local day (for hour ticks that fall on the clock's hours in the night's own zone).
    func firstTick(atOrAfter from: Int64, stepSeconds: Int) -> Int64 {
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(from) / 1000))) * 1000
        let step = Int64(stepSeconds) * 1000
        let local = from + offset
        let first = (local + step - 1).floorDiv(step) * step
        return first - offset
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// `4 h 05 min`, `14 min`, `42 s`
func duration(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    if total >= 3600 { return String(format: "%d h %02d min", total / 3600, total / 60 % 60) }
    if total >= 60 { return "\(Int((seconds / 60).rounded())) min" }
    return "\(total) s"
}

/// `1,234`
func grouped(_ value: Int) -> String {
    let digits = String(abs(value))
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return (value < 0 ? "-" : "") + result
}
