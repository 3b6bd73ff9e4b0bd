import Foundation

/// Turns a stream of half-second sample blocks into one `FeatureVector` per analysis window.
///
/// Feed blocks in order with `consume(_:into:)` (every block complete, as `AnalysisGrid` cuts
/// them, except possibly the last), then call `finish(into:)`. Each call that completes a window
/// fills the vector and returns `true`. Work per block is fixed and nothing is allocated after
/// `init`: each sub-frame is transformed once and serves both windows it belongs to.
public final class FeatureExtractor {
    /// Below this window level the spectral shape features are meaningless and reported as 0.
    public static let noSignalDbfs: Float = -100
    /// Levels are clamped here, so that digital silence has a finite level.
    public static let minimumDbfs: Float = -120

    public let grid: AnalysisGrid
    private let analyzer: SpectralFrameAnalyzer
    /// Points of each sub-frame's transform (the sub-frame zero-padded): `sampleRate / fftSize` Hz a bin.
    public var fftSize: Int { analyzer.fftSize }
    private let hann: [Float]
    /// Normalised autocorrelation of the Hann window, to undo its taper in `harmonicity`.
    private let windowAutocorrelation: [Float]
    private let binHz: Float
    private let minBin: Int
    private let bandEdges: [Int]
    private let lowHighSplitBin: Int
    private let envelopeBandEndBin: Int
    private let peakHalfWidthBins: Int
    private let pitchLags: ClosedRange<Int>

    // Scratch, reused for every sub-frame and window. The per-sub-frame buffers are raw memory owned by the
    // extractor: the hot loops then index plain pointers, with no copy-on-write check per element.
    private let power: UnsafeMutableBufferPointer<Float>
    private var magnitude: UnsafeMutableBufferPointer<Float>
    private var previousMagnitude: UnsafeMutableBufferPointer<Float>
    private var hasPreviousSubframe = false
    private var windowPower: [Float]
    private var autocorrelation: [Float]
    private var breathingScores = [Float](repeating: 0, count: 8 * FeatureExtractor.envelopeRateHz + 1)
    private let melFilters: MelFilterbank
    private let melEnergy: UnsafeMutableBufferPointer<Float>
    private var logMel: UnsafeMutableBufferPointer<Float>
    private var previousLogMel: UnsafeMutableBufferPointer<Float>
    private var windowLogMel = [Float](repeating: 0, count: FeatureExtractor.melBands)
    static let melBands = 24
    /// The mel energies' dynamic range: 60 dB.
    static let melDynamicRange: Float = 1e-6
    private var levels = [Float](repeating: 0, count: 2 * AnalysisGrid.microBlocksPerBlock)
    private var sortedLevels = [Float](repeating: 0, count: 2 * AnalysisGrid.microBlocksPerBlock)

    private let blocks: [BlockSummary]
    private var blocksConsumed: Int64 = 0
    private var lastSample: Float = 0

    // Causal context across windows.
    private var noiseFloor = NoiseFloorTracker()
    private var quietRunSeconds: Float = 0
    private var loudRunSeconds: Float = 0
    private var quietBeforeLoudSeconds: Float = 0
    private var breathingEnvelope: RingBuffer
    /// The envelope in time order, then its deviations from its mean, for each window's rhythm search.
    private let envelopeScratch: UnsafeMutableBufferPointer<Float>
    private var pendingEnvelopeEnergy: Float = 0
    private var pendingEnvelopeCount = 0

    static let quietCapSeconds: Float = 60
    static let loudSnrDb: Float = 10
    /// How long into a loud stretch `preceding_quiet_s` still reports the pause before it.
    static let pauseMemorySeconds: Float = 3
    /// The breathing envelope runs at 8 Hz (two sub-frames a value) over the last 16 s.
    static let envelopeRateHz = 8
    static let envelopeHistory = 128

