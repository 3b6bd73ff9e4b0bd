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
        let logSum = power.withUnsafeBufferPointer { Self.sums($0, minBin..<bins, adding: 1e-20).logSum }
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

    typealias Lanes = SIMD8<Float>

    /// `Σ ln(power[i] + floor)` and `Σ power[i]` over `range`, in one pass eight bins at a time and with one logarithm:
    /// each value splits into its binary exponent, summed exactly as an integer, and its mantissa in [1, 2), multiplied
    /// into its lane's product, which is split the same way after every step so that it stays in [1, 2).
    static func sums(_ power: UnsafeBufferPointer<Float>, _ range: Range<Int>, adding floor: Float) -> (logSum: Float, sum: Float) {
        let base = power.baseAddress!
        let mantissaBits = SIMD8<UInt32>(repeating: 0x007F_FFFF), one = SIMD8<UInt32>(repeating: 0x3F80_0000)
        var exponents = SIMD8<Int32>(repeating: 0)
        var product = Lanes(repeating: 1), total = Lanes()
        @inline(__always) func split(_ value: Lanes) -> (exponent: SIMD8<Int32>, mantissa: Lanes) {
            let bits = unsafeBitCast(value, to: SIMD8<UInt32>.self)
            return (SIMD8<Int32>(truncatingIfNeeded: bits &>> 23) &- 127,
                    unsafeBitCast((bits & mantissaBits) | one, to: Lanes.self))
        }
        var bin = range.lowerBound
        while bin + 8 <= range.upperBound {
            let value = UnsafeRawPointer(base + bin).loadUnaligned(as: Lanes.self)
            total += value
            let part = split(value + Lanes(repeating: floor))
            let renormalised = split(product * part.mantissa)
            exponents &+= part.exponent &+ renormalised.exponent
            product = renormalised.mantissa
            bin += 8
        }
        var exponentSum = Int(exponents.wrappedSum())
        var sum = total.sum()
        // The lanes' products (eight in [1, 2)) and the last few bins' mantissas, renormalised the same way.
        var mantissa: Float = 1
        for lane in 0..<8 { mantissa *= product[lane] }
        while bin < range.upperBound {
            sum += base[bin]
            let bits = (base[bin] + floor).bitPattern
            exponentSum += Int((bits >> 23) & 0xFF) - 127
            mantissa *= Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F80_0000)
            let productBits = mantissa.bitPattern
            exponentSum += Int((productBits >> 23) & 0xFF) - 127
            mantissa = Float(bitPattern: (productBits & 0x007F_FFFF) | 0x3F80_0000)
            bin += 1
        }
        return (Float(Double(log(mantissa)) + Double(exponentSum) * M_LN2), sum)
    }
}
