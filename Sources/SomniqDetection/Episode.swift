import SomniqModel

/// Activations of one class close in time, merged: "a 14-minute snoring episode, moderate".
public struct Episode: Equatable, Sendable {
    public var classIndex: Int
    public var tier: AlertTier
    /// Start of the first activation's onset window, seconds from the file's start.
    public var startSeconds: Double
    /// End of the last active window, seconds from the file's start (never past the file's end).
    public var endSeconds: Double
    public var severity: EpisodeSeverity
    public var peakConfidence: Float
    /// Notifications raised within the episode.
    public var alertCount: Int
    /// Activations that began inside a cooldown (no notification at their onset).
    public var suppressedCount: Int
    /// Indices of the class's activations merged into this episode.
    public var activations: ClosedRange<Int>
    /// The loudest 10 ms within it, dBFS over the analysis band (known once the episode is timed from the envelope).
    public var peakDbfs: Float?
    /// Its level taken as one sound (the power mean of its 10 ms blocks), dBFS over the analysis band.
    public var meanDbfs: Float?
    /// How far its loudest 10 ms stands over the room's background at that moment, dB.
    public var peakOverBackgroundDb: Float?

    public var durationSeconds: Double { endSeconds - startSeconds }
}