    public init(sampleRate: Int) {
        grid = AnalysisGrid(sampleRate: sampleRate)
        let frameLength = grid.subframeLength
        let lowestLag = Int((Double(sampleRate) / 500).rounded(.up))
        let highestLag = Self.highestPitchLag(sampleRate: sampleRate)
        let fftSize = Self.fftSize(sampleRate: sampleRate)
        analyzer = SpectralFrameAnalyzer(fftSize: fftSize)
        hann = SpectralFrameAnalyzer.hannWindow(length: frameLength)
        let binHz = Float(sampleRate) / Float(fftSize)
        self.binHz = binHz
        let bins = analyzer.binCount
        func bin(_ hertz: Float) -> Int { min(bins, max(1, Int((hertz / binHz).rounded(.up)))) }
        minBin = bin(50)
        bandEdges = [minBin, bin(250), bin(500), bin(1000), bin(2000), bin(4000), bins - 1]
        lowHighSplitBin = bin(500)
        envelopeBandEndBin = bin(1000)
        peakHalfWidthBins = Int((2 * Double(fftSize) / Double(frameLength)).rounded(.up))
        pitchLags = lowestLag...max(lowestLag, highestLag)

        var windowAC = [Float](repeating: 0, count: frameLength)
        let energy = hann.reduce(0) { $0 + $1 * $1 }
        for lag in 0..<frameLength {
            var sum: Float = 0
            for index in 0..<(frameLength - lag) { sum += hann[index] * hann[index + lag] }
            windowAC[lag] = sum / energy
        }
        windowAutocorrelation = windowAC

        func zeroed(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
            buffer.initialize(repeating: 0)
            return buffer
        }
        power = zeroed(bins)
        magnitude = zeroed(bins)
        previousMagnitude = zeroed(bins)
        windowPower = [Float](repeating: 0, count: bins)
        autocorrelation = [Float](repeating: 0, count: fftSize)
        melFilters = MelFilterbank(bands: Self.melBands, lowHz: 50, highHz: 4000, binHz: binHz, binCount: bins)
        melEnergy = zeroed(Self.melBands)
        logMel = zeroed(Self.melBands)
        previousLogMel = zeroed(Self.melBands)
        blocks = [BlockSummary(binCount: bins, melBands: Self.melBands), BlockSummary(binCount: bins, melBands: Self.melBands)]
        breathingEnvelope = RingBuffer(capacity: Self.envelopeHistory)
        envelopeScratch = zeroed(Self.envelopeHistory)
    }

    /// The longest lag, in samples, the pitch search reads (a 60 Hz period, at most half a sub-frame).
    static func highestPitchLag(sampleRate: Int) -> Int {
        min(Int(Double(sampleRate) / 60), AnalysisGrid(sampleRate: sampleRate).subframeLength / 2)
    }

    /// Points of the sub-frame transform at `sampleRate`. The pitch search reads the autocorrelation up to
    /// `highestLag + 1`; a circular one of `fftSize` points is the true one wherever `lag + frameLength <=
    /// fftSize`, so that much padding and no more.
    public static func fftSize(sampleRate: Int) -> Int {
        SpectralFrameAnalyzer.fftSize(atLeast: AnalysisGrid(sampleRate: sampleRate).subframeLength
                                          + highestPitchLag(sampleRate: sampleRate) + 1)
    }

    deinit {
        for buffer in [power, magnitude, previousMagnitude, melEnergy, logMel, previousLogMel, envelopeScratch] { buffer.deallocate() }
    }

    /// Consumes the next block (`grid.blockLength` samples; fewer only for the file's last block).
    /// Returns `true` when it completed a window, whose features are then in `features`.
    public func consume(_ samples: UnsafeBufferPointer<Float>, into features: inout FeatureVector) -> Bool {
        let expected = grid.blockLength(blocksConsumed)
        precondition(samples.count > 0 && samples.count <= expected, "block \(blocksConsumed) must hold 1...\(expected) samples")
        let slot = Int(blocksConsumed % 2)
        summarize(samples, complete: samples.count == expected, into: blocks[slot])
        blocksConsumed += 1
        guard blocksConsumed >= 2 else { return false }
        let previous = 1 - slot
        guard blocks[previous].isComplete else { return false }
        computeWindow(first: previous, second: slot, into: &features)
        return true
    }

