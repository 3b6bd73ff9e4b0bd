import Foundation
@testable import SomniqFeatures
import SomniqSynth
import Testing

/// Runs the extractor over an in-memory signal, cutting it into blocks as the pipeline does.
func extractFeatures(_ samples: [Float], sampleRate: Int) -> [FeatureVector] {
    let extractor = FeatureExtractor(sampleRate: sampleRate)
    var vector = FeatureVector()
    var windows: [FeatureVector] = []
    var start = 0
    var block: Int64 = 0
    while start < samples.count {
        let length = min(extractor.grid.blockLength(block), samples.count - start)
        let done = samples.withUnsafeBufferPointer { buffer in
            extractor.consume(UnsafeBufferPointer(rebasing: buffer[start..<(start + length)]), into: &vector)
        }
        if done { windows.append(vector) }
        start += length
        block += 1
    }
    if extractor.finish(into: &vector) { windows.append(vector) }
    return windows
}

func median(_ values: [Float]) -> Float { values.sorted()[values.count / 2] }

@Suite struct FeatureExtractorTests {
    /// Left unmeasured, the spectrum's shape band by band is NaN, and every other feature is what it is when measured,
    /// bit for bit (a recording of 44.1 kHz, through the resampler, with snores, a tone and silence in it).
    @Test func bandShapesLeftUnmeasuredChangeNoOtherFeature() {
        var synthesizer = SoundSynthesizer(sampleRate: 44_100, seed: 5)
        let audio = (synthesizer.snore(seconds: 1.2, flutterHz: 40, levelDbfs: -25) + [Double](repeating: 0, count: 22_050)
                     + synthesizer.sine(frequency: 3150, seconds: 2, amplitude: 0.3) + synthesizer.speech(seconds: 3, levelDbfs: -30)
                     + synthesizer.roomNoise(seconds: 2, levelDbfs: -50)).map(Float.init)
        func windows(bandShapes: Bool) -> [FeatureVector] {
            let stream = FeatureStream(sampleRate: 44_100, bandShapes: bandShapes)
            var windows: [FeatureVector] = []
            audio.withUnsafeBufferPointer { stream.consume($0) { windows.append($0) } }
            stream.finish { windows.append($0) }
            return windows
        }
        let measured = windows(bandShapes: true), unmeasured = windows(bandShapes: false)
        #expect(measured.count == unmeasured.count && measured.count >= 10)
        for (full, partial) in zip(measured, unmeasured) {
            for id in FeatureID.allCases {
                if FeatureID.bandShapes.contains(id) {
                    #expect(partial[id].isNaN, "\(id.rawValue) is not measured")
                } else {
                    #expect(full[id].bitPattern == partial[id].bitPattern, "\(id.rawValue): \(full[id]) against \(partial[id])")
                }
            }
        }
        #expect(measured.contains { !$0[.melShape5].isNaN && $0[.melShape5] != 0 }, "measured, they hold values")
        #expect(FeatureID.bandShapes.count == 78)
    }

