import Foundation
import SomniqStore

/// What to tell the user about a recording cut short: a file holding less audio than its header promises (a
/// recording app that crashed, a phone that died), or one whose header the recorder never finished (its sizes still
/// placeholders), analysed as far as its audio went.
public enum CutShort {
    /// The warning for `data`, or `nil` for a whole file. A file written to within `recentSeconds` before `now` may be
    /// a recording still being made, analysed by mistake mid-night: the warning then names `follow`.
    public static func warning(_ data: RecordingData, now: Date = Date()) -> String? {
        guard let declared = data.declaredFrameCount, data.sampleRate > 0 else { return nil }
        let rate = Double(data.sampleRate)
        if declared == 0 {
            return "cut short: the recorder did not finish the file (its header gives no length); analysed the "
                + "\(Formatting.clock(Double(data.frameCount) / rate)) it holds (--strict refuses such files)" + stillWritten(data, now: now)
        }
        guard declared > data.frameCount else { return nil }
        let held = Double(data.frameCount) / rate, missing = Double(declared - data.frameCount) / rate
        return "cut short: the header promises \(declared) frames (\(Formatting.clock(Double(declared) / rate))) but only "
            + "\(data.frameCount) (\(Formatting.clock(held))) could be read; analysed what is there, \(Formatting.clock(missing)) "
            + "of the promised audio is missing (--strict refuses such files)" + stillWritten(data, now: now)
    }

    /// How recently a file must have been written to for the warning to ask whether it is still being recorded.
    public static let recentSeconds = 60.0

    private static func stillWritten(_ data: RecordingData, now: Date) -> String {
        guard let modified = data.fileModified else { return "" }
        let age = now.timeIntervalSince1970 - modified
        guard age > -recentSeconds, age < recentSeconds else { return "" }
        return "; it was written to \(Formatting.duration(max(0, age))) ago: if a recorder is still making it, 'somniq-analyze follow "
            + "\(Formatting.shellQuoted(data.path))' hears it as it is made and stores the whole night when it ends"
    }
}
