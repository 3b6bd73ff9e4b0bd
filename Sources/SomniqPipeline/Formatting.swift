import Foundation

/// Number and time formatting shared by the reports, locale-free so output is the same everywhere.
public enum Formatting {
    /// `h:mm:ss.s` (or `m:ss.s` under an hour) for an offset in seconds.
    public static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let hours = tenths / 36_000, minutes = tenths / 600 % 60, secs = tenths / 10 % 60, tenth = tenths % 10
        let tail = String(format: "%02d.%d", secs, tenth)
        return hours > 0 ? String(format: "%d:%02d:", hours, minutes) + tail : String(format: "%d:", minutes) + tail
    }

    public static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}