    @Test(arguments: [(8_000, 440.0), (16_000, 1000.0), (44_100, 3150.0), (48_000, 200.0)])
    func aSinesCentroidIsItsFrequency(sampleRate: Int, frequency: Double) {
        let sine = SoundSynthesizer(sampleRate: sampleRate, seed: 0).sine(frequency: frequency, seconds: 3, amplitude: 0.5).map(Float.init)
        let windows = extractFeatures(sine, sampleRate: sampleRate)
        for window in windows.dropLast() {
            #expect(abs(Double(window[.spectralCentroidHz]) - frequency) < 0.02 * frequency + 5,
                    "centroid \(window[.spectralCentroidHz]) for \(frequency) Hz at \(sampleRate) Hz")
            let binHz = Double(sampleRate) / Double(FeatureExtractor(sampleRate: sampleRate).fftSize)
            #expect(abs(Double(window[.dominantFrequencyHz]) - frequency) <= binHz / 2 + 0.01, "the nearest bin")
            #expect(window[.tonality] > 0.9)
            #expect(window[.tonalFraction] == 1)
            #expect(window[.spectralFlatness] < 0.01)
            #expect(abs(window[.rmsDbfs] - (-9.03)) < 0.05, "a 0.5-amplitude sine is -9.03 dBFS")
            #expect(abs(window[.crestDb] - 3.01) < 0.3, "sample peak, so a little under the true peak at high frequencies")
        }
    }

    @Test func aLowSinesPitchIsItsFrequency() {
        let sine = SoundSynthesizer(sampleRate: 16_000, seed: 0).sine(frequency: 200, seconds: 2).map(Float.init)
        let windows = extractFeatures(sine, sampleRate: 16_000)
        #expect(abs(windows[1][.pitchHz] - 200) < 3)
        #expect(windows[1][.harmonicity] > 0.95)
        #expect(windows[1][.bandRatio0To250] > 0.99)
    }

    /// 65 Hz is near the longest lag the pitch search reads (1/60 s): the padding must keep it free of wrap-around.
    @Test(arguments: [8_000, 16_000, 22_050, 44_100, 48_000])
    func aLowBuzzsPitchIsFoundAtEveryRate(sampleRate: Int) {
        let frequency = 65.0
        let buzz = (0..<(3 * sampleRate)).map { index -> Float in
            let phase = (Double(index) * frequency / Double(sampleRate)).truncatingRemainder(dividingBy: 1)
            return Float(0.3 * (2 * phase - 1))  // a sawtooth: every harmonic of 65 Hz
        }
        let windows = extractFeatures(buzz, sampleRate: sampleRate)
        for window in windows.dropLast() {
            #expect(abs(window[.pitchHz] - Float(frequency)) < 1, "pitch \(window[.pitchHz]) Hz at \(sampleRate) Hz")
            #expect(window[.harmonicity] > 0.9)
        }
    }

    @Test(arguments: [8_000, 16_000, 44_100])
    func whiteNoiseIsFlat(sampleRate: Int) {
        var synth = SoundSynthesizer(sampleRate: sampleRate, seed: 7)
        let noise = synth.whiteNoise(seconds: 3, levelDbfs: -20).map(Float.init)
        let windows = extractFeatures(noise, sampleRate: sampleRate)
        #expect(median(windows.map { $0[.spectralFlatness] }) > 0.85)
        #expect(median(windows.map { $0[.tonality] }) < 0.1)
        #expect(median(windows.map { $0[.harmonicity] }) < 0.3)
        #expect(abs(median(windows.map { $0[.rmsDbfs] }) - (-20)) < 0.3)
        let nyquist = Float(sampleRate) / 2
        #expect(abs(median(windows.map { $0[.spectralCentroidHz] }) - nyquist / 2) < 0.05 * nyquist)
        #expect(abs(median(windows.map { $0[.zeroCrossingRate] }) - 0.5) < 0.03)
    }

    @Test func digitalSilenceIsFiniteAndShapeless() {
        let windows = extractFeatures([Float](repeating: 0, count: 16_000 * 2), sampleRate: 16_000)
        #expect(windows.count == 4)
        for window in windows {
            #expect(window.values.allSatisfy { $0.isFinite })
            #expect(window[.rmsDbfs] == FeatureExtractor.minimumDbfs)
            #expect(window[.spectralFlatness] == 0)
            #expect(window[.spectralCentroidHz] == 0)
            #expect(window[.snrDb] == 0)
            #expect(window[.cleanShareDb] == -30, "no sound stands over the room")
        }
    }

    /// Digital silence is an edit (padding, a cut, a recorder's gate), not part of a sound: a window half in a gap reads
    /// the spectrum and time course of the sound it holds, as a window wholly in the sound does.
    @Test func aGapOfDigitalSilenceIsNotPartOfTheSound() {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 11)
        let sound = synth.roomNoise(seconds: 2, levelDbfs: -30).map(Float.init)
        let windows = extractFeatures(sound + [Float](repeating: 0, count: 2 * 16_000), sampleRate: 16_000)
        let whole = windows[2], half = windows[3]  // 1.0–2.0 s: the sound; 1.5–2.5 s: half of it, then the gap
        #expect(abs(half[.levelRangeDb] - whole[.levelRangeDb]) < 2, "\(half[.levelRangeDb]) vs \(whole[.levelRangeDb])")
        for id in FeatureID.mfccs.prefix(4) + [.melFlux, .spectralFlux, .tonality] {
            #expect(abs(half[id] - whole[id]) <= 0.15 * abs(whole[id]) + 0.1, "\(id): \(half[id]) vs \(whole[id])")
        }
        // Spreads from half the sub-frames scatter more, but the step into the gap must not inflate them.
        for id in FeatureID.mfccSpreads + [.syllabicModulation] {
            #expect(half[id] <= 1.5 * whole[id] + 0.1, "\(id): \(half[id]) vs \(whole[id])")
        }
        #expect(windows[5][.rmsDbfs] == FeatureExtractor.minimumDbfs, "the gap alone is no signal")
    }

    /// A rise out of digital silence is where an edit cut the recording; a rise out of a room, however quiet, is an onset.
    @Test func aRiseOutOfAGapIsNoOnsetAndOutOfARoomIsOne() {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 12)
        let sound = synth.roomNoise(seconds: 2, levelDbfs: -30).map(Float.init)
        let gap = [Float](repeating: 0, count: 2 * 16_000)
        let room = synth.roomNoise(seconds: 2, levelDbfs: -90).map(Float.init)
        let afterGap = extractFeatures(gap + sound, sampleRate: 16_000)[3]  // 1.5–2.5 s
        let afterRoom = extractFeatures(room + sound, sampleRate: 16_000)[3]
        #expect(afterGap[.onsetStrengthDb] < 10, "\(afterGap[.onsetStrengthDb])")
        #expect(afterRoom[.onsetStrengthDb] > 40, "\(afterRoom[.onsetStrengthDb])")
        #expect(afterGap[.snrDb] > 40, "a gap is the quietest room there is")
    }

    @Test(arguments: [(16_000, 16_000 * 3), (16_000, 16_000 * 3 + 100), (16_000, 8_000), (16_000, 4_800), (16_000, 500),
                      (22_050, 22_050 * 2 + 7), (44_100, 44_100), (11_025, 30_000)])
    func emitsOneWindowPerCompleteHalfSecond(sampleRate: Int, frames: Int) {
        let windows = extractFeatures([Float](repeating: 0.01, count: frames), sampleRate: sampleRate)
        let grid = AnalysisGrid(sampleRate: sampleRate)
        #expect(windows.count == grid.windowCount(frameCount: Int64(frames)))
        #expect(windows.count == max(1, 2 * frames / sampleRate))
    }

    @Test func featuresMeanTheSameAtEverySampleRate() {
        var results: [[Float]] = []
        for rate in [16_000, 44_100, 48_000] {
            let synth = SoundSynthesizer(sampleRate: rate, seed: 3)
            let alarm = synth.smokeAlarm(seconds: 4, levelDbfs: -20).map(Float.init)
            let windows = extractFeatures(alarm, sampleRate: rate)
            results.append([windows[1][.dominantFrequencyHz], windows[1][.tonalFraction], windows[1][.rmsDbfs]])
        }
        for result in results.dropFirst() {
            #expect(abs(result[0] - results[0][0]) < 30)
            #expect(result[1] == results[0][1])
            #expect(abs(result[2] - results[0][2]) < 0.2)
        }
    }

    @Test func aBurstAfterAPauseReportsThePause() {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 5)
        var signal = synth.roomNoise(seconds: 20, levelDbfs: -60)
        let burst = synth.gasp(levelDbfs: -15)
        for (index, value) in burst.enumerated() { signal[12 * 16_000 + index] += value }
        let windows = extractFeatures(signal.map(Float.init), sampleRate: 16_000)
        let burstWindow = windows[24]  // 12.0–13.0 s
        #expect(burstWindow[.snrDb] > 20)
        #expect(burstWindow[.precedingQuietSeconds] >= 10)
        #expect(windows[20][.precedingQuietSeconds] == 0, "quiet windows report no pause")
        #expect(windows[30][.precedingQuietSeconds] == 0, "a quiet window after the burst reports none")
    }

    @Test func rhythmicBurstsShowTheBreathingPeriod() {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 9)
        var signal = synth.roomNoise(seconds: 30, levelDbfs: -60)
        for onset in stride(from: 1.0, to: 29.0, by: 4.0) {
            let snore = synth.snore(seconds: 1.2, flutterHz: 50, levelDbfs: -25)
            for (index, value) in snore.enumerated() { signal[Int(onset * 16_000) + index] += value }
        }
        let windows = extractFeatures(signal.map(Float.init), sampleRate: 16_000)
        #expect(windows[10][.breathingPeriodicity] == 0, "fewer than 8 s heard")
        for late in windows[40...55] {
            #expect(late[.breathingPeriodicity] > 0.6)
            #expect(abs(late[.breathingPeriodSeconds] - 4) < 0.3)
        }
    }

    @Test func theSameInputGivesTheSameBits() {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 11)
        let speech = synth.speech(seconds: 5, levelDbfs: -25).map(Float.init)
        #expect(extractFeatures(speech, sampleRate: 16_000) == extractFeatures(speech, sampleRate: 16_000))
    }
}

