import SomniqStore

/// What to tell the user about a recording whose channels cancel each other when mixed to mono: one channel wired or
/// recorded inverted (some stereo microphones and adapters do it), so that the mix the analysis hears is far quieter
/// than either channel, and a night full of sound reads as "nothing of note".
public enum CancellingChannels {
    /// How far below its channels a mix may lie before they are said to cancel: two unrelated channels lie 3 dB below,
    /// identical ones 0; 20 dB below takes channels that are each other's negative within a tenth of their level.
    public static let thresholdDecibels = -20.0

    /// The warning for `data`, or `nil` when its channels do not cancel (or it has one).
    public static func warning(_ data: RecordingData) -> String? {
        guard let below = data.mixBelowChannelsDecibels, below <= thresholdDecibels else { return nil }
        return "its \(data.channelCount) channels cancel each other in the mono mix the analysis hears (the mix lies "
            + "\(Formatting.fixed(-below, 0)) dB below them: one channel is probably inverted); analyse one channel alone "
            + "(e.g. `sox IN OUT remix 1`) or the two with one inverted back (`sox IN OUT remix 1,2i`)"
    }
}
