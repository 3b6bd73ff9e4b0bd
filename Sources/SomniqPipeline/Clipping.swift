import SomniqStore

/// What to tell the user about a recording clipped by a gain set too high: its loudest sounds (a snore beside the
/// microphone) flattened at full scale, so that they read quieter than they were (the loudness, the snore score's
/// bands) and their spectrum holds harmonics the sound never had (what the classifier hears). The batch warns with it
/// as the file is analysed; the morning report says it again from the store.
public enum Clipping {
    /// The warning for a recording with `faults`, or `nil` when too few of its samples lie at full scale.
    public static func warning(_ faults: RecordingFaults) -> String? {
        guard let share = faults.clipping else { return nil }
        // A share of the reads measured: near the whole night's over hours, rougher over minutes.
        return "about \(Formatting.fixed(100 * share, share < 0.01 ? 2 : 1))% of its samples lie at full scale: the recording is "
            + "clipped (the recorder's input gain was too high), so its loudest sounds read quieter than they were and "
            + "are distorted for the classifier; lower the gain, or set the recorder further away, for the next night"
    }
}

/// What to tell the user about a recording whose channels cancel each other when mixed to mono: one channel wired or
/// recorded inverted (some stereo microphones and adapters do it), so that the mix the analysis hears is far quieter
/// than either channel, and a night full of sound reads as "nothing of note".
public enum CancellingChannels {
    /// The warning for a recording of `channelCount` channels with `faults`, or `nil` when its channels do not cancel.
    public static func warning(_ faults: RecordingFaults, channelCount: Int) -> String? {
        guard let below = faults.cancellation else { return nil }
        return "its \(channelCount) channels cancel each other in the mono mix the analysis hears (the mix lies "
            + "\(Formatting.fixed(-below, 0)) dB below them: one channel is probably inverted); analyse one channel alone "
            + "(`--channel 1`), or the two with one inverted back (`sox IN OUT remix 1,2i`)"
    }
}
