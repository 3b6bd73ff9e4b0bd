import Foundation

/// The level and time-course family: `rms_dbfs`, `peak_dbfs`, `crest_db`, `noise_floor_dbfs`, `snr_db`,
/// `level_range_db`, `onset_strength_db`, `active_fraction`, `syllabic_modulation` and `zero_crossing_rate`, read from
/// the window's two blocks (their sums, peaks, crossings and 10 ms levels), and the room's running background, which
/// it carries from window to window.
struct LevelFeatures {
    /// The window's 10 ms levels in time order, and a copy the percentile selection reorders.
    private var levels = [Float](repeating: 0, count: 2 * AnalysisGrid.microBlocksPerBlock)
    private var sortedLevels = [Float](repeating: 0, count: 2 * AnalysisGrid.microBlocksPerBlock)
    private var noiseFloor = NoiseFloorTracker()

    /// Writes the family's features for the window of blocks `a` and `b` (`nil`: the file's last, one-block window),
    /// then takes the window's quiet moments as the background's next candidate.
    mutating func measure(_ a: BlockSummary, _ b: BlockSummary?, into features: inout FeatureVector) {
        let sampleCount = a.sampleCount + (b?.sampleCount ?? 0)
        let sumSquares = a.sumSquares + (b?.sumSquares ?? 0)
        let rms = FeatureExtractor.decibels(power: Float(sumSquares / Double(sampleCount)))
        let peakDbfs = FeatureExtractor.decibels(amplitude: max(a.peak, b?.peak ?? 0))

        var levelCount = 0
        for index in 0..<a.microCount { levels[levelCount] = a.microLevels[index]; levelCount += 1 }
        if let b { for index in 0..<b.microCount { levels[levelCount] = b.microLevels[index]; levelCount += 1 } }
        for index in 0..<levelCount { sortedLevels[index] = levels[index] }
        let low = Int(Float(levelCount - 1) * 0.1), high = Int(Float(levelCount - 1) * 0.9)
        let (p10, p90) = sortedLevels.withUnsafeMutableBufferPointer { values in
            Self.select(high, in: values, from: 0, to: levelCount)
            Self.select(low, in: values, from: 0, to: high)  // everything before `high` is now at most its value
            return (values[low], values[high])
        }

        // A gap (digital silence: an edit, padding, a recorder's gate) is the quietest room there can be, but no part
        // of the sound's time course: the spread and the syllabic rhythm are read from the micro-blocks with signal.
        var heard = 0
        for index in 0..<levelCount where levels[index] >= FeatureExtractor.noSignalDbfs { heard += 1 }
        var range = p90 - p10
        if heard < levelCount {
            range = 0
            if heard > 0 {
                var kept = 0
                for index in 0..<levelCount where levels[index] >= FeatureExtractor.noSignalDbfs {
                    sortedLevels[kept] = levels[index]
                    kept += 1
                }
                let low = Int(Float(kept - 1) * 0.1), high = Int(Float(kept - 1) * 0.9)
                range = sortedLevels.withUnsafeMutableBufferPointer { values in
                    Self.select(high, in: values, from: 0, to: kept)
                    Self.select(low, in: values, from: 0, to: high)
                    return values[high] - values[low]
                }
            }
        }

        let floorBefore = noiseFloor.floorDbfs ?? p10
        features[.rmsDbfs] = rms
        features[.peakDbfs] = peakDbfs
        features[.crestDb] = max(0, peakDbfs - rms)
        features[.noiseFloorDbfs] = floorBefore
        features[.snrDb] = rms - floorBefore
        features[.levelRangeDb] = range
        features[.onsetStrengthDb] = onsetStrength(count: levelCount)
        var active = 0
        for index in 0..<levelCount where levels[index] > floorBefore + 10 { active += 1 }
        features[.activeFraction] = Float(active) / Float(levelCount)
        features[.syllabicModulation] = syllabicModulation(count: levelCount, heard: heard)
        features[.zeroCrossingRate] = Float(a.zeroCrossings + (b?.zeroCrossings ?? 0)) / Float(sampleCount)
        noiseFloor.update(candidateDbfs: p10)
    }

