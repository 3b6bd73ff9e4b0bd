import Foundation
@testable import SomniqFeatures
import Testing

/// A tone whose frequency follows `hertz(time)`, built by accumulating its phase, at amplitude 0.3.
func tone(sampleRate: Int, seconds: Double, hertz: (Double) -> Double) -> [Float] {
    var phase = 0.0
    return (0..<Int(seconds * Double(sampleRate))).map { index in
        phase += 2 * .pi * hertz(Double(index) / Double(sampleRate)) / Double(sampleRate)
        return Float(0.3 * sin(phase))
    }
}

@Suite struct ToneSteadinessTests {
    /// The windows wholly inside a sound of 3 s or more (the first and last lean on the stream's edges): at least 3,
    /// so that the tests' loops over them check something.
    func innerWindows(_ samples: [Float], sampleRate: Int) -> [Float] {
        let values = Array(streamFeatures(samples, sampleRate: sampleRate).dropFirst().dropLast().map { $0[.toneSteadiness] })
        #expect(values.count >= 3, "\(values.count) inner windows")
        return values
    }

    @Test(arguments: [8_000, 16_000, 44_100, 48_000])
    func aHeldToneIsSteadyAtEveryRate(sampleRate: Int) {
        for hertz in [440.0, 900.0, 3_100.0] {
            for value in innerWindows(tone(sampleRate: sampleRate, seconds: 3) { _ in hertz }, sampleRate: sampleRate) {
                #expect(value > 0.95, "\(hertz) Hz at \(sampleRate) Hz: \(value)")
            }
        }
    }

    /// A voice's pitch trembles and glides: a tone with a vibrato of one semitone either way at 6 Hz, and one that
    /// sweeps 400–600 Hz and back twice a second (a cry's melody), both as tonal as the held tone.
    @Test func aTremblingOrGlidingToneIsNot() {
        let vibrato = tone(sampleRate: 16_000, seconds: 3) { 500 * pow(2, sin(2 * .pi * 6 * $0) / 12) }
        let glide = tone(sampleRate: 16_000, seconds: 3) { 500 + 100 * sin(2 * .pi * 2 * $0) }
        for (name, samples) in [("vibrato", vibrato), ("glide", glide)] {
            let windows = streamFeatures(samples, sampleRate: 16_000).dropFirst().dropLast()
            #expect(windows.count >= 3, "\(name): \(windows.count) inner windows")
            for window in windows {
                #expect(window[.tonality] > 0.5, "\(name) is tonal")
                #expect(window[.toneSteadiness] < 0.35, "\(name): \(window[.toneSteadiness])")
            }
        }
    }

    /// Uniform white noise from a fixed linear congruential sequence, peak `amplitude`.
    func noise(count: Int, amplitude: Float) -> [Float] {
        var state: UInt64 = 12_345
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(2 * Double(state >> 11) / Double(1 << 53) - 1) * amplitude
        }
    }

    @Test func noiseHasNoToneToHold() {
        for value in innerWindows(noise(count: 48_000, amplitude: 0.1), sampleRate: 16_000) { #expect(value < 0.05, "\(value)") }
    }

    /// A beep half a second on, half off, over a quiet room 50 dB down: every window is half beep, half pause, and
    /// reads as the held tone it is, the pairs in the pauses and across the beep's edges being left out, not counted
    /// unsteady.
    @Test func aBeepingAlarmIsSteadyThoughItPauses() {
        let room = noise(count: 64_000, amplitude: 0.001)
        let beeps = tone(sampleRate: 16_000, seconds: 4) { _ in 2_000 }.enumerated().map { index, sample in
            ((index / 8_000) % 2 == 0 ? sample : 0) + room[index]
        }
        for value in innerWindows(beeps, sampleRate: 16_000) { #expect(value > 0.9, "\(value)") }
    }

    /// A buzzer alternating two tones (924 and 1,212 Hz) every 50 ms, faster than the 62.5 ms sub-frames: each
    /// sub-frame's strongest peak is often the other tone's, but the tone was there one or two sub-frames before.
    @Test func aBuzzerAlternatingTwoTonesIsSteady() {
        for sampleRate in [16_000, 44_100] {
            let buzzer = tone(sampleRate: sampleRate, seconds: 3) { Int($0 / 0.05) % 2 == 0 ? 924 : 1_212 }
            for value in innerWindows(buzzer, sampleRate: sampleRate) {
                #expect(value > 0.6, "\(sampleRate) Hz: \(value)")
            }
        }
    }

    /// A mains hum 20 dB under a gliding voice, and the voice pausing a quarter of each second: the hum alone in the
    /// pauses is too quiet to count, and under the voice it is not the strongest peak.
    @Test func aHumUnderAVoiceDoesNotMakeItSteady() {
        let hum = tone(sampleRate: 16_000, seconds: 3) { _ in 100 }
        let voice = tone(sampleRate: 16_000, seconds: 3) { 500 + 100 * sin(2 * .pi * 2 * $0) }
        let mixed = (0..<hum.count).map { (index: Int) -> Float in
            let voiced: Float = (index / 4_000) % 4 == 3 ? 0 : voice[index]
            return 0.1 * hum[index] + voiced
        }
        for value in innerWindows(mixed, sampleRate: 16_000) { #expect(value < 0.35, "\(value)") }
    }

    /// The parabola's vertex is exact for a peak whose log power is a parabola, and stays within half a bin.
    @Test func thePeakIsRefinedBetweenBins() {
        for offset: Float in [-0.4, -0.1, 0, 0.25, 0.45] {
            let power = { (bin: Float) in exp(-0.7 * (bin - (20 + offset)) * (bin - (20 + offset))) }
            let refined = ToneSteadiness.refinedPeak(below: power(19), at: power(20), above: power(21), bin: 20)
            #expect(abs(refined - (20 + offset)) < 1e-4, "\(offset): \(refined)")
        }
        #expect(ToneSteadiness.refinedPeak(below: 1, at: 1, above: 1, bin: 7) == 7, "a flat top stays on its bin")
        #expect(ToneSteadiness.refinedPeak(below: 0, at: 1, above: 0, bin: 7) == 7, "empty neighbours: the bin itself")
    }
}