@Suite struct SpectralFrameAnalyzerTests {
    @Test func fftSizesAreTheSmallestThreeSmoothAtOrAboveTheLength() {
        func isThreeSmooth(_ size: Int) -> Bool {
            var rest = size
            for factor in [2, 3] { while rest % factor == 0 { rest /= factor } }
            return rest == 1 && size % 8 == 0
        }
        for length in [1, 8, 9, 100, 1_000, 1_268, 1_281, 3_494, 3_801, 5_000] {
            let size = SpectralFrameAnalyzer.fftSize(atLeast: length)
            #expect(size >= length && isThreeSmooth(size))
            #expect(!(max(8, length)..<size).contains(where: isThreeSmooth), "\(size) for \(length)")
        }
        #expect(SpectralFrameAnalyzer.fftSize(atLeast: 1_268) == 1_296)
    }

    /// The shipped FFTW wisdom is accepted by the installed FFTW and plans the common rates' transforms; a size
    /// it does not cover falls back to FFTW_ESTIMATE; both plans give the same spectrum to float precision.
    @Test func plansFromTheShippedWisdomAndAgreesWithEstimate() {
        #expect(SpectralFrameAnalyzer.shippedWisdomAccepted, "FFTW rejected FFTWisdom.swift: run scripts/make-fftw-wisdom")
        for rate in [8_000, 16_000, 44_100, 48_000] {
            #expect(SpectralFrameAnalyzer(fftSize: FeatureExtractor.fftSize(sampleRate: rate)).plannedFromWisdom, "\(rate) Hz")
        }
        let uncovered = SpectralFrameAnalyzer(fftSize: 1_000)
        #expect(!uncovered.plannedFromWisdom)

        let size = FeatureExtractor.fftSize(sampleRate: 16_000)
        let wise = SpectralFrameAnalyzer(fftSize: size), estimated = SpectralFrameAnalyzer(fftSize: size, useWisdom: false)
        #expect(wise.plannedFromWisdom && !estimated.plannedFromWisdom)
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 8)
        let frame = synth.speech(seconds: 1_000.0 / 16_000, levelDbfs: -20).map(Float.init)
        let window = SpectralFrameAnalyzer.hannWindow(length: frame.count)
        func spectrum(_ analyzer: SpectralFrameAnalyzer) -> [Float] {
            var power = [Float](repeating: 0, count: analyzer.binCount)
            frame.withUnsafeBufferPointer { frame in
                window.withUnsafeBufferPointer { window in
                    power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(frame: frame, window: window, into: $0) }
                }
            }
            return power
        }
        let a = spectrum(wise), b = spectrum(estimated)
        let largest = a.max() ?? 0
        #expect(largest > 0)
        #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 1e-5 * largest })
    }

    /// The autocorrelation through the FFT equals the direct sum at every lag up to fftSize − frame length.
    @Test func autocorrelationIsFreeOfWrapAroundWithinThePadding() {
        let frameLength = 1_000, fftSize = 1_296
        let analyzer = SpectralFrameAnalyzer(fftSize: fftSize)
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 4)
        let frame = synth.whiteNoise(seconds: Double(frameLength) / 16_000, levelDbfs: -10).map(Float.init)
        let flat = [Float](repeating: 1, count: frameLength)
        var power = [Float](repeating: 0, count: analyzer.binCount)
        var output = [Float](repeating: 0, count: fftSize)
        frame.withUnsafeBufferPointer { frame in
            flat.withUnsafeBufferPointer { window in
                power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(frame: frame, window: window, into: $0) }
            }
        }
        power.withUnsafeBufferPointer { power in
            output.withUnsafeMutableBufferPointer { analyzer.autocorrelation(power: power, into: $0) }
        }
        for lag in [0, 1, 100, 266, 296] {
            var direct: Double = 0
            for index in 0..<(frameLength - lag) { direct += Double(frame[index]) * Double(frame[index + lag]) }
            let viaFFT = Double(output[lag]) / Double(fftSize)  // FFTW's inverse is unnormalised
            #expect(abs(viaFFT - direct) < 1e-3 * abs(Double(output[0]) / Double(fftSize)), "lag \(lag)")
        }
        // Beyond the padding the circular sum also holds lag fftSize − lag: at 648 it counts lag 648 twice.
        var beyond: Double = 0
        for index in 0..<(frameLength - 648) { beyond += Double(frame[index]) * Double(frame[index + 648]) }
        #expect(abs(Double(output[648]) / Double(fftSize) - 2 * beyond) < 1e-3 * Double(output[0]) / Double(fftSize))
        #expect(abs(beyond) > 1e-3 * Double(output[0]) / Double(fftSize), "the wrap-around is not negligible")
    }
}

