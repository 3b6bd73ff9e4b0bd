import Foundation

/// The spectral shape family, read from the window's mean power spectrum above 50 Hz: `spectral_centroid_hz`,
/// `spectral_spread_hz`, `spectral_flatness`, `spectral_rolloff_hz`, `dominant_frequency_hz`, the band shares
/// (`band_ratio_*`) and `low_high_ratio_db`.
struct SpectralShape {
    private let binHz: Float
    /// The first bin above 50 Hz.
    let minBin: Int
    /// First bins of 50–250, 250–500, 500–1k, 1k–2k, 2k–4k and above 4 kHz, then the last bin.
    private let bandEdges: [Int]
    private let lowHighSplitBin: Int

    init(binHz: Float, binCount: Int) {
        func bin(_ hertz: Float) -> Int { min(binCount, max(1, Int((hertz / binHz).rounded(.up)))) }
        self.binHz = binHz
        minBin = bin(50)
        bandEdges = [minBin, bin(250), bin(500), bin(1000), bin(2000), bin(4000), binCount - 1]
        lowHighSplitBin = bin(500)
    }

    /// Writes the family's features from `power` (the window's mean power per bin); all 0 when it holds no power.
    /// Returns `false` in that case, so the caller can clear the other spectral features too.
    func measure(_ power: [Float], into features: inout FeatureVector) -> Bool {
        let bins = power.count
        var total: Float = 0, weighted: Float = 0
        var dominant = minBin
        for bin in minBin..<bins {
            let value = power[bin]
            total += value
            weighted += value * Float(bin) * binHz
            if value > power[dominant] { dominant = bin }
        }
        let logSum = power.withUnsafeBufferPointer { Self.sumOfLogs($0, from: minBin, to: bins, adding: 1e-20) }
        guard total > 0 else { return false }
        let centroid = weighted / total
        var spreadSum: Float = 0
        var cumulative: Float = 0
        var rolloff: Float = 0
        var rolloffFound = false
        var lowEnergy: Float = 0
        for bin in minBin..<bins {
            let frequency = Float(bin) * binHz
            let value = power[bin]
            spreadSum += (frequency - centroid) * (frequency - centroid) * value
            cumulative += value
            if !rolloffFound, cumulative >= 0.85 * total { rolloff = frequency; rolloffFound = true }
            if bin < lowHighSplitBin { lowEnergy += value }
        }
        let count = Float(bins - minBin)
        features[.spectralCentroidHz] = centroid
        features[.spectralSpreadHz] = (spreadSum / total).squareRoot()
        features[.spectralFlatness] = min(1, exp(logSum / count) / (total / count))
        features[.spectralRolloffHz] = rolloff
        features[.dominantFrequencyHz] = Float(dominant) * binHz
        let bandCount = 6  // 50–250, 250–500, 500–1k, 1k–2k, 2k–4k, above 4 kHz
        func bandEnergy(_ band: Int) -> Float {
            let lower = bandEdges[band], upper = band == bandCount - 1 ? bins : bandEdges[band + 1]
            var energy: Float = 0
            if lower < upper { for bin in lower..<upper { energy += power[bin] } }
            return energy
        }
        // The four low bands as shares of the power below 2 kHz, which every supported rate has.
        let low = (bandEnergy(0), bandEnergy(1), bandEnergy(2), bandEnergy(3))
        let belowTwoKilohertz = low.0 + low.1 + low.2 + low.3
        let lowShare = belowTwoKilohertz > 0 ? 1 / belowTwoKilohertz : 0
        features[.bandRatio0To250] = low.0 * lowShare
        features[.bandRatio250To500] = low.1 * lowShare
        features[.bandRatio500To1k] = low.2 * lowShare
        features[.bandRatio1kTo2k] = low.3 * lowShare
        features[.bandRatio2kTo4k] = bandEnergy(4) / total
        features[.bandRatio4kUp] = bandEnergy(5) / total
        let highEnergy = total - lowEnergy
        features[.lowHighRatioDb] = max(-60, min(60, 10 * log10((lowEnergy + 1e-20) / (highEnergy + 1e-20))))
        return true
    }

    /// `Σ ln(values[i] + floor)` for `i` in `start..<end` (values ≥ 0), with one logarithm per 32 values instead
    /// of one each: every value splits into its binary exponent, summed exactly as an integer, and its mantissa
    /// in [1, 2), multiplied 32 at a time (the product stays below 2³²).
    static func sumOfLogs(_ values: UnsafeBufferPointer<Float>, from start: Int, to end: Int, adding floor: Float) -> Float {
        var exponents = 0
        var logSum: Float = 0
        var product: Float = 1
        var run = 0
        for index in start..<end {
            let bits = (values[index] + floor).bitPattern
            exponents += Int((bits >> 23) & 0xFF) - 127
            product *= Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F80_0000)
            run += 1
            if run == 32 {
                logSum += log(product)
                product = 1
                run = 0
            }
        }
        return Float(Double(logSum + log(product)) + Double(exponents) * M_LN2)
    }
}
