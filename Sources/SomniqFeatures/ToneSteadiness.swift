import Foundation

/// The steadiness family: `tone_steadiness`, whether a tonal sound holds its pitch. An electronic tone (an alarm's
/// beep, a phone's ring, a chime's note) holds its frequency to within 1% from one sub-frame to the next; a voice
/// (a cry, a sob, a sung or spoken vowel) hardly ever does, its pitch gliding and trembling as it sounds.
/// Tonality alone cannot tell the two apart, and a beeping alarm clock was heard as crying for want of it.
///
/// Read from each sub-frame's strongest peak (above 50 Hz), its frequency refined between bins by a parabola through
/// the log powers of the peak bin and its neighbours. The share is of every pair of consecutive sub-frames (neither a
/// gap), so that a sound that is not tonal reads 0 as a voice that glides does, and only a held tone reads high; a
/// pair is steady when both are tonal (tonality ≥ 0.5: the peak's main lobe holds half the power) and the peak moved
/// less than 1%.
struct ToneSteadiness {
    /// A pair is steady when its peak moves by less than this share of its frequency (a sixth of a semitone).
    static let steadyChange: Float = 0.01
    /// A sub-frame is tonal from this tonality on (as `tonal_fraction` counts it).
    static let tonalTonality: Float = 0.5

    private let binHz: Float
    /// The previous sub-frame's peak frequency, Hz, when it was tonal; nil otherwise.
    private var previousPeakHz: Float?

    init(binHz: Float) {
        self.binHz = binHz
    }

    /// Takes one sub-frame (not a gap): its power spectrum, strongest bin and tonality, and whether it `follows` a
    /// sub-frame heard (neither a gap nor before the recording). Counts the pair it closes in `block`: every pair of
    /// consecutive sub-frames, and those of two tonal ones whose peak held its pitch.
    mutating func add(power: UnsafeMutableBufferPointer<Float>, peakBin: Int, tonality: Float, follows: Bool,
                      to block: BlockSummary) {
        let tonal = tonality >= Self.tonalTonality && peakBin > 0 && peakBin + 1 < power.count
        let peakHz = tonal
            ? Self.refinedPeak(below: power[peakBin - 1], at: power[peakBin], above: power[peakBin + 1], bin: peakBin) * binHz
            : 0
        if follows {
            block.subframePairs += 1
            if tonal, let previous = previousPeakHz, abs(peakHz / previous - 1) < Self.steadyChange { block.steadyPairs += 1 }
        }
        previousPeakHz = tonal ? peakHz : nil
    }

    /// `tone_steadiness` of the window of blocks `a` and `b`: the share of its pairs of sub-frames that are tonal and
    /// steady (0 without a pair).
    func measure(_ a: BlockSummary, _ b: BlockSummary?, into features: inout FeatureVector) {
        let pairs = a.subframePairs + (b?.subframePairs ?? 0)
        let steady = a.steadyPairs + (b?.steadyPairs ?? 0)
        features[.toneSteadiness] = pairs > 0 ? Float(steady) / Float(pairs) : 0
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
