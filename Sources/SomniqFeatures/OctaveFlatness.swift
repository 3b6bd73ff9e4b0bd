import Foundation

/// `octave_flatness_1`…`octave_flatness_6` (see `FeatureID`): per octave from 62.5 Hz to 4 kHz, the log of the geometric
/// over the arithmetic mean of each sub-frame's power, averaged over the window. Where `spectral_flatness` reads the
/// whole band at once, an octave at a time tells a tone or a voice's harmonics in one octave over noise in the others
/// (a beep over a fan, a cry over rain) from a sound that is noise or tone throughout.
final class OctaveFlatness {
    static let octaves = 6
    /// The lowest octave's lower edge, Hz; each octave's upper edge is twice its lower one.
    static let lowestHz: Float = 62.5
    /// Every bin's power is read over a floor this far under the sub-frame's strongest bin (60 dB), as the mel bands
    /// are (`CepstralFeatures.dynamicRange`): what lies under it is leakage and the resampler's and recorder's filters,
    /// which differ between rates and devices, and a log mean would read nothing else.
    static let dynamicRange: Float = 1e-6

    /// Each octave's bins: those of frequency `f` with `lower ≤ f < 2 lower`.
    private let bins: [Range<Int>]

    init(binHz: Float, binCount: Int) {
        bins = (0..<Self.octaves).map { octave in
            let lower = Self.lowestHz * Float(1 << octave)
            let first = min(binCount, Int((lower / binHz).rounded(.up)))
            let end = min(binCount, Int((2 * lower / binHz).rounded(.up)))
            return first..<max(first, end)
        }
    }

    /// Adds one sub-frame's power spectrum, whose strongest bin holds `strongest`, to `block`.
    func add(_ power: UnsafeBufferPointer<Float>, strongest: Float, to block: BlockSummary) {
        let floor = max(1e-20, strongest * Self.dynamicRange)
        block.octaveFlatnessSum.withUnsafeMutableBufferPointer { sums in
            for (octave, range) in bins.enumerated() where !range.isEmpty {
                let count = Float(range.count)
                let (logSum, sum) = SpectralShape.sums(power, range, adding: floor)
                sums[octave] += min(0, logSum / count - log(sum / count + floor))
            }
        }
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames with signal number `1 / scale`.
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, into features: inout FeatureVector) {
        for (octave, id) in FeatureID.octaveFlatnesses.enumerated() {
            features[id] = (a.octaveFlatnessSum[octave] + (b?.octaveFlatnessSum[octave] ?? 0)) * scale
        }
    }
}
