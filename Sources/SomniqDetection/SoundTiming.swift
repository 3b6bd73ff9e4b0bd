import Foundation
import SomniqFeatures

/// Times sounds to 10 ms from a recording's level envelope: a sound starts where its level rises out of the
/// room's background and ends where it falls back, read from the 10 ms blocks and interpolated within a block
/// by power. Windows and the alert processor say *that* and roughly *when* something was heard; this says
/// exactly when.
public struct SoundTiming: Sendable {
    public let envelope: LevelEnvelope
    public let background: BackgroundLevel

    /// A sound is at least this far above the background, dB.
    public static let minimumRiseDb: Float = 6
    /// Its extent is where it stays above the background by this share of its peak's rise (in dB).
    public static let riseShare: Float = 0.4
    /// ... and above the top of the room's own flicker by this much, dB, as far as that asks no more than this share
    /// of its rise: where the sound barely leaves the flicker, the two cannot be told apart by level.
    public static let overFlickerDb: Float = 3
    public static let flickerRiseShare: Float = 0.5

    public init(envelope: LevelEnvelope) {
        self.envelope = envelope
        background = BackgroundLevel(envelope: envelope)
    }

    /// A stretch of sound: its 10 ms-refined start and end, and its loudest block.
    public struct Span: Equatable, Sendable {
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var peakDbfs: Float
    }

    /// The sound whose loudest block lies in `search`, followed out while it stays above its threshold (dips shorter
    /// than `bridgeSeconds` do not end it), never beyond `limits`. `nil` when nothing there rises out of the background.
    public func span(peakIn search: ClosedRange<Double>, within limits: ClosedRange<Double>,
                     bridgeSeconds: Double = 0.12) -> Span? {
        guard !envelope.isEmpty, let peak = loudestBlock(in: search) else { return nil }
        let threshold = threshold(peak: peak)
        guard let threshold else { return nil }
        let first = blockRange(limits)
        let bridge = Int((bridgeSeconds * Double(LevelEnvelope.rateHz)).rounded())
        var start = peak
        while let next = step(from: start, by: -1, threshold: threshold, bridge: bridge, range: first) { start = next }
        var end = peak
        while let next = step(from: end, by: 1, threshold: threshold, bridge: bridge, range: first) { end = next }
        return Span(onsetSeconds: onset(block: start), offsetSeconds: offset(block: end), peakDbfs: envelope[peak])
    }

    /// Times are kept to the millisecond: finer would be false precision, and tables (DCASE, CSV) print them so.
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// Every separate sound in `region` that rises out of the background by `riseShare` of the region's loudest and
    /// peaks within `peakRangeDb` of it (a snore, not the soft breath after it), each followed out up to `reach`
    /// seconds beyond the region, dips shorter than `bridgeSeconds` bridged, those shorter than `minimumSeconds` dropped.
    public func sounds(in region: ClosedRange<Double>, reach: Double, bridgeSeconds: Double, minimumSeconds: Double,
                       peakRangeDb: Float = 15) -> [Span] {
        guard !envelope.isEmpty, let peak = loudestBlock(in: region), let threshold = threshold(peak: peak) else { return [] }
        let inside = blockRange(region)
        let limits = blockRange(max(0, region.lowerBound - reach)...(region.upperBound + reach))
        let bridge = Int((bridgeSeconds * Double(LevelEnvelope.rateHz)).rounded())
        var spans: [Span] = []
        var index = inside.lowerBound
        while index <= inside.upperBound {
            guard envelope[index] >= threshold else { index += 1; continue }
            var start = index
            while let next = step(from: start, by: -1, threshold: threshold, bridge: bridge, range: limits) { start = next }
            var end = index
            var loudest = index
            while let next = step(from: end, by: 1, threshold: threshold, bridge: bridge, range: limits) {
                end = next
                if envelope[next] > envelope[loudest] { loudest = next }
            }
            let span = Span(onsetSeconds: onset(block: start), offsetSeconds: offset(block: end), peakDbfs: envelope[loudest])
            if span.offsetSeconds - span.onsetSeconds >= minimumSeconds, span.peakDbfs >= envelope[peak] - peakRangeDb,
               spans.last.map({ span.onsetSeconds >= $0.offsetSeconds }) ?? true {
                spans.append(span)
            }
            index = end + 1
        }
        return spans
    }