@Suite struct NoiseFloorTrackerTests {
    @Test func followsDownAtOnceAndUpSlowly() {
        var tracker = NoiseFloorTracker()
        tracker.update(candidateDbfs: -50)
        #expect(tracker.floorDbfs == -50)
        tracker.update(candidateDbfs: -60)
        #expect(tracker.floorDbfs == -60)
        tracker.update(candidateDbfs: -20)
        #expect(tracker.floorDbfs == -60 + NoiseFloorTracker.riseDecibelsPerSecond * 0.5)
        for _ in 0..<200 { tracker.update(candidateDbfs: -55) }
        #expect(tracker.floorDbfs == -55, "100 s later a 5 dB rise is background")
    }
}

@Suite struct SelectionTests {
    /// The level percentiles come from selection, not a sort: it must find what a sort puts at k, for every k,
    /// with ties and sorted or reversed input, and leave nothing larger before it or smaller after.
    @Test func selectsWhatASortPutsAtK() {
        var generator = SeededGenerator(seed: 17)
        for trial in 0..<300 {
            let count = 1 + Int(generator.next() % 120)
            var values = (0..<count).map { _ in Float(Int(generator.next() % 40)) - 20 }  // many ties
            if trial % 7 == 0 { values.sort() }
            if trial % 11 == 0 { values.sort(by: >) }
            let sorted = values.sorted()
            let k = Int(generator.next() % UInt64(count))
            var work = values
            work.withUnsafeMutableBufferPointer { LevelFeatures.select(k, in: $0, from: 0, to: count) }
            #expect(work[k] == sorted[k])
            #expect(work[..<k].allSatisfy { $0 <= work[k] } && work[(k + 1)...].allSatisfy { $0 >= work[k] })
            #expect(work.sorted() == sorted, "a permutation")
        }
    }
}

