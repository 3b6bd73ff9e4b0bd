/// Two faults of how a recording was made, measured as it is decoded (`AudioFileReader`) and stored with it, so that the
/// morning report, the listing and the export say so long after the batch's warnings have scrolled by: an input gain
/// set too high (the loudest sounds clipped at full scale) and a channel wired inverted (channels that cancel in the
/// mono mix the analysis hears). docs/reliability.md tells how each is measured.
public struct RecordingFaults: Sendable, Equatable {
    /// The share of the measured samples that lie at full scale (`AudioFileReader.fullScaleShare`), and how many of the
    /// reads measured held one.
    public var fullScaleShare: Double?
    public var readsReachingFullScale = 0
    /// For a recording of several channels, how far below its channels the mono mix lay, dB
    /// (`AudioFileReader.mixBelowChannelsDecibels`).
    public var mixBelowChannelsDecibels: Double?

    /// The share of samples at full scale from which a recording is said to be clipped: one in a thousand. A loud
    /// sound clipped now and then (a door slammed beside the recorder) is far fewer; a snore clipped at every breath
    /// through a night is more.
    public static let clippedShare = 0.001
    /// And in at least this many of the reads measured (one in sixteen), so that one sound clipped once, which is a
    /// large share of the few reads of a short recording, is not taken for a clipped night.
    public static let clippedReads = 3
    /// How far below its channels a mix may lie before they are said to cancel: two unrelated channels lie 3 dB below,
    /// identical ones 0; 20 dB below takes channels that are each other's negative within a tenth of their level.
    public static let cancellingDecibels = -20.0

    public init(fullScaleShare: Double? = nil, readsReachingFullScale: Int = 0, mixBelowChannelsDecibels: Double? = nil) {
        self.fullScaleShare = fullScaleShare
        self.readsReachingFullScale = readsReachingFullScale
        self.mixBelowChannelsDecibels = mixBelowChannelsDecibels
    }

    /// The share of samples at full scale, when the recording is clipped.
    public var clipping: Double? {
        guard let fullScaleShare, fullScaleShare >= Self.clippedShare, readsReachingFullScale >= Self.clippedReads else { return nil }
        return fullScaleShare
    }

    /// How far below its channels the mix lay, when they cancel.
    public var cancellation: Double? {
        guard let mixBelowChannelsDecibels, mixBelowChannelsDecibels <= Self.cancellingDecibels else { return nil }
        return mixBelowChannelsDecibels
    }
}
