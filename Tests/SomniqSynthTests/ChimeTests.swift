import Foundation
import Testing
@testable import SomniqSynth

/// The notification chimes `fit` learns as none of the classes: struck notes that ring down, the same for the same seed.
@Suite struct ChimeTests {
    static func rms(_ samples: ArraySlice<Double>) -> Double {
        (samples.reduce(0) { $0 + $1 * $1 } / Double(max(1, samples.count))).squareRoot()
    }

    @Test func aChimeIsTheSameForTheSameSeedAndAnotherForAnother() {
        var first = SoundSynthesizer(sampleRate: 16_000, seed: 5), again = SoundSynthesizer(sampleRate: 16_000, seed: 5)
        var other = SoundSynthesizer(sampleRate: 16_000, seed: 6)
        let chime = first.chime(levelDbfs: -30)
        #expect(chime == again.chime(levelDbfs: -30))
        #expect(chime != other.chime(levelDbfs: -30))
    }

    /// Each of twenty chimes is at its level, struck within its first 5 ms, and rings down: its last fifth is at least
    /// 20 dB under its first.
    @Test func chimesAreStruckAndRingDown() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 9)
        for _ in 0..<20 {
            let chime = synthesizer.chime(levelDbfs: -30)
            let level = 20 * log10(Self.rms(chime[...]))
            #expect(abs(level - -30) < 0.01)
            #expect(chime.prefix(80).contains { abs($0) > 0.001 }, "struck at once")
            let fifth = chime.count / 5
            let drop = 20 * log10(Self.rms(chime.prefix(fifth)) / Self.rms(chime.suffix(fifth)))
            #expect(drop >= 20, "rings down by \(drop) dB over \(Double(chime.count) / 16_000) s")
            #expect(Double(chime.count) / 16_000 <= 0.6 + 4 * 0.7, "no longer than its notes and their ring")
        }
    }
}