@Suite struct SumOfLogsTests {
    /// The flatness's sum of logarithms, with one logarithm in all: equal to the plain sum to float precision,
    /// over spectra from digital silence (only the floor) to loud tones (tens of orders of magnitude apart).
    @Test func equalsThePlainSumOfLogarithms() {
        var generator = SeededGenerator(seed: 5)
        for trial in 0..<100 {
            let count = 1 + Int(generator.next() % 1_500)
            let values: [Float] = (0..<count).map { _ in
                trial == 0 ? 0 : Float(generator.next() % 1_000_000) / 1_000_000 * pow(10, Float(Int(generator.next() % 30)) - 20)
            }
            let plain = values.reduce(0.0) { $0 + Double(log($1 + 1e-20)) }
            let fast = values.withUnsafeBufferPointer { SpectralShape.sums($0, 0..<count, adding: 1e-20).logSum }
            #expect(abs(Double(fast) - plain) <= 1e-5 * abs(plain) + 1e-3, "\(fast) vs \(plain) for \(count) values")
        }
    }

    /// The one-pass sums equal the plain ones, over spectra from digital silence (only the floor) to loud tones, in ranges
    /// of every length from 0 to 200 bins at every offset of the eight lanes.
    @Test func bothSumsHoldAtEveryLengthAndLaneOffset() {
        var generator = SeededGenerator(seed: 23)
        for trial in 0..<300 {
            let count = 210
            let values: [Float] = (0..<count).map { _ in
                trial % 10 == 0 ? 0 : Float(generator.next() % 1_000_000) / 1_000_000 * pow(10, Float(Int(generator.next() % 30)) - 20)
            }
            let start = Int(generator.next() % 8), length = Int(generator.next() % 201)
            let floor: Float = trial % 3 == 0 ? 1e-20 : 1e-9
            let plainLogs = values[start..<(start + length)].reduce(0.0) { $0 + Double(log($1 + floor)) }
            let plainSum = values[start..<(start + length)].reduce(0.0) { $0 + Double($1) }
            let (logSum, sum) = values.withUnsafeBufferPointer { SpectralShape.sums($0, start..<(start + length), adding: floor) }
            #expect(abs(Double(logSum) - plainLogs) <= 1e-5 * abs(plainLogs) + 1e-3, "\(logSum) vs \(plainLogs) over \(length)")
            #expect(abs(Double(sum) - plainSum) <= 1e-5 * plainSum, "\(sum) vs \(plainSum) over \(length)")
        }
    }
}

