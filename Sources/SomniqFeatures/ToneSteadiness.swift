import Foundation

/// The steadiness family: `tone_steadiness`, whether a tonal sound holds its pitch. An electronic tone (an alarm's
/// beep, a phone's ring, a chime's note, a buzzer's two alternating tones) comes back to the same frequency, to
/// within half a percent, from one sub-frame to the next; a voice (a cry, a sob, a sung or spoken vowel) hardly ever
/// does, its pitch gliding and trembling as it sounds. Tonality alone cannot tell the two apart, and a beeping alarm
/// clock was heard as crying for want of it.
///
/// A sub-frame holds a tone when its strongest peak (above 50 Hz; the sub-frame at least a little tonal, its peak's
/// main lobe a quarter of its power) was already a peak, within 10 dB of the strongest, in one of the two sub-frames
/// before it, at the same frequency to within 0.5%: each peak's frequency refined between bins by a parabola through
/// the log powers of its bin and its neighbours. Looking two sub-frames back finds a buzzer that alternates two tones
/// faster than the sub-frames (each sub-frame's strongest peak is the other tone's).
///
/// The share is of the window's pairs of consecutive heard sub-frames (neither a gap) whose quieter one is within
/// 12 dB of the window's loudest sub-frame: the pairs of the sound the window is about. A beep's silences, a cry's
/// breaths between sobs, a room's hum under them, are left out rather than counted unsteady or steady.
final class ToneSteadiness {
    /// A peak holds when it moved by less than this share of its frequency (a twelfth of a semitone).
    static let steadyChange: Float = 0.005
    /// A sub-frame's peak is followed from this tonality on (the main lobe's share of the sub-frame's power).
    static let followedTonality: Float = 0.25
    /// An earlier sub-frame had the peak when its local maximum there holds at least this share of its strongest
    /// bin's power (10 dB down).
    static let earlierPeakShare: Float = 0.1
    /// A pair counts when its quieter sub-frame holds at least this share of the window's loudest sub-frame's mean
    /// power (12 dB down).
    static let loudPairShare = Float(pow(10.0, -12.0 / 10))
    /// Sub-frames looked back at.
    static let lookBack = 2

    private let binHz: Float
    private let minBin: Int
    /// Power spectra of the heard sub-frames before the current one, the latest first; the first `earlierCount` hold
    /// consecutive heard sub-frames.
    private var earlier: [UnsafeMutableBufferPointer<Float>]
    private var earlierPeakBin: [Int]
    private var earlierCount = 0
    private var previousLevel: Float = 0

    /// - Parameters:
    ///   - binHz: width of a bin of the sub-frames' power spectra; `binCount` bins.
    ///   - minBin: the lowest bin a peak is looked for in (50 Hz).
    init(binHz: Float, binCount: Int, minBin: Int) {
        self.binHz = binHz
        self.minBin = minBin
        earlier = (0..<Self.lookBack).map { _ in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: binCount)
            buffer.initialize(repeating: 0)
            return buffer
        }
        earlierPeakBin = [Int](repeating: 0, count: Self.lookBack)
    }

    deinit {
        for buffer in earlier { buffer.deallocate() }
    }

    /// Takes one heard sub-frame (not a gap): its power spectrum, strongest bin, tonality and mean power (`level`),
    /// and whether it `follows` a sub-frame heard (neither a gap nor before the recording). Records in `block` the
    /// pair it closes, at the level of its quieter sub-frame, and whether its peak held.
    func add(power: UnsafeMutableBufferPointer<Float>, peakBin: Int, tonality: Float, level: Float, follows: Bool,
             to block: BlockSummary) {
        if !follows { earlierCount = 0 }
        if earlierCount > 0 {
            let holds = tonality >= Self.followedTonality && peakBin > 0 && peakBin + 1 < power.count
                && heldEarlier(peakHz: Self.refinedPeak(in: power, bin: peakBin) * binHz, near: peakBin)
            block.addSubframePair(level: min(level, previousLevel), steady: holds)
        }
        block.loudestSubframeLevel = max(block.loudestSubframeLevel, level)

        // The oldest spectrum's buffer takes this one's, first.
        earlier.insert(earlier.removeLast(), at: 0)
        _ = earlier[0].update(fromContentsOf: power)
        earlierPeakBin.insert(peakBin, at: 0)
        earlierPeakBin.removeLast()
        earlierCount = min(Self.lookBack, earlierCount + 1)
        previousLevel = level
    }

    /// Whether one of the earlier sub-frames had a strong peak within `steadyChange` of `peakHz`, at a bin next to
    /// `near` (the current peak's).
    private func heldEarlier(peakHz: Float, near bin: Int) -> Bool {
        for back in 0..<earlierCount {
            let spectrum = earlier[back]
            let floor = spectrum[earlierPeakBin[back]] * Self.earlierPeakShare
            for candidate in max(minBin, bin - 1, 1)...min(bin + 1, spectrum.count - 2) {
                let value = spectrum[candidate]
                guard value >= floor, value >= spectrum[candidate - 1], value >= spectrum[candidate + 1] else { continue }
                let hz = Self.refinedPeak(in: spectrum, bin: candidate) * binHz
                if abs(peakHz / hz - 1) < Self.steadyChange { return true }
            }
        }
        return false
    }

    /// `tone_steadiness` of the window of blocks `a` and `b`: the share of its loud pairs of sub-frames whose peak
    /// held (0 without one).
    func measure(_ a: BlockSummary, _ b: BlockSummary?, into features: inout FeatureVector) {
        let floor = max(a.loudestSubframeLevel, b?.loudestSubframeLevel ?? 0) * Self.loudPairShare
        var pairs = 0, steady = 0
        for block in [a, b] {
            guard let block else { continue }
            for index in 0..<block.subframePairCount where block.subframePairLevel[index] >= floor {
                pairs += 1
                if block.subframePairSteady[index] { steady += 1 }
            }
        }
        features[.toneSteadiness] = pairs > 0 ? Float(steady) / Float(pairs) : 0
    }

    /// The position, in bins, of the peak at `bin` of `power` (neither its first nor its last bin), refined.
    static func refinedPeak(in power: UnsafeMutableBufferPointer<Float>, bin: Int) -> Float {
        refinedPeak(below: power[bin - 1], at: power[bin], above: power[bin + 1], bin: bin)
    }

    /// The peak's position in bins, between `bin - 0.5` and `bin + 0.5`: the vertex of the parabola through the
    /// log powers of the bin and its neighbours.
    static func refinedPeak(below: Float, at: Float, above: Float, bin: Int) -> Float {
        let floor: Float = 1e-30
        let l = log(max(below, floor)), c = log(max(at, floor)), r = log(max(above, floor))
        let curvature = l - 2 * c + r
        guard curvature < 0 else { return Float(bin) }
        return Float(bin) + max(-0.5, min(0.5, 0.5 * (l - r) / curvature))
    }
}