    /// The loudest 10 ms block within `seconds`, dBFS.
    public func peakDbfs(in seconds: ClosedRange<Double>) -> Float? {
        guard !envelope.isEmpty else { return nil }
        return loudestBlock(in: seconds).map { envelope[$0] }
    }

    /// The level of `seconds` taken as one sound: the power mean of its 10 ms blocks, dBFS.
    public func meanDbfs(in seconds: ClosedRange<Double>) -> Float? {
        guard !envelope.isEmpty else { return nil }
        let range = blockRange(seconds)
        var power = 0.0
        for index in range { power += envelope.power(index) }
        return Float(10 * log10(power / Double(range.count)))
    }

    /// How far the loudest 10 ms of `seconds` stands over the room's background at that moment, dB.
    public func peakOverBackgroundDb(in seconds: ClosedRange<Double>) -> Float? {
        guard !envelope.isEmpty, let loudest = loudestBlock(in: seconds) else { return nil }
        return envelope[loudest] - background.at(seconds: LevelEnvelope.seconds(loudest))
    }

    // MARK: - Blocks

    private func blockRange(_ seconds: ClosedRange<Double>) -> ClosedRange<Int> {
        let first = envelope.index(at: seconds.lowerBound)
        return first...max(first, envelope.index(at: seconds.upperBound - 1e-9))
    }

    private func loudestBlock(in seconds: ClosedRange<Double>) -> Int? {
        let range = blockRange(seconds)
        var best = range.lowerBound
        for index in range where envelope[index] > envelope[best] { best = index }
        return best
    }

    private func threshold(peak: Int) -> Float? {
        let seconds = LevelEnvelope.seconds(peak)
        let floor = background.at(seconds: seconds)
        let rise = envelope[peak] - floor
        guard rise >= Self.minimumRiseDb else { return nil }
        let outOfFlicker = min(background.ceiling(seconds: seconds) + Self.overFlickerDb, floor + Self.flickerRiseShare * rise)
        return max(floor + max(Self.minimumRiseDb, Self.riseShare * rise), outOfFlicker)
    }

    /// The next block outward from `index` that is still part of the sound (directly, or across a short dip).
    private func step(from index: Int, by direction: Int, threshold: Float, bridge: Int, range: ClosedRange<Int>) -> Int? {
        for distance in 1...(bridge + 1) {
            let next = index + direction * distance
            guard range.contains(next) else { return nil }
            if envelope[next] >= threshold { return next }
        }
        return nil
    }

    private func power(_ index: Int) -> Double {
        guard index >= 0, index < envelope.count else { return 0 }
        return envelope.power(index)
    }

    /// Share of a block filled by the sound, by power: the block between the background and the sound's full level.
    private func fill(_ index: Int, full: Double) -> Double {
        let floor = pow(10, Double(background.at(seconds: LevelEnvelope.seconds(max(0, index)))) / 10)
        guard full > floor else { return 1 }
        return min(1, max(0, (power(index) - floor) / (full - floor)))
    }

    /// Start of the sound whose first block above threshold is `block`, to within a fraction of a block.
    private func onset(block: Int) -> Double {
        let full = max(power(block), power(block + 1))
        let before = fill(block - 1, full: full)
        if block > 0, before >= 0.05 { return Self.milliseconds(LevelEnvelope.seconds(block) - before * LevelEnvelope.secondsPerValue) }
        return Self.milliseconds(LevelEnvelope.seconds(block) + (1 - fill(block, full: full)) * LevelEnvelope.secondsPerValue)
    }

    /// End of the sound whose last block above threshold is `block`.
    private func offset(block: Int) -> Double {
        let full = max(power(block), power(block - 1))
        let after = fill(block + 1, full: full)
        if block + 1 < envelope.count, after >= 0.05 {
            return Self.milliseconds(LevelEnvelope.seconds(block + 1) + after * LevelEnvelope.secondsPerValue)
        }
        return Self.milliseconds(LevelEnvelope.seconds(block) + fill(block, full: full) * LevelEnvelope.secondsPerValue)
    }
}
