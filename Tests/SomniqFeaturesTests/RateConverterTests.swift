import Foundation
import Testing
@testable import SomniqFeatures

/// The staged conversion (`RateConverter`: half-band halvings of high rates, then the interpolator) against
/// what it must do: the stages the common rates take, the count of a single conversion, the analysis band kept, what
/// would fold into it stopped through either stage, and the same samples however the stream is cut.
@Suite struct RateConverterTests {
    static let highRates = [44_100, 48_000, 88_200, 96_000]

    static func converted(_ samples: [Float], from input: Int, to output: Int = 8_000, pieces: [Int]) -> [Float] {
        streamed(samples, pieces: pieces, through: RateConverter(inputRate: input, outputRate: output))
    }

    @Test func theCommonRatesTakeTheirStages() {
        #expect(RateConverter.halvedRates(inputRate: 44_100, outputRate: 8_000) == [22_050])
        #expect(RateConverter.halvedRates(inputRate: 48_000, outputRate: 8_000) == [24_000])
        #expect(RateConverter.halvedRates(inputRate: 88_200, outputRate: 8_000) == [44_100, 22_050])
        #expect(RateConverter.halvedRates(inputRate: 96_000, outputRate: 8_000) == [48_000, 24_000])
        // Where the halved rate would be under 2.75 times the output's, or the rate is odd, or the output higher.
        for rate in [8_000, 11_025, 16_000, 22_050, 32_000, 43_998] {
            #expect(RateConverter.halvedRates(inputRate: rate, outputRate: 8_000).isEmpty, "\(rate) Hz")
        }
        #expect(RateConverter.halvedRates(inputRate: 8_000, outputRate: 44_100).isEmpty)
        #expect(RateConverter.halvedRates(inputRate: 44_100, outputRate: 4_000) == [22_050, 11_025])
    }

    /// Noise of odd and even lengths, cut into calls of uneven sizes (a sample at a time, odd lengths, more than the
    /// filters at once), gives the samples of one call, bit for bit, as many as a single conversion's count.
    @Test(arguments: highRates)
    func theOutputDoesNotDependOnHowTheStreamIsCut(rate: Int) {
        var state: UInt32 = 4_242
        for length in [rate / 2 + 333, rate / 2 + 334, 1, 2, 23, 24] {
            let noise = (0..<length).map { _ -> Float in
                state = state &* 1_664_525 &+ 1_013_904_223
                return Float(state >> 8) / Float(1 << 24) - 0.5
            }
            let whole = Self.converted(noise, from: rate, pieces: [noise.count])
            #expect(whole.count == Int(Resampler.outputCount(inputFrames: Int64(length), inputRate: rate, outputRate: 8_000)),
                    "\(rate) Hz, \(length) samples")
            #expect(Self.converted(noise, from: rate, pieces: [1, 2, 3, 5, 997, 4_099, 31]) == whole)
            #expect(Self.converted(noise, from: rate, pieces: [1]) == whole)
        }
        #expect(Self.converted([], from: rate, pieces: [1]).isEmpty)
    }

    /// A tone in the analysis band comes out at its level (within 0.05 dB) and on time: within 0.2% of its amplitude
    /// of the tone sampled at 8 kHz, away from the stream's ends.
    @Test(arguments: highRates)
    func aToneInTheBandKeepsItsLevelAndTiming(rate: Int) {
        for hertz in [50.0, 440.0, 1_000.0, 3_000.0] {
            let result = Self.converted(tone(hertz, rate: rate, amplitude: 0.5), from: rate, pieces: [4_000])
            let middle = 800..<(result.count - 800)
            var error: Float = 0, power = 0.0
            for n in middle {
                let expected = Float(0.5 * sin(2 * Double.pi * hertz * Double(n) / 8_000))
                error = max(error, abs(result[n] - expected))
                power += Double(result[n] * result[n])
            }
            let levelDb = 10 * log10(power / Double(middle.count) / 0.125)
            #expect(abs(levelDb) < 0.05, "\(rate) Hz, \(hertz) Hz tone: level \(levelDb) dB")
            #expect(error < 0.001, "\(rate) Hz, \(hertz) Hz tone: off by \(error)")
        }
    }

    /// Tones that would fold into the analysis band are stopped, at least 50 dB down: through a half-band stage (above
    /// 18 kHz at 44.1 kHz, folding to under 4 kHz at 22.05 kHz; at 96 kHz above 44 kHz in the first halving and 20-24
    /// kHz in the second) and through the last one (4.6 kHz is 40 dB down, 6-7 kHz 50 dB, folding to 1-2 kHz at 8 kHz).
    @Test(arguments: [16_000, 32_000] + highRates)
    func stopsWhatWouldFoldIntoTheBand(rate: Int) {
        let halved = RateConverter.halvedRates(inputRate: rate, outputRate: 8_000)
        var folding: [Double] = [6_000, 7_000]
        for (index, stageRate) in halved.enumerated() {
            let before = Double(index == 0 ? rate : halved[index - 1])
            // Tones whose image at the stage's output rate lands at 500 Hz and 3 kHz.
            folding += [Double(stageRate) - 500, Double(stageRate) - 3_000].filter { $0 < before / 2 }
        }
        #expect(folding.count >= 2 + 2 * halved.count)
        for hertz in folding {
            let output = Self.converted(tone(hertz, rate: rate), from: rate, pieces: [10_000])
            #expect(output.count == 8_000)
            #expect(level(output) < -3.01 - 50, "\(rate) Hz: \(hertz) Hz is stopped, \(level(output)) dB")
        }
        #expect(level(Self.converted(tone(4_600, rate: rate), from: rate, pieces: [10_000])) < -3.01 - 40)
        for hertz in [100.0, 1_000, 3_000] {
            let output = Self.converted(tone(hertz, rate: rate), from: rate, pieces: [10_000])
            #expect(abs(level(output) + 3.01) < 0.2, "\(rate) Hz: \(hertz) Hz passes at full level")
        }
    }

    /// The halvings change the interpolator's output only by what their filters let through or take away: on a tone of
    /// the band, within 0.001 of a single conversion's samples.
    @Test(arguments: highRates)
    func theHalvingsChangeLittleAgainstOneStage(rate: Int) {
        let source = tone(1_234, rate: rate, amplitude: 0.5)
        let staged = Self.converted(source, from: rate, pieces: [7_777])
        let single = Resampler(inputRate: rate, outputRate: 8_000)
        var direct: [Float] = []
        source.withUnsafeBufferPointer { single.process($0) { direct.append(contentsOf: $0) } }
        single.finish { direct.append(contentsOf: $0) }
        #expect(staged.count == direct.count)
        let worst = zip(staged[400..<7_600], direct[400..<7_600]).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 0.001, "\(rate) Hz: largest difference \(worst)")
        #expect(staged != direct, "the halvings ran")
    }

    /// A constant comes out as the same constant (each stage's gain at 0 Hz is exactly 1), away from the ends.
    @Test(arguments: highRates)
    func aConstantStaysConstant(rate: Int) {
        let result = Self.converted([Float](repeating: 0.25, count: rate), from: rate, pieces: [1_000])
        #expect(result[800..<7_200].allSatisfy { abs($0 - 0.25) < 1e-5 })
    }
}