    /// Moves the `k`-th smallest of `values[start..<end]` to position `k`, smaller values before it and larger
    /// after (Hoare's selection with a median-of-three pivot): the percentiles a full sort would give, in
    /// linear time and without the sort's scratch allocation.
    static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Float>, from start: Int, to end: Int) {
        var lower = start, upper = end - 1
        while lower < upper {
            let middle = lower + (upper - lower) / 2
            if values[middle] < values[lower] { values.swapAt(middle, lower) }
            if values[upper] < values[lower] { values.swapAt(upper, lower) }
            if values[upper] < values[middle] { values.swapAt(upper, middle) }
            let pivot = values[middle]
            var i = lower, j = upper
            while i <= j {
                while values[i] < pivot { i += 1 }
                while pivot < values[j] { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { upper = j } else if k >= i { lower = i } else { return }
        }
    }

    /// Largest rise of a 10 ms level over the mean of the three before it, dB. A rise out of a gap (digital silence)
    /// is where an edit cut the recording, not where a sound began, and is not counted.
    private func onsetStrength(count: Int) -> Float {
        var strongest: Float = 0
        guard count > 3 else { return 0 }
        let gap = FeatureExtractor.noSignalDbfs
        for index in 3..<count where levels[index - 1] >= gap && levels[index - 2] >= gap && levels[index - 3] >= gap {
            let before = (levels[index - 1] + levels[index - 2] + levels[index - 3]) / 3
            strongest = max(strongest, levels[index] - before)
        }
        return strongest
    }

    /// Share of the envelope's modulation power (1–15 Hz) that lies at syllable rates (3–8 Hz), of the `heard`
    /// micro-blocks with signal (a gap's level is read as their mean: no modulation).
    private func syllabicModulation(count: Int, heard: Int) -> Float {
        guard count >= AnalysisGrid.microBlocksPerBlock, heard > 0 else { return 0 }
        var mean: Float = 0
        let gap = FeatureExtractor.noSignalDbfs
        for index in 0..<count where heard == count || levels[index] >= gap { mean += levels[index] }
        mean /= Float(heard)
        // The fifteen frequencies side by side, frequency f in lane f - 1: each lane sums its terms in micro-block
        // order, as a loop over one frequency would.
        var re = SIMD16<Float>(), im = SIMD16<Float>()
        Self.modulationCosines.withUnsafeBufferPointer { cosines in
            Self.modulationSines.withUnsafeBufferPointer { sines in
                for index in 0..<count {
                    let value = SIMD16<Float>(repeating: levels[index] >= gap ? levels[index] - mean : 0)
                    re += value * cosines[index]
                    im -= value * sines[index]
                }
            }
        }
        let powers = re * re + im * im
        var syllabic: Float = 0, total: Float = 0
        for frequency in 1...15 {
            total += powers[frequency - 1]
            if (3...8).contains(frequency) { syllabic += powers[frequency - 1] }
        }
        return total > 1e-6 ? syllabic / total : 0
    }

    /// `cos` and `sin` of 2π f m / 100 for the micro-blocks m of a window (100 of each block), f = 1...15 Hz in lanes
    /// 0...14 (lane 15 is 0), computed once.
    private static let modulationCosines = modulationTable(cos)
    private static let modulationSines = modulationTable(sin)

    private static func modulationTable(_ function: (Double) -> Double) -> [SIMD16<Float>] {
        (0..<(2 * AnalysisGrid.microBlocksPerBlock)).map { block in
            var lanes = SIMD16<Float>()
            for frequency in 1...15 {
                lanes[frequency - 1] = Float(function(2 * Double.pi * Double(frequency) * Double(block)
                                                      / Double(AnalysisGrid.microBlocksPerSecond)))
            }
            return lanes
        }
    }
}