    /// Emits the window that starts at the last block, when the analysis grid calls for one
    /// (the last block was complete, or the whole file is shorter than half a second).
    public func finish(into features: inout FeatureVector) -> Bool {
        guard blocksConsumed > 0 else { return false }
        let last = Int((blocksConsumed - 1) % 2)
        guard blocks[last].isComplete || blocksConsumed == 1 else { return false }
        computeWindow(first: last, second: nil, into: &features)
        return true
    }

    /// Levels (dBFS) of the 10 ms micro-blocks of the block consumed last, in time order.
    public func forEachMicroLevelOfLastBlock(_ body: (Float) -> Void) {
        guard blocksConsumed > 0 else { return }
        let block = blocks[Int((blocksConsumed - 1) % 2)]
        for index in 0..<block.microCount { body(block.microLevels[index]) }
    }

    // MARK: - Blocks

    private func summarize(_ samples: UnsafeBufferPointer<Float>, complete: Bool, into block: BlockSummary) {
        block.reset()
        block.sampleCount = samples.count
        block.isComplete = complete
        // One pass over the samples, micro-block by micro-block: each micro-block's sum of squares gives its
        // level, and the block's total is the sum of those (plus the sample or so no micro-block covers at odd rates).
        var sumSquares = 0.0
        var peak: Float = 0
        var crossings = 0
        var previous = lastSample
        var covered = 0
        for micro in 0..<AnalysisGrid.microBlocksPerBlock {
            let start = grid.microBlockOffset(micro)
            let end = min(grid.microBlockOffset(micro + 1), samples.count)
            guard start < end else { break }
            let run = Self.levelStatistics(samples, from: start, to: end, previous: previous)
            sumSquares += Double(run.sumSquares)
            peak = max(peak, run.peak)
            crossings += run.crossings
            previous = samples[end - 1]
            block.microLevels[block.microCount] = Self.decibels(power: run.sumSquares / Float(end - start))
            block.microCount += 1
            covered = end
        }
        if covered < samples.count {
            let rest = Self.levelStatistics(samples, from: covered, to: samples.count, previous: previous)
            sumSquares += Double(rest.sumSquares)
            peak = max(peak, rest.peak)
            crossings += rest.crossings
            previous = samples[samples.count - 1]
        }
        lastSample = previous
        block.sumSquares = sumSquares
        block.peak = peak
        block.zeroCrossings = crossings

        for subframe in 0..<AnalysisGrid.subframesPerBlock {
            let start = grid.subframeOffset(subframe)
            let end = min(grid.subframeOffset(subframe + 1), samples.count)
            guard start < end else { break }
            analyzeSubframe(UnsafeBufferPointer(rebasing: samples[start..<end]), into: block)
        }
    }

    /// Sum of squares, peak magnitude and zero crossings of `samples[start..<end]` (`previous` is the sample
    /// before). Four independent running sums and peaks, so that consecutive samples do not wait on each
    /// other's additions; a crossing is counted without a branch (noise would mispredict half of them).
    @inline(__always)
    private static func levelStatistics(_ samples: UnsafeBufferPointer<Float>, from start: Int, to end: Int,
                                        previous first: Float) -> (sumSquares: Float, peak: Float, crossings: Int) {
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var p0: Float = 0, p1: Float = 0, p2: Float = 0, p3: Float = 0
        var crossings = 0
        var previous = first
        var index = start
        while index + 4 <= end {
            let v0 = samples[index], v1 = samples[index + 1], v2 = samples[index + 2], v3 = samples[index + 3]
            s0 += v0 * v0; s1 += v1 * v1; s2 += v2 * v2; s3 += v3 * v3
            p0 = max(p0, abs(v0)); p1 = max(p1, abs(v1)); p2 = max(p2, abs(v2)); p3 = max(p3, abs(v3))
            crossings += ((v0 < 0) != (previous < 0) ? 1 : 0) + ((v1 < 0) != (v0 < 0) ? 1 : 0)
                + ((v2 < 0) != (v1 < 0) ? 1 : 0) + ((v3 < 0) != (v2 < 0) ? 1 : 0)
            previous = v3
            index += 4
        }
        while index < end {
            let value = samples[index]
            s0 += value * value
            p0 = max(p0, abs(value))
            crossings += (value < 0) != (previous < 0) ? 1 : 0
            previous = value
            index += 1
        }
        return ((s0 + s1) + (s2 + s3), max(max(p0, p1), max(p2, p3)), crossings)
    }

