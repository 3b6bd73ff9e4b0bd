import Foundation
import SomniqFeatures

/// The frequency band a stretch of sound occupies, for a Raven selection's Low and High Freq, measured from the stored
/// features of the windows it spans: their power in the analysis's octave bands (50-250 Hz, 250-500, 500-1k, 1-2k,
/// 2-4k, and above 4 kHz where the recording has it), each window weighed by its power; the band is the narrowest run of
/// neighbouring octaves holding `share` of it. Octaves, so coarse, but the sound's own: a snore's selection sits low, a
/// smoke alarm's around its tone.
public enum SelectionBand {
    /// The features read, in this order.
    public static let featureIDs = [FeatureID.rmsDbfs, .bandRatio0To250, .bandRatio250To500, .bandRatio500To1k, .bandRatio1kTo2k,
                                    .bandRatio2kTo4k, .bandRatio4kUp].map(\.rawValue)
    /// The octaves' edges, Hz; the last octave runs from 4 kHz to the recording's Nyquist frequency.
    static let edgesHz = [50.0, 250, 500, 1000, 2000, 4000]
    public static let share = 0.9

    /// (low, high) Hz for windows' `rows` (`featureIDs` order) of a recording whose Nyquist frequency is `nyquistHz`;
    /// 0 to Nyquist when nothing can be read.
    public static func of(_ rows: [[Float]], nyquistHz: Double) -> (low: Double, high: Double) {
        var power = [Double](repeating: 0, count: edgesHz.count)
        for row in rows where row.count == featureIDs.count && row[0].isFinite {
            let weight = pow(10, Double(row[0]) / 10)
            let above4k = row[6].isFinite ? Double(row[6]) : 0
            let high = Double(row[5]), low = 1 - high
            guard high.isFinite else { continue }
            let inBand = 1 - above4k
            let shares = [row[1], row[2], row[3], row[4]].map { Double($0).isFinite ? Double($0) * low * inBand : 0 }
                + [high * inBand, above4k]
            for (index, value) in shares.enumerated() { power[index] += weight * max(0, value) }
        }
        let total = power.reduce(0, +)
        guard total > 0 else { return (0, nyquistHz) }
        var best = (first: 0, last: power.count - 1)
        for first in power.indices {
            var sum = 0.0
            for last in first..<power.count {
                sum += power[last]
                if sum >= share * total {
                    if last - first < best.last - best.first { best = (first, last) }
                    break
                }
            }
        }
        let upper = best.last + 1 < edgesHz.count ? edgesHz[best.last + 1] : nyquistHz
        return (min(edgesHz[best.first], nyquistHz), min(upper, nyquistHz))
    }
}
