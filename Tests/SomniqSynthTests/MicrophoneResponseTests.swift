import Foundation
import Testing
@testable import SomniqSynth

/// The microphones `fit` hears a share of its training copies through: each filter does what its numbers say, and a
/// drawn response is the same for the same seed and within the stated ranges.
@Suite struct MicrophoneResponseTests {
    /// The gain, in dB, of `response` for a sine at `hertz` (measured over its second half, after the filters settle).
    static func gain(of response: MicrophoneResponse, at hertz: Double, sampleRate: Int = 16_000) -> Double {
        let sine = (0..<sampleRate).map { Float(0.1 * sin(2 * Double.pi * hertz * Double($0) / Double(sampleRate))) }
        func rms(_ values: ArraySlice<Float>) -> Double {
            (values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(values.count)).squareRoot()
        }
        let heard = response.apply(sine, sampleRate: sampleRate)
        return 20 * log10(rms(heard[(sampleRate / 2)...]) / rms(sine[(sampleRate / 2)...]))
    }

    static let flat = MicrophoneResponse(highPassHz: 20, resonanceHz: 1_000, resonanceDecibels: 0, resonanceQ: 1,
                                         shelfHz: 2_000, shelfDecibels: 0)

    @Test func aFlatResponseChangesNothingInTheBand() {
        for hertz in [100.0, 440, 1_000, 3_000, 6_000] {
            #expect(abs(Self.gain(of: Self.flat, at: hertz)) < 0.2, "\(hertz) Hz")
        }
    }

    @Test func theHighPassTakesTheLowsAway() {
        var response = Self.flat
        response.highPassHz = 200
        #expect(Self.gain(of: response, at: 50) < -20, "two octaves under the corner: -24 dB for a second-order high-pass")
        #expect(abs(Self.gain(of: response, at: 200) - -3) < 0.5, "-3 dB at the corner")
        #expect(abs(Self.gain(of: response, at: 2_000)) < 0.2)
    }

    @Test func theResonanceLiftsOrCutsItsBandOnly() {
        for decibels in [-8.0, 6] {
            var response = Self.flat
            response.resonanceHz = 1_200
            response.resonanceDecibels = decibels
            response.resonanceQ = 2
            #expect(abs(Self.gain(of: response, at: 1_200) - decibels) < 0.3, "\(decibels) dB at its centre")
            #expect(abs(Self.gain(of: response, at: 150)) < 0.5 && abs(Self.gain(of: response, at: 6_000)) < 0.5, "far from it, flat")
        }
    }

    @Test func theShelfTiltsTheTop() {
        var response = Self.flat
        response.shelfHz = 1_500
        response.shelfDecibels = -8
        #expect(abs(Self.gain(of: response, at: 6_000) - -8) < 0.5, "well above the corner, the shelf's gain")
        #expect(abs(Self.gain(of: response, at: 100)) < 0.3, "well below it, flat")
        #expect(abs(Self.gain(of: response, at: 1_500) - -4) < 0.5, "half of it at the corner")
    }

    @Test func drawnResponsesAreDeterministicAndWithinTheirRanges() {
        var first = SeededGenerator(seed: 3), again = SeededGenerator(seed: 3)
        var drawn: [MicrophoneResponse] = []
        for _ in 0..<200 {
            let response = MicrophoneResponse(random: &first)
            #expect(response == MicrophoneResponse(random: &again))
            #expect(MicrophoneResponse.highPassRange.contains(response.highPassHz))
            #expect(MicrophoneResponse.resonanceRange.contains(response.resonanceHz))
            #expect(MicrophoneResponse.resonanceGainRange.contains(response.resonanceDecibels))
            #expect(MicrophoneResponse.resonanceQRange.contains(response.resonanceQ))
            #expect(MicrophoneResponse.shelfRange.contains(response.shelfHz))
            #expect(MicrophoneResponse.shelfGainRange.contains(response.shelfDecibels))
            drawn.append(response)
        }
        let lifted = drawn.filter { $0.shelfDecibels > 0 }.count
        #expect((60...140).contains(lifted), "brighter and duller tops about equally often (\(lifted) of 200 brighter)")
        let lowResonances = drawn.filter { $0.resonanceHz < 1_025 }.count  // the range's geometric middle
        #expect((60...140).contains(lowResonances), "resonances spread evenly over octaves (\(lowResonances) of 200 below 1 kHz)")
    }
}
