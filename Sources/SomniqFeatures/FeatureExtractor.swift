import CVectorMath
import Foundation

/// Turns a stream of half-second sample blocks into one `FeatureVector` per analysis window.
///
/// Feed blocks in order with `consume(_:into:)` (every block complete, as `AnalysisGrid` cuts
/// them, except possibly the last), then call `finish(into:)`. Each call that completes a window
/// fills the vector and returns `true`. Work per block is fixed and nothing is allocated after
/// `init`: each sub-frame is transformed once and serves both windows it belongs to.
///
/// The extractor cuts, transforms and sums; each family of features is its own type, reading what the blocks
/// keep: `LevelFeatures` (level and time course), `SpectralShape`, `PitchEstimator` (harmonicity and pitch),
/// `CepstralFeatures` (MFCCs, mel flux and their spread), `MelShape` (the mel bands' shape, spread and change), `OctaveFlatness`, `RoomSubtractedSpectrum` (the sound with the room taken off),
/// `BreathingRhythm` and `PauseTracker` (causal context), `ToneSteadiness` (whether a tone holds its pitch),
/// `AlarmPattern` (a standard alarm's temporal pattern, causal).
/// Tonality, tonal fraction and spectral flux come straight from the sub-frame pass that also feeds them.
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
    private let envelopeBandEndBin: Int
    private let peakHalfWidthBins: Int

    // The families.
    private var level = LevelFeatures()
    private let shape: SpectralShape
    private let pitch: PitchEstimator
    private let cepstrum: CepstralFeatures
    private let melShape = MelShape(bands: CepstralFeatures.bands)
    private let octaveFlatness: OctaveFlatness
    private let roomSubtracted: RoomSubtractedSpectrum
    private let steadiness: ToneSteadiness
    private let alarm: AlarmPattern
    private let breathing = BreathingRhythm()
    private var pause = PauseTracker()
    /// Whether the spectrum's shape band by band (`FeatureID.bandShapes`: `MelShape`, `OctaveFlatness`) is measured;
    /// when not, those features are NaN.
    private let measuresBandShapes: Bool

    // Scratch, reused for every sub-frame and window. The per-sub-frame buffers are raw memory owned by the
    // extractor: the hot loops then index plain pointers, with no copy-on-write check per element.
    private let power: UnsafeMutableBufferPointer<Float>
    private var magnitude: UnsafeMutableBufferPointer<Float>
    private var previousMagnitude: UnsafeMutableBufferPointer<Float>
    private var hasPreviousSubframe = false
    private var windowPower: [Float]

    private let blocks: [BlockSummary]
    private var blocksConsumed: Int64 = 0
    private var lastSample: Float = 0

    /// `bandShapes: false` leaves the 78 features of `FeatureID.bandShapes` unmeasured (NaN), for a model that reads
    /// none of them (about 2% of an analysis's CPU; docs/performance.md).
    public init(sampleRate: Int, bandShapes: Bool = true) {
        measuresBandShapes = bandShapes
        grid = AnalysisGrid(sampleRate: sampleRate)
        let frameLength = grid.subframeLength
        let fftSize = Self.fftSize(sampleRate: sampleRate)
        analyzer = SpectralFrameAnalyzer(fftSize: fftSize)
        hann = SpectralFrameAnalyzer.hannWindow(length: frameLength)
        let binHz = Float(sampleRate) / Float(fftSize)
        let bins = analyzer.binCount
        shape = SpectralShape(binHz: binHz, binCount: bins)
        pitch = PitchEstimator(sampleRate: sampleRate, window: hann, fftSize: fftSize)
        cepstrum = CepstralFeatures(binHz: binHz, binCount: bins)
        octaveFlatness = OctaveFlatness(binHz: binHz, binCount: bins)
        roomSubtracted = RoomSubtractedSpectrum(filters: cepstrum.filters, bands: CepstralFeatures.bands)
        steadiness = ToneSteadiness(binHz: binHz, binCount: bins, minBin: shape.minBin)
        envelopeBandEndBin = min(bins, max(1, Int((1000 / binHz).rounded(.up))))
        peakHalfWidthBins = Int((2 * Double(fftSize) / Double(frameLength)).rounded(.up))
        alarm = AlarmPattern(binHz: binHz, minBin: shape.minBin, halfWidthBins: peakHalfWidthBins)

        func zeroed(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
            buffer.initialize(repeating: 0)
            return buffer
        }
        power = zeroed(bins)
        magnitude = zeroed(bins)
        previousMagnitude = zeroed(bins)
        windowPower = [Float](repeating: 0, count: bins)
        blocks = [BlockSummary(binCount: bins, melBands: CepstralFeatures.bands),
                  BlockSummary(binCount: bins, melBands: CepstralFeatures.bands)]
    }

    /// Points of the sub-frame transform at `sampleRate`. The pitch search reads the autocorrelation up to
    /// its highest lag + 1; a circular one of `fftSize` points is the true one wherever `lag + frameLength <=
    /// fftSize`, so that much padding and no more.
    public static func fftSize(sampleRate: Int) -> Int {
        SpectralFrameAnalyzer.fftSize(atLeast: AnalysisGrid(sampleRate: sampleRate).subframeLength
                                          + PitchEstimator.highestLag(sampleRate: sampleRate) + 1)
    }

    deinit {
        for buffer in [power, magnitude, previousMagnitude] { buffer.deallocate() }
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
    /// before). Four running sums, lane `k` adding the samples at `start + k`, `start + k + 4`, ... in turn, so that
    /// consecutive samples do not wait on each other's additions (the lanes of one vector: the same additions in
    /// the same order as four scalar sums); a crossing is counted without a branch (noise would mispredict half of
    /// them), four at a time against the samples one before.
    @inline(__always)
    static func levelStatistics(_ samples: UnsafeBufferPointer<Float>, from start: Int, to end: Int,
                                previous first: Float) -> (sumSquares: Float, peak: Float, crossings: Int) {
        typealias Four = SIMD4<Float>
        let x = samples.baseAddress!
        @inline(__always) func load(_ index: Int) -> Four { UnsafeRawPointer(x + index).loadUnaligned(as: Four.self) }
        @inline(__always) func magnitude(_ v: Four) -> Four {
            unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: Four.self)
        }
        var sums = Four(), peaks = Four(), crossings = SIMD4<Int32>()
        @inline(__always) func add(_ v: Four, before: Four) {
            sums += v * v
            let m = magnitude(v)
            peaks.replace(with: m, where: m .> peaks)
            crossings &+= SIMD4<Int32>(repeating: 0).replacing(with: 1, where: (v .< 0) .!= (before .< 0))
        }
        var index = start
        if index + 4 <= end {
            let v = load(index)
            add(v, before: Four(first, v[0], v[1], v[2]))
            index += 4
        }
        while index + 8 <= end {
            add(load(index), before: load(index - 1))
            add(load(index + 4), before: load(index + 3))
            index += 8
        }
        if index + 4 <= end {
            add(load(index), before: load(index - 1))
            index += 4
        }
        var previous = index > start ? x[index - 1] : first
        var s0 = sums[0], p0 = peaks[0], count = Int(crossings.wrappedSum())
        while index < end {
            let value = x[index]
            s0 += value * value
            p0 = max(p0, abs(value))
            count += (value < 0) != (previous < 0) ? 1 : 0
            previous = value
            index += 1
        }
        return ((s0 + sums[1]) + (sums[2] + sums[3]), max(max(p0, peaks[1]), max(peaks[2], peaks[3])), count)
    }

    typealias Lanes = SIMD8<Float>

    /// One pass over a sub-frame's power spectrum, eight bins at a time: adds it to the block's running sum (every
    /// bin), and from `firstBin` up totals the power, finds the strongest bin (the first, on a tie), totals the
    /// power below `envelopeEndBin`, writes the magnitudes (their square roots taken first, four at a time:
    /// `somniq_square_roots`) and totals them and their rise over the previous ones.
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
        somniq_square_roots(p + firstBin, m + firstBin, bins - firstBin)
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
            let root = load(m, bin), before = load(previous, bin)
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
            let root = m[bin]
            magnitudeSum += root
            riseSum += max(0, root - previous[bin])
            bin += 1
        }
        return (totalSum, peakBin, envelopeSum, magnitudeSum, riseSum)
    }

    /// Mean power under which a sub-frame is a gap (`noSignalDbfs`).
    private static let noSignalPower = Float(pow(10, Double(noSignalDbfs) / 10))
    /// A sub-frame is tonal (`tonal_fraction` counts it) from this tonality on: its strongest peak's main lobe holds
    /// half its power.
    static let tonalTonality: Float = 0.5

    private func analyzeSubframe(_ frame: UnsafeBufferPointer<Float>, into block: BlockSummary) {
        block.subframeCount += 1
        let sumSquares = frame.sumOfSquares()
        if sumSquares < Self.noSignalPower * Float(frame.count) {
            // Digital silence: a gap in the recording (an edit, padding, a recorder's gate), not a sub-frame of the
            // sound, nor of the room. Its spectrum, and the change into or out of it, would describe the edit: the
            // window's spectral means, spectral and mel flux, cepstral spread, tonality and room leave it out.
            block.gapSubframes += 1
            hasPreviousSubframe = false
            breathing.add(lowBandPower: 0)
            alarm.add(power: nil, peakBin: 0)
            return
        }
        let power = self.power, magnitude = self.magnitude, previousMagnitude = self.previousMagnitude
        hann.withUnsafeBufferPointer { window in analyzer.powerSpectrum(frame: frame, window: window, into: power) }
        let bins = power.count
        let pass = block.powerSum.withUnsafeMutableBufferPointer { sum in
            Self.spectrumPass(power: power, sum: sum, magnitude: magnitude, previousMagnitude: previousMagnitude,
                              firstBin: shape.minBin, envelopeEndBin: envelopeBandEndBin)
        }
        var peakEnergy: Float = 0
        for bin in max(shape.minBin, pass.peakBin - peakHalfWidthBins)...min(bins - 1, pass.peakBin + peakHalfWidthBins) {
            peakEnergy += power[bin]
        }
        let tonality = pass.total > 0 ? peakEnergy / pass.total : 0
        block.tonalitySum += tonality
        if tonality >= Self.tonalTonality { block.tonalSubframes += 1 }
        steadiness.add(power: power, peakBin: pass.peakBin, tonality: tonality, level: sumSquares / Float(frame.count),
                       follows: hasPreviousSubframe, to: block)
        alarm.add(power: power, peakBin: pass.peakBin)
        if hasPreviousSubframe, pass.magnitudeSum > 0 { block.fluxSum += min(1, pass.rise / pass.magnitudeSum) }
        swap(&self.magnitude, &self.previousMagnitude)

        cepstrum.add(UnsafeBufferPointer(power), follows: hasPreviousSubframe, to: block)
        if measuresBandShapes {
            melShape.add(logMel: cepstrum.latestLogMel, follows: hasPreviousSubframe, to: block)
            octaveFlatness.add(UnsafeBufferPointer(power), strongest: power[pass.peakBin], to: block)
        }
        hasPreviousSubframe = true
        breathing.add(lowBandPower: pass.envelope)
    }

    // MARK: - Windows

    private func computeWindow(first: Int, second: Int?, into features: inout FeatureVector) {
        let a = blocks[first]
        let b = second.map { blocks[$0] }
        level.measure(a, b, into: &features)

        // Means over the sub-frames that hold signal: a gap's (digital silence) would only dilute them.
        let heard = a.subframeCount - a.gapSubframes + (b.map { $0.subframeCount - $0.gapSubframes } ?? 0)
        let scale = 1 / Float(max(1, heard))
        for bin in windowPower.indices { windowPower[bin] = (a.powerSum[bin] + (b?.powerSum[bin] ?? 0)) * scale }
        if features[.rmsDbfs] < Self.noSignalDbfs || heard == 0 {
            Self.clearSpectralShape(&features)
        } else {
            cepstrum.measure(a, b, scale: scale, into: &features)
            if measuresBandShapes {
                melShape.measure(a, b, scale: scale, meanLogMel: cepstrum.windowLogMel, into: &features)
                octaveFlatness.measure(a, b, scale: scale, into: &features)
            }
            roomSubtracted.measure(a, b, scale: scale, into: &features)
            if !shape.measure(windowPower, into: &features) {
                Self.clearSpectralShape(&features)
            }
            features[.spectralFlux] = (a.fluxSum + (b?.fluxSum ?? 0)) * scale
            features[.tonality] = (a.tonalitySum + (b?.tonalitySum ?? 0)) * scale
            features[.tonalFraction] = Float(a.tonalSubframes + (b?.tonalSubframes ?? 0)) * scale
            steadiness.measure(a, b, into: &features)
            pitch.measure(&windowPower, minBin: shape.minBin, analyzer: analyzer, into: &features)
        }

        if !measuresBandShapes {
            for id in FeatureID.bandShapes { features[id] = .nan }
        }
        breathing.measure(into: &features)
        alarm.measure(into: &features)
        features[.precedingQuietSeconds] = pause.precedingQuiet(snrDb: features[.snrDb])
    }

    /// A window with no spectrum to read: every feature read from it 0, and no sound over the room.
    private static func clearSpectralShape(_ features: inout FeatureVector) {
        for id in spectralShapeFeatures { features[id] = 0 }
        features[.cleanShareDb] = RoomSubtractedSpectrum.nothingStandsOutDb
    }

    /// Every feature read from the spectrum: 0 where the window holds no signal (`clean_share_db` aside).
    private static let spectralShapeFeatures: [FeatureID] = [
        .spectralCentroidHz, .spectralSpreadHz, .spectralFlatness, .spectralRolloffHz, .spectralFlux,
        .dominantFrequencyHz, .tonality, .tonalFraction, .toneSteadiness, .harmonicity, .pitchHz,
        .bandRatio0To250, .bandRatio250To500, .bandRatio500To1k, .bandRatio1kTo2k, .bandRatio2kTo4k, .bandRatio4kUp,
        .lowHighRatioDb, .melFlux,
        .cleanCentroidHz,
    ] + FeatureID.mfccs + FeatureID.mfccSpreads + FeatureID.cleanMfccs
        + FeatureID.melShapes + FeatureID.melShapeSpreads + FeatureID.melShapeChanges + FeatureID.octaveFlatnesses

    static func decibels(power: Float) -> Float {
        power > 0 ? max(minimumDbfs, 10 * log10(power)) : minimumDbfs
    }

    static func decibels(amplitude: Float) -> Float {
        amplitude > 0 ? max(minimumDbfs, 20 * log10(amplitude)) : minimumDbfs
    }
}