@Suite struct FeatureIDTests {
    @Test func eachIndexIsTheCasesPositionInTheDeclaration() {
        #expect(MemoryLayout<FeatureID>.size == 1)
        for (position, id) in FeatureID.allCases.enumerated() { #expect(id.index == position, "\(id)") }
        #expect(FeatureID.count == 165)
    }
}

@Suite struct AnalysisGridTests {
    @Test func tilesOddSampleRatesExactly() {
        let grid = AnalysisGrid(sampleRate: 11_025)
        #expect(grid.blockLength(0) + grid.blockLength(1) == 11_025)
        #expect(grid.subframeOffset(AnalysisGrid.subframesPerBlock) == 11_025 / 2)
        #expect(grid.microBlockOffset(AnalysisGrid.microBlocksPerBlock) == 11_025 / 2)
        #expect(AnalysisGrid.windowStartSeconds(7) == 3.5)
        #expect(AnalysisGrid.windowIndex(atSeconds: 3.7) == 7)
    }

    /// The sub-frame pass writes each bin's magnitude as the square root Swift takes of its power, bit for bit
    /// (taken four at a time in C: `somniq_square_roots`), from `firstBin` up, over every spectrum length near the
    /// vectors' edges, with zeros of both signs, the smallest subnormal and infinity among the powers; and totals
    /// the magnitudes and their rise over the previous ones, and finds the strongest bin, as a scan in bin order.
    @Test func theSubframePassTakesSquareRootsAsSwiftDoes() {
        var state: UInt32 = 777
        func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        for bins in [1, 3, 4, 5, 8, 9, 15, 16, 17, 33, 257] {
            var power = (0..<bins).map { _ in next() * next() * 1e3 }
            for (index, special) in [(2, Float(0)), (5, -Float(0)), (7, Float.leastNonzeroMagnitude), (11, .infinity)]
            where index < bins { power[index] = special }
            let previous = (0..<bins).map { _ in next() * 10 }
            for firstBin in Set([0, min(1, bins - 1), min(3, bins - 1)]) {
                let p = UnsafeMutableBufferPointer<Float>.allocate(capacity: bins)
                let sum = UnsafeMutableBufferPointer<Float>.allocate(capacity: bins)
                let m = UnsafeMutableBufferPointer<Float>.allocate(capacity: bins)
                let before = UnsafeMutableBufferPointer<Float>.allocate(capacity: bins)
                defer { for buffer in [p, sum, m, before] { buffer.deallocate() } }
                _ = p.initialize(from: power)
                _ = before.initialize(from: previous)
                sum.initialize(repeating: 0)
                m.initialize(repeating: -1)
                let pass = FeatureExtractor.spectrumPass(power: p, sum: sum, magnitude: m, previousMagnitude: before,
                                                         firstBin: firstBin, envelopeEndBin: bins)
                let roots = (firstBin..<bins).map { power[$0].squareRoot() }
                #expect(Array(m[firstBin...]).map(\.bitPattern) == roots.map(\.bitPattern), "\(bins) bins from \(firstBin)")
                #expect(Array(sum) == power)
                let strongest = (firstBin..<bins).max { power[$0] < power[$1] || (power[$0] == power[$1] && $0 > $1) }!
                #expect(pass.peakBin == strongest, "\(bins) bins from \(firstBin)")
                if !power.contains(.infinity) {
                    let total = roots.reduce(0, +)
                    let rise = zip(roots, previous[firstBin...]).reduce(Float(0)) { $0 + max(0, $1.0 - $1.1) }
                    #expect(abs(pass.magnitudeSum - total) <= 1e-5 * total && abs(pass.rise - rise) <= 1e-5 * max(1, rise))
                }
            }
        }
    }

