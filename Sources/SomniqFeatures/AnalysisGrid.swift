/// The time grid of the analysis, in one place: windows, hops, blocks and sub-frames, and the
/// conversions between seconds and sample positions.
///
/// A window is 1.0 s long and a new one starts every 0.5 s (50% overlap). The audio is consumed in
/// half-second *blocks*; window `i` is blocks `i` and `i + 1`. Each block holds 8 spectral
/// *sub-frames* of 1/16 s and 50 envelope *micro-blocks* of 10 ms. Boundaries are computed from
/// integer sample positions (`floor(k * sampleRate / divisions)`), so every sample rate, even an
/// odd one, tiles exactly and deterministically.
public struct AnalysisGrid: Equatable, Sendable {
    public static let windowSeconds = 1.0
    public static let hopSeconds = 0.5
    /// Window decisions per second (2 Hz): the `frameHz` of every alert rule.
    public static let frameHz = 1.0 / hopSeconds
    public static let subframesPerSecond = 16
    public static let subframesPerBlock = 8
    public static let microBlocksPerSecond = 100
    public static let microBlocksPerBlock = 50

    /// Frames per second of the audio, in Hz.
    public let sampleRate: Int

    public init(sampleRate: Int) {
        precondition(sampleRate >= 100, "sample rate too low for the analysis grid")
        self.sampleRate = sampleRate
    }

    /// First sample of half-second block `block`.
    public func blockStart(_ block: Int64) -> Int64 { block * Int64(sampleRate) / 2 }

    /// Number of samples in block `block` when complete.
    public func blockLength(_ block: Int64) -> Int { Int(blockStart(block + 1) - blockStart(block)) }

    /// Longest block, in samples: the size of a block buffer.
    public var maximumBlockLength: Int { (sampleRate + 1) / 2 }

    /// Start, in samples from the block's own start, of sub-frame `index` (0...8) within a block.
    public func subframeOffset(_ index: Int) -> Int { index * sampleRate / Self.subframesPerSecond }

    /// Start, in samples from the block's own start, of micro-block `index` (0...50) within a block.
    public func microBlockOffset(_ index: Int) -> Int { index * sampleRate / Self.microBlocksPerSecond }

    /// Longest sub-frame, in samples.
    public var subframeLength: Int { (sampleRate + Self.subframesPerSecond - 1) / Self.subframesPerSecond }

    /// Number of analysis windows for `frameCount` samples: one per complete half-second block
    /// (a window must hold at least 0.5 s of audio), and always at least one.
    public func windowCount(frameCount: Int64) -> Int {
        max(1, Int(2 * frameCount / Int64(sampleRate)))
    }

    /// Start of window `index`, in seconds from the file's start.
    public static func windowStartSeconds(_ index: Int) -> Double { Double(index) * hopSeconds }

    /// Window index for an offset in seconds (the window that starts at or just before it).
    public static func windowIndex(atSeconds seconds: Double) -> Int { max(0, Int((seconds / hopSeconds).rounded(.down))) }
}
