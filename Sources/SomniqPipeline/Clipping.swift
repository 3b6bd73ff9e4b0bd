import SomniqStore

/// What to tell the user about a recording clipped by a gain set too high: its loudest sounds (a snore beside the
/// microphone) flattened at full scale, so that they read quieter than they were (the loudness, the snore score's
/// bands) and their spectrum holds harmonics the sound never had (what the classifier hears).
public enum Clipping {
    /// The share of samples at full scale from which a recording is said to be clipped: one in a thousand. A loud
    /// sound clipped now and then (a door slammed beside the recorder) is far fewer; a snore clipped at every breath
    /// through a night is more (docs/reliability.md).
    public static let warningShare = 0.001
    /// And in at least this many of the reads measured (one in sixteen), so that one sound clipped once, which is a large
    /// share of the few reads of a short recording, is not taken for a clipped night.
    public static let warningReads = 3

    /// The warning for `data`, or `nil` when too few of its samples lie at full scale.
    public static func warning(_ data: RecordingData) -> String? {
        guard let share = data.fullScaleShare, share >= warningShare, data.readsReachingFullScale >= warningReads else {
            return nil
        }
        // A share of the reads measured: near the whole night's over hours, rougher over minutes.
        return "about \(Formatting.fixed(100 * share, share < 0.01 ? 2 : 1))% of its samples lie at full scale: the recording is "
            + "clipped (the recorder's input gain was too high), so its loudest sounds read quieter than they were and "
            + "are distorted for the classifier; lower the gain, or set the recorder further away, for the next night"
    }
}