    /// The breathing rhythm's autocorrelations taken four lags at a time are each lag's own, bit for bit: every
    /// history length from the search's start to full, lag ranges of every length modulo four, and a flat history.
    @Test func breathingAutocorrelationsFourLagsAtATimeAreEachLagsOwn() {
        var state: UInt32 = 4_242
        var checked = 0
        for count in [20, 64, 65, 66, 67, 97, 128] {
            var values = (0..<count).map { _ -> Float in
                state = state &* 1_664_525 &+ 1_013_904_223
                return Float(state >> 8) / Float(1 << 20) - 8
            }
            let (mean, variance) = values.withUnsafeBufferPointer { BreathingRhythm.meanAndVariance($0) }
            for index in values.indices { values[index] -= mean }
            for lags in [16...64, 16...19, 16...20, 16...21, 16...22, 17...17, 60...70] {
                for spread in [variance, 0] {
                    var scores = [Float](repeating: .nan, count: lags.count)
                    values.withUnsafeBufferPointer { centered in
                        scores.withUnsafeMutableBufferPointer { scores in
                            BreathingRhythm.normalisedAutocorrelations(centered: centered, lags: lags, variance: spread, into: scores)
                        }
                    }
                    let single = lags.map { lag in
                        values.withUnsafeBufferPointer {
                            BreathingRhythm.normalisedAutocorrelation(centered: $0, lag: lag, variance: spread)
                        }
                    }
                    #expect(scores.map(\.bitPattern) == single.map(\.bitPattern), "\(count) values, lags \(lags)")
                    checked += 1
                }
            }
        }
        #expect(checked == 7 * 7 * 2)
    }