    /// Moves the `k`-th smallest of `values[start..<end]` to position `k`, smaller values before it and larger
    /// after (Hoare's selection with a median-of-three pivot): the percentiles a full sort would give, in
    /// linear time and without the sort's scratch allocation.
    public static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Float>, from start: Int, to end: Int) {
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

    typealias Lanes = SIMD8<Float>

    /// One pass over a sub-frame's power spectrum, eight bins at a time: adds it to the block's running sum (every
    /// bin), and from `firstBin` up totals the power, finds the strongest bin (the first, on a tie), totals the
    /// power below `envelopeEndBin`, writes the magnitudes and totals them and their rise over the previous ones.
    static func spectrumPass(power: UnsafeMutableBufferPointer<Float>, sum: UnsafeMutableBufferPointer<Float>,
                             magnitude: UnsafeMutableBufferPointer<Float>, previousMagnitude: UnsafeMutableBufferPointer<Float>,
                             firstBin: Int, envelopeEndBin: Int)
        -> (total: Float, peakBin: Int, envelope: Float, magnitudeSum: Float, rise: Float) {
        let bins = power.count
        let p = power.baseAddress!, s = sum.baseAddress!, m = magnitude.baseAddress!, previous = previousMagnitude.baseAddress!
        @inline(__always) func load(_ base: UnsafeMutablePointer<Float>, _ index: Int) -> Lanes {
            UnsafeRawPointer(base + index).loadUnaligned(as: Lanes.self)
        }
        @inline(__always) func store(_ value: Lanes, _ base: UnsafeMutablePointer<Float>, _ index: Int) {
            UnsafeMutableRawPointer(base + index).storeBytes(of: value, as: Lanes.self)
        }
        for bin in 0..<firstBin { s[bin] += p[bin] }
        var total = Lanes(), envelope = Lanes(), magnitudes = Lanes(), rise = Lanes()
        var best = Lanes(repeating: -1), bestIndex = SIMD8<Int32>(repeating: Int32(firstBin))
        let laneOffsets = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let envelopeEnd = SIMD8<Int32>(repeating: Int32(envelopeEndBin))
        var bin = firstBin
        while bin + 8 <= bins {
            let value = load(p, bin)
            store(load(s, bin) + value, s, bin)
            total += value
            let index = laneOffsets &+ Int32(bin)
            envelope += value.replacing(with: 0, where: index .>= envelopeEnd)
            let stronger = value .> best
            best.replace(with: value, where: stronger)
            bestIndex.replace(with: index, where: stronger)
            let root = value.squareRoot(), before = load(previous, bin)
            store(root, m, bin)
            magnitudes += root
            rise += (root - before).replacing(with: 0, where: root .<= before)
            bin += 8
        }
        // Across lanes: the largest power, and of equals the lowest bin, as a scan in bin order would find.
        var peakValue: Float = -1, peakBin = firstBin
        for lane in 0..<8 where best[lane] > peakValue || (best[lane] == peakValue && Int(bestIndex[lane]) < peakBin) {
            peakValue = best[lane]
            peakBin = Int(bestIndex[lane])
        }
        var totalSum = total.sum(), envelopeSum = envelope.sum(), magnitudeSum = magnitudes.sum(), riseSum = rise.sum()
        while bin < bins {
            let value = p[bin]
            s[bin] += value
            totalSum += value
            if bin < envelopeEndBin { envelopeSum += value }
            if value > peakValue { peakValue = value; peakBin = bin }
            let root = value.squareRoot()
            m[bin] = root
            magnitudeSum += root
            riseSum += max(0, root - previous[bin])
            bin += 1
        }
        return (totalSum, peakBin, envelopeSum, magnitudeSum, riseSum)
    }

    private func analyzeSubframe(_ frame: UnsafeBufferPointer<Float>, into block: BlockSummary) {
        let power = self.power, magnitude = self.magnitude, previousMagnitude = self.previousMagnitude
        hann.withUnsafeBufferPointer { window in analyzer.powerSpectrum(frame: frame, window: window, into: power) }
        let bins = power.count
        let pass = block.powerSum.withUnsafeMutableBufferPointer { sum in
            Self.spectrumPass(power: power, sum: sum, magnitude: magnitude, previousMagnitude: previousMagnitude,
                              firstBin: minBin, envelopeEndBin: envelopeBandEndBin)
        }
        var peakEnergy: Float = 0
        for bin in max(minBin, pass.peakBin - peakHalfWidthBins)...min(bins - 1, pass.peakBin + peakHalfWidthBins) {
            peakEnergy += power[bin]
        }
        let tonality = pass.total > 0 ? peakEnergy / pass.total : 0
        block.tonalitySum += tonality
        if tonality >= 0.5 { block.tonalSubframes += 1 }
        if hasPreviousSubframe, pass.magnitudeSum > 0 { block.fluxSum += min(1, pass.rise / pass.magnitudeSum) }
        swap(&self.magnitude, &self.previousMagnitude)

        melFilters.apply(UnsafeBufferPointer(power), into: melEnergy)
        let logMel = self.logMel, previousLogMel = self.previousLogMel
        var change: Float = 0
        // Bands more than 60 dB under the strongest are read as that floor: what lies there is leakage and the
        // recorder's own filters, which differ between rates and devices, not the sound.
        var strongest: Float = 0
        for band in 0..<Self.melBands { strongest = max(strongest, melEnergy[band]) }
        let melFloor = max(1e-10, strongest * Self.melDynamicRange)
        block.logMelSum.withUnsafeMutableBufferPointer { logMelSum in
            for band in 0..<Self.melBands {
                logMel[band] = log(max(melEnergy[band], melFloor))
                logMelSum[band] += logMel[band]
                change += abs(logMel[band] - previousLogMel[band])
            }
        }
        if hasPreviousSubframe {
            block.melFluxSum += change / Float(Self.melBands)
            block.melFluxCount += 1
        }
        for k in 0..<4 {
            let value = melFilters.coefficient(k + 1, of: UnsafeBufferPointer(logMel))
            block.cepstrumSum[k] += value
            block.cepstrumSquares[k] += value * value
        }
        swap(&self.logMel, &self.previousLogMel)
        hasPreviousSubframe = true
        block.subframeCount += 1

        pendingEnvelopeEnergy += pass.envelope
        pendingEnvelopeCount += 1
        if pendingEnvelopeCount == AnalysisGrid.subframesPerSecond / Self.envelopeRateHz {
            breathingEnvelope.append(Self.decibels(power: pendingEnvelopeEnergy / Float(pendingEnvelopeCount)))
            pendingEnvelopeEnergy = 0
            pendingEnvelopeCount = 0
        }
    }

    // MARK: - Windows

    private func computeWindow(first: Int, second: Int?, into features: inout FeatureVector) {
        let a = blocks[first]
        let b = second.map { blocks[$0] }
        let sampleCount = a.sampleCount + (b?.sampleCount ?? 0)
        let sumSquares = a.sumSquares + (b?.sumSquares ?? 0)
        let peak = max(a.peak, b?.peak ?? 0)
        let rms = Self.decibels(power: Float(sumSquares / Double(sampleCount)))
        let peakDbfs = Self.decibels(amplitude: peak)

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

        let floorBefore = noiseFloor.floorDbfs ?? p10
        features[.rmsDbfs] = rms
        features[.peakDbfs] = peakDbfs
        features[.crestDb] = max(0, peakDbfs - rms)
        features[.noiseFloorDbfs] = floorBefore
        features[.snrDb] = rms - floorBefore
        features[.levelRangeDb] = p90 - p10
        features[.onsetStrengthDb] = onsetStrength(count: levelCount)
        var active = 0
        for index in 0..<levelCount where levels[index] > floorBefore + 10 { active += 1 }
        features[.activeFraction] = Float(active) / Float(levelCount)
        features[.syllabicModulation] = syllabicModulation(count: levelCount)
        features[.zeroCrossingRate] = Float(a.zeroCrossings + (b?.zeroCrossings ?? 0)) / Float(sampleCount)

        let subframes = a.subframeCount + (b?.subframeCount ?? 0)
        let scale = 1 / Float(subframes)
        for bin in windowPower.indices { windowPower[bin] = (a.powerSum[bin] + (b?.powerSum[bin] ?? 0)) * scale }
        if rms < Self.noSignalDbfs {
            for id in Self.spectralShapeFeatures { features[id] = 0 }
        } else {
            for band in 0..<Self.melBands { windowLogMel[band] = (a.logMelSum[band] + (b?.logMelSum[band] ?? 0)) * scale }
            melFilters.cepstrum(windowLogMel, into: &features)
            let fluxCount = a.melFluxCount + (b?.melFluxCount ?? 0)
            features[.melFlux] = fluxCount > 0 ? (a.melFluxSum + (b?.melFluxSum ?? 0)) / Float(fluxCount) : 0
            for (k, id) in FeatureID.mfccSpreads.enumerated() {
                let mean = (a.cepstrumSum[k] + (b?.cepstrumSum[k] ?? 0)) * scale
                let meanSquare = (a.cepstrumSquares[k] + (b?.cepstrumSquares[k] ?? 0)) * scale
                features[id] = max(0, meanSquare - mean * mean).squareRoot()
            }
            computeSpectralShape(into: &features)
            features[.spectralFlux] = (a.fluxSum + (b?.fluxSum ?? 0)) * scale
            features[.tonality] = (a.tonalitySum + (b?.tonalitySum ?? 0)) * scale
            features[.tonalFraction] = Float(a.tonalSubframes + (b?.tonalSubframes ?? 0)) * scale
            computeHarmonicity(into: &features)
        }

        computeBreathing(into: &features)
        features[.precedingQuietSeconds] = updatePause(loud: features[.snrDb] >= Self.loudSnrDb)
        noiseFloor.update(candidateDbfs: p10)
    }

    private static let spectralShapeFeatures: [FeatureID] = [
        .spectralCentroidHz, .spectralSpreadHz, .spectralFlatness, .spectralRolloffHz, .spectralFlux,
        .dominantFrequencyHz, .tonality, .tonalFraction, .harmonicity, .pitchHz,
        .bandRatio0To250, .bandRatio250To500, .bandRatio500To1k, .bandRatio1kTo2k, .bandRatio2kTo4k, .bandRatio4kUp,
        .lowHighRatioDb, .melFlux,
    ] + FeatureID.mfccs + FeatureID.mfccSpreads

    /// Tracks quiet and loud stretches; returns the quiet before the current loud stretch while it is young.
    private func updatePause(loud: Bool) -> Float {
        let hop = Float(AnalysisGrid.hopSeconds)
        guard loud else {
            quietRunSeconds = min(Self.quietCapSeconds, quietRunSeconds + hop)
            loudRunSeconds = 0
            return 0
        }
        if loudRunSeconds == 0 { quietBeforeLoudSeconds = quietRunSeconds }
        loudRunSeconds += hop
        quietRunSeconds = 0
        return loudRunSeconds <= Self.pauseMemorySeconds ? quietBeforeLoudSeconds : 0
    }

    /// Share of the envelope's modulation power (1–15 Hz) that lies at syllable rates (3–8 Hz).
    private func syllabicModulation(count: Int) -> Float {
        guard count >= AnalysisGrid.microBlocksPerBlock else { return 0 }
        var mean: Float = 0
        for index in 0..<count { mean += levels[index] }
        mean /= Float(count)
        var syllabic: Float = 0, total: Float = 0
        for frequency in 1...15 {
            var re: Float = 0, im: Float = 0
            let cosines = Self.modulationCosines[frequency - 1], sines = Self.modulationSines[frequency - 1]
            for index in 0..<count {
                let value = levels[index] - mean
                re += value * cosines[index]
                im -= value * sines[index]
            }
            let power = re * re + im * im
            total += power
            if (3...8).contains(frequency) { syllabic += power }
        }
        return total > 1e-6 ? syllabic / total : 0
    }

    /// `cos` and `sin` of 2π f m / 100 for f = 1...15 Hz and the 100 micro-blocks of a window, computed once.
    private static let modulationCosines: [[Float]] = (1...15).map { frequency in
        (0..<(2 * AnalysisGrid.microBlocksPerBlock)).map {
            Float(cos(2 * Double.pi * Double(frequency) * Double($0) / Double(AnalysisGrid.microBlocksPerSecond)))
        }
    }
    private static let modulationSines: [[Float]] = (1...15).map { frequency in
        (0..<(2 * AnalysisGrid.microBlocksPerBlock)).map {
            Float(sin(2 * Double.pi * Double(frequency) * Double($0) / Double(AnalysisGrid.microBlocksPerSecond)))
        }
    }

    private func onsetStrength(count: Int) -> Float {
        var strongest: Float = 0
        guard count > 3 else { return 0 }
        for index in 3..<count {
            let before = (levels[index - 1] + levels[index - 2] + levels[index - 3]) / 3
            strongest = max(strongest, levels[index] - before)
        }
        return strongest
    }

    private func computeSpectralShape(into features: inout FeatureVector) {
        let bins = windowPower.count
        var total: Float = 0, weighted: Float = 0
        var dominant = minBin
        for bin in minBin..<bins {
            let value = windowPower[bin]
            total += value
            weighted += value * Float(bin) * binHz
            if value > windowPower[dominant] { dominant = bin }
        }
        let logSum = windowPower.withUnsafeBufferPointer { Self.sumOfLogs($0, from: minBin, to: bins, adding: 1e-20) }
        guard total > 0 else {
            for id in Self.spectralShapeFeatures { features[id] = 0 }
            return
        }
        let centroid = weighted / total
        var spreadSum: Float = 0
        var cumulative: Float = 0
        var rolloff: Float = 0
        var rolloffFound = false
        var lowEnergy: Float = 0
        for bin in minBin..<bins {
            let frequency = Float(bin) * binHz
            let value = windowPower[bin]
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
            if lower < upper { for bin in lower..<upper { energy += windowPower[bin] } }
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
    }

    /// `Σ ln(values[i] + floor)` for `i` in `start..<end` (values ≥ 0), with one logarithm per 32 values instead
    /// of one each: every value splits into its binary exponent, summed exactly as an integer, and its mantissa
    /// in [1, 2), multiplied 32 at a time (the product stays below 2³²).
    public static func sumOfLogs(_ values: UnsafeBufferPointer<Float>, from start: Int, to end: Int, adding floor: Float) -> Float {
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

    private func computeHarmonicity(into features: inout FeatureVector) {
        for bin in 0..<minBin { windowPower[bin] = 0 }
        windowPower.withUnsafeBufferPointer { power in
            autocorrelation.withUnsafeMutableBufferPointer { output in
                analyzer.autocorrelation(power: power, into: output)
            }
        }
        let zeroLag = autocorrelation[0]
        guard zeroLag > 0 else {
            features[.harmonicity] = 0
            features[.pitchHz] = 0
            return
        }
        var best: Float = 0
        var bestLag = 0
        for lag in pitchLags {
            let value = autocorrelation[lag] / zeroLag / windowAutocorrelation[lag]
            // Only a local maximum is a period; the slope down from lag 0 is not.
            guard value > best, autocorrelation[lag] >= autocorrelation[lag - 1],
                  autocorrelation[lag] >= autocorrelation[lag + 1] else { continue }
            best = value
            bestLag = lag
        }
        features[.harmonicity] = min(1, best)
        features[.pitchHz] = bestLag > 0 ? Float(grid.sampleRate) / Float(bestLag) : 0
    }

    private func computeBreathing(into features: inout FeatureVector) {
        let minimumLag = 2 * Self.envelopeRateHz
        let count = breathingEnvelope.count
        guard count >= 8 * Self.envelopeRateHz else {
            features[.breathingPeriodicity] = 0
            features[.breathingPeriodSeconds] = 0
            return
        }
        let maximumLag = min(8 * Self.envelopeRateHz, count - 4 * Self.envelopeRateHz)
        var best: Float = 0
        var bestLag = 0
        let values = envelopeScratch
        _ = breathingEnvelope.copyOrdered(into: values)
        let (mean, variance) = Self.meanAndVariance(UnsafeBufferPointer(rebasing: values[0..<count]))
        for index in 0..<count { values[index] -= mean }
        for lag in minimumLag...maximumLag {
            let value = Self.normalisedAutocorrelation(centered: UnsafeBufferPointer(rebasing: values[0..<count]), lag: lag,
                                                       variance: variance)
            breathingScores[lag - minimumLag] = value
            if value > best { best = value; bestLag = lag }
        }
        // A rhythm of period T also correlates at 2T: prefer the shortest lag nearly as strong as the best.
        for lag in minimumLag..<max(minimumLag, bestLag) where breathingScores[lag - minimumLag] >= 0.9 * best {
            let value = breathingScores[lag - minimumLag]
            let previous = lag > minimumLag ? breathingScores[lag - minimumLag - 1] : -1
            let next = breathingScores[lag - minimumLag + 1]
            if value >= previous, value >= next { bestLag = lag; break }
        }
        features[.breathingPeriodicity] = min(1, best)
        features[.breathingPeriodSeconds] = bestLag > 0 ? Float(bestLag) / Float(Self.envelopeRateHz) : 0
    }

    /// Mean and sum of squared deviations of `values`.
    static func meanAndVariance(_ values: UnsafeBufferPointer<Float>) -> (Float, Float) {
        var mean: Float = 0
        for value in values { mean += value }
        mean /= Float(max(1, values.count))
        var variance: Float = 0
        for value in values { variance += (value - mean) * (value - mean) }
        return (mean, variance)
    }

    /// `(Σ_t d_t d_t+lag / (n - lag)) / (variance / n)` for deviations from the mean `d` (`variance` their sum
    /// of squares); 0 for a constant sequence. Four partial sums, so that the products need not wait on each other.
    static func normalisedAutocorrelation(centered values: UnsafeBufferPointer<Float>, lag: Int, variance: Float) -> Float {
        let count = values.count
        guard lag < count, variance > 1e-6 * Float(count) else { return 0 }
        let terms = count - lag
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var index = 0
        while index + 4 <= terms {
            s0 += values[index] * values[index + lag]
            s1 += values[index + 1] * values[index + 1 + lag]
            s2 += values[index + 2] * values[index + 2 + lag]
            s3 += values[index + 3] * values[index + 3 + lag]
            index += 4
        }
        while index < terms {
            s0 += values[index] * values[index + lag]
            index += 1
        }
        return (((s0 + s1) + (s2 + s3)) / Float(terms)) / (variance / Float(count))
    }

    static func decibels(power: Float) -> Float {
        power > 0 ? max(minimumDbfs, 10 * log10(power)) : minimumDbfs
    }

    static func decibels(amplitude: Float) -> Float {
        amplitude > 0 ? max(minimumDbfs, 20 * log10(amplitude)) : minimumDbfs
    }
}
