import Foundation
import Testing
@testable import SomniqFeatures

/// `samples` handed to `converter` in calls of `pieces`' sizes (taken in turn), then the end: what it made.
func streamed(_ samples: [Float], pieces: [Int], through converter: StreamingRateConversion) -> [Float] {
    var result: [Float] = []
    var start = 0, piece = 0
    samples.withUnsafeBufferPointer { buffer in
        while start < samples.count {
            let end = min(samples.count, start + pieces[piece % pieces.count])
            converter.process(UnsafeBufferPointer(rebasing: buffer[start..<end])) { result.append(contentsOf: $0) }
            start = end
            piece += 1
        }
    }
    converter.finish { result.append(contentsOf: $0) }
    return result
}

/// The level of the middle half of `samples`, in dB of full scale's square.
func level(_ samples: [Float]) -> Double {
    let middle = samples[samples.count / 4..<(3 * samples.count / 4)]
    return 10 * log10(middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count))
}

/// `seconds` of a sine of `frequency` Hz at `rate`.
func tone(_ frequency: Double, rate: Int, seconds: Double = 1, amplitude: Double = 1) -> [Float] {
    (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
}

/// The resampler against what a band-limited interpolator must do: keep the pass band (level and timing), keep
/// what lies above the output's Nyquist frequency from folding back, and give the same samples however the
/// stream is cut into calls.
@Suite struct ResamplerTests {
    /// Rate pairs the analysis meets: the common downsamplings to 8 kHz, equal rates, upsampling from 4 kHz, and
    /// a pair whose phases are rounded (more than `maximumPhases` of them).
    static let ratePairs: [(Int, Int)] = [(16_000, 8_000), (44_100, 8_000), (48_000, 8_000), (22_050, 8_000),
                                          (32_000, 8_000), (24_000, 8_000), (8_000, 8_000), (4_000, 8_000), (44_100, 7_993)]

    static func sine(hertz: Double, rate: Int, seconds: Double, amplitude: Double = 0.5) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * Double.pi * hertz * Double($0) / Double(rate))) }
    }

    static func resampled(_ samples: [Float], from input: Int, to output: Int, pieces: [Int]) -> [Float] {
        streamed(samples, pieces: pieces, through: Resampler(inputRate: input, outputRate: output))
    }

    /// Noise cut into calls of uneven sizes (a sample at a time, odd lengths, more than the filter at once) gives
    /// the same output, bit for bit, as the whole of it in one call; and as many samples as `outputCount` says. (At 44.1
    /// kHz the whole call makes most outputs in tiles of four periods sharing coefficients, a sample at a time none.)
    @Test(arguments: ratePairs.indices)
    func theOutputDoesNotDependOnHowTheStreamIsCut(pair: Int) {
        let (input, output) = Self.ratePairs[pair]
        var state: UInt32 = 2_024
        let noise = (0..<(input / 2 + 333)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        let whole = Self.resampled(noise, from: input, to: output, pieces: [noise.count])
        #expect(whole.count == Int(Resampler.outputCount(inputFrames: Int64(noise.count), inputRate: input, outputRate: output)))
        #expect(Self.resampled(noise, from: input, to: output, pieces: [1, 2, 3, 5, 997, 4_099, 31]) == whole)
        #expect(Self.resampled(noise, from: input, to: output, pieces: [1]) == whole)
    }

    /// A tone in the pass band (under 85% of the cut-off) comes out at its level (within 0.05 dB) and on time: the output matches the tone
    /// sampled at the output's own instants within 0.2% of its amplitude, away from the stream's two ends (where
    /// the filter reads the zeros before and after it).
    @Test(arguments: ratePairs.indices)
    func aToneInThePassBandKeepsItsLevelAndTiming(pair: Int) {
        let (input, output) = Self.ratePairs[pair]
        let cutoff = Resampler(inputRate: input, outputRate: output).cutoffHz
        for hertz in [50.0, 440.0, 1_000.0, 3_000.0] where hertz < 0.85 * cutoff {
            let result = Self.resampled(Self.sine(hertz: hertz, rate: input, seconds: 1), from: input, to: output,
                                        pieces: [4_000])
            let middle = (output / 10)..<(result.count - output / 10)
            var error: Float = 0, power = 0.0
            for n in middle {
                let expected = Float(0.5 * sin(2 * Double.pi * hertz * Double(n) / Double(output)))
                error = max(error, abs(result[n] - expected))
                power += Double(result[n] * result[n])
            }
            let levelDb = 10 * log10(power / Double(middle.count) / 0.125)
            #expect(abs(levelDb) < 0.05, "\(input) -> \(output) Hz, \(hertz) Hz tone: level \(levelDb) dB")
            #expect(error < 0.001, "\(input) -> \(output) Hz, \(hertz) Hz tone: off by \(error)")
        }
    }

    /// From the rates recorders use to 8 kHz: the analysis band passes at full level (within 0.2 dB), and a tone
    /// above 4 kHz, which would fold back into the band, is stopped (40 dB down just past the transition band at
    /// 4.6 kHz; 50 dB from 6 kHz, the Kaiser window's β of 5 giving about 55 dB).
    @Test(arguments: [16_000, 44_100, 48_000])
    func passesTheAnalysisBandAndStopsWhatWouldFoldIntoIt(rate: Int) {
        func through(_ frequency: Double) -> [Float] {
            let resampler = Resampler(inputRate: rate, outputRate: 8_000)
            var output: [Float] = []
            tone(frequency, rate: rate).withUnsafeBufferPointer { resampler.process($0) { output.append(contentsOf: $0) } }
            resampler.finish { output.append(contentsOf: $0) }
            #expect(output.count == 8_000)
            return output
        }
        for frequency in [100.0, 1_000, 3_000] {
            #expect(abs(level(through(frequency)) + 3.01) < 0.2, "\(frequency) Hz passes at full level")
        }
        #expect(level(through(4_600)) < -3.01 - 40, "4600 Hz is stopped, not folded to 3400 Hz")
        for frequency in [6_000.0, 7_000] where frequency < Double(rate) / 2 {
            #expect(level(through(frequency)) < -3.01 - 50, "\(frequency) Hz is stopped, not folded to \(8_000 - frequency) Hz")
        }
    }

    /// A tone switched on at a known instant starts at that instant after resampling: the filter is symmetric, so
    /// nothing is delayed.
    @Test func aToneKeepsItsFrequencyAndTiming() {
        // A 1 kHz tone starting at exactly 0.25 s, from 44.1 kHz: at 8 kHz it must start at sample 2,000.
        let source = (0..<44_100).map { $0 < 11_025 ? Float(0) : Float(sin(2 * .pi * 1_000 * Double($0 - 11_025) / 44_100)) }
        let output = Resampler.convert(source, from: 44_100, to: 8_000)
        let expected = (0..<8_000).map { $0 < 2_000 ? Float(0) : Float(sin(2 * .pi * 1_000 * Double($0 - 2_000) / 8_000)) }
        let error = zip(output[2_100..<7_900], expected[2_100..<7_900]).map { abs($0 - $1) }.max()!
        #expect(error < 0.01, "largest error \(error)")
    }

    /// At a whole ratio the outputs are made from the input's phases, eight at a time with the filter's symmetric
    /// taps folded: the same filter as the general loop's, so the same samples up to the rounding of the sums (within
    /// 1e-6 of full scale), for every whole ratio to 8 kHz and at equal rates.
    @Test(arguments: [16_000, 24_000, 32_000, 48_000, 8_000])
    func splittingTheInputsPhasesChangesOnlyTheRounding(rate: Int) {
        var state: UInt32 = 77
        let noise = (0..<(rate + 4_321)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        func run(_ split: Bool) -> [Float] {
            let resampler = Resampler(inputRate: rate, outputRate: 8_000, splitsPhases: split)
            var output: [Float] = []
            var start = 0
            noise.withUnsafeBufferPointer { buffer in
                for length in [1, 333, 4_096, 17, 10_000, 7] + Array(repeating: 50_000, count: 4) where start < noise.count {
                    let end = min(noise.count, start + length)
                    resampler.process(UnsafeBufferPointer(rebasing: buffer[start..<end])) { output.append(contentsOf: $0) }
                    start = end
                }
            }
            resampler.finish { output.append(contentsOf: $0) }
            return output
        }
        let split = run(true), general = run(false)
        #expect(split.count == general.count)
        let worst = zip(split, general).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "largest difference \(worst)")
        #expect(split != general || rate == 8_000, "the split path ran (its rounding differs somewhere)")
    }

    /// A constant comes out as the same constant (every phase has a gain of exactly 1 at 0 Hz), away from the ends.
    @Test(arguments: ratePairs.indices)
    func aConstantStaysConstant(pair: Int) {
        let (input, output) = Self.ratePairs[pair]
        let result = Self.resampled([Float](repeating: 0.25, count: input), from: input, to: output, pieces: [1_000])
        let middle = result[(output / 10)..<(result.count - output / 10)]
        #expect(middle.allSatisfy { abs($0 - 0.25) < 1e-5 })
    }
}