    /// The level statistics taken four samples at a time are those of four scalar running sums (lane `k` adding the
    /// samples at `start + k`, `start + k + 4`, ...; the rest into the first), bit for bit: every start and length
    /// near the vector's edges, zeros of both signs, and a run that starts from the last sample before it.
    @Test func levelStatisticsAreThoseOfFourScalarSums() {
        func reference(_ x: [Float], _ start: Int, _ end: Int, _ first: Float) -> (Float, Float, Int) {
            var s: [Float] = [0, 0, 0, 0], p: [Float] = [0, 0, 0, 0]
            var crossings = 0, previous = first, index = start
            while index + 4 <= end {
                for k in 0..<4 {
                    let v = x[index + k]
                    s[k] += v * v
                    p[k] = max(p[k], abs(v))
                    crossings += (v < 0) != (previous < 0) ? 1 : 0
                    previous = v
                }
                index += 4
            }
            while index < end {
                s[0] += x[index] * x[index]
                p[0] = max(p[0], abs(x[index]))
                crossings += (x[index] < 0) != (previous < 0) ? 1 : 0
                previous = x[index]
                index += 1
            }
            return ((s[0] + s[1]) + (s[2] + s[3]), max(max(p[0], p[1]), max(p[2], p[3])), crossings)
        }
        var state: UInt32 = 12_345
        var samples = (0..<200).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 6
        }
        samples[7] = 0
        samples[8] = -0.0
        samples[20] = -0.0
        var checked = 0
        samples.withUnsafeBufferPointer { buffer in
            for start in 0..<12 {
                for length in 0..<90 {
                    for first: Float in [0.25, -0.25, -0.0] {
                        let got = FeatureExtractor.levelStatistics(buffer, from: start, to: start + length, previous: first)
                        let want = reference(samples, start, start + length, first)
                        #expect(got.sumSquares.bitPattern == want.0.bitPattern && got.peak.bitPattern == want.1.bitPattern
                                && got.crossings == want.2, "start \(start), length \(length): \(got) against \(want)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 12 * 90 * 3)
    }
}

/// The sound with the room taken off (`RoomSubtractedSpectrum`): what a fan and road noise under a sound move.
@Suite struct RoomSubtractedSpectrumTests {
    /// Twenty seconds of room, then ten of speech at -25 dBFS over it; the windows of the speech's middle.
    static func speechWindows(roomDbfs: Double) -> [FeatureVector] {
        let rate = 16_000
        var room = SoundSynthesizer(sampleRate: rate, seed: 21)
        var signal = room.roomNoise(seconds: 30, levelDbfs: roomDbfs)
        var voice = SoundSynthesizer(sampleRate: rate, seed: 4)
        for (index, value) in voice.speech(seconds: 10, levelDbfs: -25).enumerated() { signal[20 * rate + index] += value }
        return Array(extractFeatures(signal.map(Float.init), sampleRate: rate)[44..<56])
    }

    static func meanDistance(_ a: [FeatureVector], _ b: [FeatureVector], _ ids: [FeatureID]) -> Float {
        var sum: Float = 0
        for (x, y) in zip(a, b) {
            sum += ids.reduce(0) { $0 + abs(x[$1] - y[$1]) }
        }
        return sum / Float(a.count * ids.count)
    }

    @Test func aRoomUnderASoundMovesItsCleanSpectrumLessThanItsSpectrum() {
        // Road and fan noise 13 dB under the speech moves its first six cepstral coefficients by 0.65 on average
        // (this signal, these seeds); with the room taken off, by 0.39.
        let quiet = Self.speechWindows(roomDbfs: -90)
        let noisy = Self.speechWindows(roomDbfs: -38)
        let plain = Self.meanDistance(quiet, noisy, Array(FeatureID.mfccs.prefix(6)))
        let clean = Self.meanDistance(quiet, noisy, FeatureID.cleanMfccs)
        #expect(clean < 0.7 * plain, "clean \(clean), plain \(plain)")
        for (a, b) in zip(quiet, noisy) {
            #expect(abs(a[.cleanCentroidHz] - b[.cleanCentroidHz]) < 50)
            #expect(a[.cleanShareDb] > -0.5 && b[.cleanShareDb] > -1, "the speech is most of the window")
        }
    }

    @Test func aSoundStandsOverTheRoomAndTheRoomAloneDoesNot() {
        // Once the room is learnt (after its first windows), a room alone keeps about half its energy over "the room"
        // (its quietest moments lie well under its mean, and twice them is not all of it): clean_share_db near -3.
        // Speech 13 dB over the same room is nearly all sound.
        let rate = 16_000
        var room = SoundSynthesizer(sampleRate: rate, seed: 21)
        let alone = extractFeatures(room.roomNoise(seconds: 30, levelDbfs: -38).map(Float.init), sampleRate: rate)
        let roomShare = median(alone.dropFirst(4).map { $0[.cleanShareDb] })
        let speechShare = median(Self.speechWindows(roomDbfs: -38).map { $0[.cleanShareDb] })
        #expect(roomShare < -2 && speechShare > -0.5, "room \(roomShare) dB, speech over it \(speechShare) dB")
    }
}
