import Foundation
import SomniqFeatures
import SomniqSynth
import Testing

/// The synthesised cough (the sample night's, the rainy night's and the tests') reads as recorded coughs read: its
/// noise shaped by the vocal tract's resonances, not broadband. Of the loud windows of the development set's 288
/// cough clips (`scripts/devset-feature-ranges spectral_flatness --label cough`), 99% have a spectral flatness under
/// 0.53 (median 0.15), and their harmonicity has a median of 0.33; breaking glass reads 0.58 at the median. A burst of
/// band-passed broadband noise (the cough this synthesiser made before) reads 0.53-0.66: nearly as flat as glass, which a
/// model fitted on recordings then heard in it.
@Suite struct SynthesisedCoughTests {
    /// Each cough's window (the one holding it, 8 s apart over a quiet room at 16 kHz).
    func coughWindows(_ sounds: [[Double]]) -> [FeatureVector] {
        var room = SyntheticNight(seconds: 8 * Double(sounds.count + 1), sampleRate: 16_000, seed: 5, backgroundDbfs: -55)
        for (index, sound) in sounds.enumerated() { room.add(sound, at: 4.1 + 8 * Double(index), label: nil) }
        let windows = streamFeatures(room.samples.map(Float.init), sampleRate: 16_000)
        // Window w spans w/2 ..< w/2 + 1 s: the cough at 4.1 + 8k s lies within window 8 + 16k.
        return sounds.indices.map { windows[8 + 16 * $0] }
    }

    @Test func aSynthesisedCoughIsAsResonantAsARecordedOne() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 11)
        let windows = coughWindows((0..<10).map { _ in synthesizer.cough(levelDbfs: -30) })
        for window in windows {
            #expect(window[.spectralFlatness] < 0.45, "flatness \(window[.spectralFlatness])")
            #expect(window[.harmonicity] > 0.15 && window[.harmonicity] < 0.5, "harmonicity \(window[.harmonicity])")
            #expect(window[.rmsDbfs] > -40, "the window holds the cough")
        }
    }

    /// The control: broadband noise band-passed at 1.2 kHz under the same envelope reads over 0.5, flatter than all but the
    /// flattest 1% of recorded coughs and nearly as flat as breaking glass, where the synthesised cough stays under 0.45.
    @Test func aBroadbandBurstUnderTheSameEnvelopeIsFlat() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 11)
        let bursts = (0..<10).map { _ -> [Double] in
            var band = Biquad.bandPass(frequency: 1_200, q: 0.5, sampleRate: 16_000)
            let noise = synthesizer.whiteNoise(seconds: 0.35, levelDbfs: -30)
            return noise.enumerated().map { index, value in
                let time = Double(index) / 16_000
                return min(1, time / 0.005) * exp(-time / 0.12) * band.process(value) * 4
            }
        }
        for window in coughWindows(bursts) {
            #expect(window[.spectralFlatness] > 0.5, "flatness \(window[.spectralFlatness])")
        }
    }
}
