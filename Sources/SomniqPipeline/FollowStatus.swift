import Foundation
import SomniqFeatures

/// The line `follow` keeps current on a terminal, so that a night followed for hours shows that it is alive and
/// hearing: how much audio has been heard and stored, how loud the last second was (a muted microphone reads as no
/// signal), and the alerts raised.
///
///     heard 2:13:05.0, the last second at -52 dBFS; stored to 2:12:30.0; 4 alerts, the last snoring at +1:12:33.0
public struct FollowStatus: Sendable {
    public var heardSeconds: Double
    public var storedSeconds: Double
    /// The power mean of the last second's 10 ms levels, dBFS; `nil` before a second has been heard.
    public var lastSecondDbfs: Float?
    public var alerts: Int
    /// The class and offset of the last alert raised.
    public var lastAlert: (classID: String, offsetSeconds: Double)?

    public init(heardSeconds: Double, storedSeconds: Double, lastSecondDbfs: Float?, alerts: Int,
                lastAlert: (classID: String, offsetSeconds: Double)?) {
        self.heardSeconds = heardSeconds
        self.storedSeconds = storedSeconds
        self.lastSecondDbfs = lastSecondDbfs
        self.alerts = alerts
        self.lastAlert = lastAlert
    }

    /// The level below which a second is said to hold no signal: digital silence (the envelope's floor is -127.5 dBFS),
    /// as a muted input or a disconnected microphone gives.
    static let noSignalDbfs: Float = -120

    public var line: String {
        var text = "heard " + Formatting.clock(heardSeconds)
        if let level = lastSecondDbfs {
            text += level < Self.noSignalDbfs ? ", the last second silent (no signal: is the input muted?)"
                : ", the last second at \(Formatting.fixed(Double(level), 0)) dBFS"
        }
        text += "; stored to " + Formatting.clock(storedSeconds) + "; " + Formatting.counted(alerts, "alert")
        if let last = lastAlert { text += ", the last \(last.classID) at +\(Formatting.clock(last.offsetSeconds))" }
        return text
    }

    /// The power mean of the envelope's last second, dBFS (`nil` when it holds less than a second).
    public static func lastSecondDbfs(_ envelope: LevelEnvelope) -> Float? {
        let blocks = LevelEnvelope.rateHz
        guard envelope.count >= blocks else { return nil }
        var sum = 0.0
        for index in (envelope.count - blocks)..<envelope.count { sum += envelope.power(index) }
        return Float(10 * log10(sum / Double(blocks)))
    }
}
