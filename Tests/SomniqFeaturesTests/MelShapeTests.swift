import Foundation
@testable import SomniqFeatures
import SomniqSynth
import Testing

/// The mel bands' shape, spread and change (`MelShape`) and the octaves' flatness (`OctaveFlatness`), on signals whose
/// answers follow from the definitions.
@Suite struct MelShapeTests {
    static let rate = 8_000
    /// Samples of one sub-frame at 8 kHz: 1/16 s.
    static let subframe = 500

    static func tone(_ frequency: Double, at index: Int) -> Float {
        Float(0.3 * sin(2 * Double.pi * frequency * Double(index) / Double(rate)))
    }

    static let shapeFeatures = FeatureID.melShapes + FeatureID.melShapeSpreads + FeatureID.melShapeChanges + FeatureID.octaveFlatnesses

    /// The shape has the level taken off: the same sound 26 dB softer reads the same.
    @Test func theSameSoundSofterHasTheSameShape() {
        var synth = SoundSynthesizer(sampleRate: Self.rate, seed: 21)
        let alarm = synth.smokeAlarm(seconds: 3, levelDbfs: -20).map(Float.init)
        let noise = synth.whiteNoise(seconds: 3, levelDbfs: -45).map(Float.init)
        let sound = zip(alarm, noise).map { $0 + $1 }
        let loud = extractFeatures(sound, sampleRate: Self.rate)
        let soft = extractFeatures(sound.map { $0 * 0.05 }, sampleRate: Self.rate)
        #expect(abs(soft[2][.rmsDbfs] - loud[2][.rmsDbfs] + 26.02) < 0.01)
        for (a, b) in zip(loud, soft) {
            for id in Self.shapeFeatures {
                #expect(abs(a[id] - b[id]) <= 1e-3 * max(1, abs(a[id])), "\(id): \(a[id]) vs \(b[id])")
            }
        }
    }

    /// Sub-frames alternating between two spectra: every band alternates between two shape values `u` and `v`, so its
    /// spread is `|u - v| / 2` and its change `|u - v|`, twice the spread. Both tones at once do not move: no spread, no change.
    @Test func aBandThatAlternatesChangesByTwiceItsSpread() {
        let seconds = 3
        let alternating = (0..<(seconds * Self.rate)).map { index in
            (index / Self.subframe) % 2 == 0 ? Self.tone(300, at: index) : Self.tone(2_000, at: index)
        }
        let steady = (0..<(seconds * Self.rate)).map { Self.tone(300, at: $0) + Self.tone(2_000, at: $0) }
        let moving = extractFeatures(alternating, sampleRate: Self.rate)[2]
        let still = extractFeatures(steady, sampleRate: Self.rate)[2]
        var largest: Float = 0
        for band in 0..<CepstralFeatures.bands {
            let spread = moving[FeatureID.melShapeSpreads[band]], change = moving[FeatureID.melShapeChanges[band]]
            #expect(abs(change - 2 * spread) <= 0.01 * change + 1e-3, "band \(band + 1): change \(change), spread \(spread)")
            largest = max(largest, spread)
            #expect(still[FeatureID.melShapeSpreads[band]] < 0.01 && still[FeatureID.melShapeChanges[band]] < 0.01, "band \(band + 1)")
        }
        #expect(largest > 2, "the bands of the two tones swing by tens of dB")
        // The window's mean shape is the mean of its sub-frames' shapes: the tones' bands stand over the rest in both.
        let loudest = FeatureID.melShapes.max { moving[$0] < moving[$1] }!
        let steadyLoudest = FeatureID.melShapes.max { still[$0] < still[$1] }!
        #expect(loudest == steadyLoudest)
    }

    /// White noise is flat in every octave: the log of the geometric over the arithmetic mean of a periodogram's
    /// scattered bins lies near -γ (-0.58) for many bins, -0.47 for five; a tone in an octave drives it far down.
    @Test func noiseIsFlatInEveryOctaveAndAToneIsNot() {
        var synth = SoundSynthesizer(sampleRate: Self.rate, seed: 22)
        let noise = synth.whiteNoise(seconds: 3, levelDbfs: -20).map(Float.init)
        for window in extractFeatures(noise, sampleRate: Self.rate).dropLast() {
            for id in FeatureID.octaveFlatnesses {
                #expect(window[id] > -0.8 && window[id] < -0.3, "\(id): \(window[id])")
            }
        }
        let toneOverNoise = zip(noise, (0..<noise.count).map { Self.tone(1_500, at: $0) }).map { $0 * 0.1 + $1 }
        let window = extractFeatures(toneOverNoise, sampleRate: Self.rate)[2]
        #expect(window[.octaveFlatness5] < -2, "1.5 kHz stands in 1-2 kHz: \(window[.octaveFlatness5])")
        #expect(window[.octaveFlatness3] > -0.8, "250-500 Hz holds only the noise: \(window[.octaveFlatness3])")
    }

    @Test func digitalSilenceHasNoShape() {
        for window in extractFeatures([Float](repeating: 0, count: 2 * Self.rate), sampleRate: Self.rate) {
            for id in Self.shapeFeatures { #expect(window[id] == 0, "\(id)") }
        }
    }
}
