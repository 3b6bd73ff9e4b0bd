import Foundation
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqSynth
import Testing

/// The cough rule hears a burst with a body, not a train of clicks (models/rules 0.14.0): teeth grinding's clicks peak
/// 26 dB and more over their window's RMS, a cough's stay under it. Through the hand-written rules (which stand beside
/// the fitted cough score in models/default), the control being the rules without that condition.
@Suite struct ClickTrainTests {
    /// Windows with cough on top, of `sounds` laid 8 s apart over a quiet room at 16 kHz.
    func coughWindows(_ sounds: [[Double]], bundle: ModelBundle) -> Int {
        var room = SyntheticNight(seconds: 8 * Double(sounds.count + 1), sampleRate: 16_000, seed: 3, backgroundDbfs: -55)
        for (index, sound) in sounds.enumerated() { room.add(sound, at: 4 + 8 * Double(index), label: nil) }
        let analysis = RecordingAnalyzer(bundle: bundle).analyze(samples: room.samples.map(Float.init), sampleRate: 16_000)
        let classes = bundle.classifier.classes.count
        let cough = bundle.classifier.classes.firstIndex { $0.id == "cough" }!
        return (0..<analysis.windowCount).filter { window in
            let row = analysis.confidences[(window * classes)..<((window + 1) * classes)]
            return row.max()! >= 0.5 && row[row.startIndex + cough] == row.max()!
        }.count
    }

    var withoutCrest: ModelBundle {
        var model = bundle.classifier
        let cough = model.classes.firstIndex { $0.id == "cough" }!
        model.classes[cough].none.removeAll { $0.feature == .crestDb }
        return ModelBundle(classifier: model, profiles: bundle.profiles, location: bundle.location)
    }

    @Test func grindingIsNotACoughAndACoughStillIs() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 21)
        let spells = (0..<12).map { _ in synthesizer.teethGrinding(levelDbfs: -30) }
        let heard = coughWindows(spells, bundle: bundle), control = coughWindows(spells, bundle: withoutCrest)
        #expect(Double(heard) <= 0.5 * Double(control), "12 spells: cough on top in \(heard) windows, \(control) without the condition")
        #expect(control >= 10, "the control: without it the rule takes grinding for coughs (\(control) windows)")

        let coughs = (0..<12).map { _ in synthesizer.cough(levelDbfs: -30) }
        #expect(coughWindows(coughs, bundle: bundle) == coughWindows(coughs, bundle: withoutCrest))
        #expect(coughWindows(coughs, bundle: bundle) >= 12, "every cough heard")
    }
}
