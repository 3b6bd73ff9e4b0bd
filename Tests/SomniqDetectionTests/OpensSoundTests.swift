import SomniqDetection
import SomniqModel
import Testing

/// A gasp opens a sound (`SoundClassDefinition.opensSound`, as models/default sets it for gasp): a gasp-like breath
/// a second into a cough fit or a sob is that sound's, while a gasp after quiet is a gasp. Checked on a scripted
/// recording, with the same recording under a model without the setting as the control that shows the check can fail.
@Suite struct OpensSoundTests {
    let classes = defaultBundle.classifier.classes.count
    let gasp = defaultBundle.classifier.classes.firstIndex { $0.id == "gasp" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!
    let crying = defaultBundle.classifier.classes.firstIndex { $0.id == "crying_sobbing" }!
    let breathing = defaultBundle.classifier.classes.firstIndex { $0.id == "breathing" }!

    /// 120 s of a quiet room (−60 dBFS), no gasp but where said, with: breathing from 5 to 8 s (so that the gasps
    /// below end a pause in it, `EndsPauseInTests`); a cough fit from 20 to 22.5 s whose last second the classifier
    /// also scored as a gasp (0.9); a sob from 40 to 44 s, scored as a gasp (0.9) from 42 s; and a gasp alone,
    /// 60.0–60.6 s.
    var recording: HandScoredRecording {
        var recording = HandScoredRecording(seconds: 120, classCount: classes,
                                            loud: [(5.0, 8.0), (20.0, 22.5), (40.0, 44.0), (60.0, 60.6)])
        for window in 0..<recording.windows { recording.confidences[window * classes + gasp] = 0 }
        recording.score((5, 8), breathing, 0.9)
        recording.score((20, 22.5), cough, 0.95)
        recording.score((21.5, 22.5), gasp, 0.9)
        recording.score((40, 44), crying, 0.95)
        recording.score((42, 44), gasp, 0.9)
        recording.score((60, 60.6), gasp, 0.9)
        return recording
    }

    /// The same model without the setting.
    var plainBundle: ModelBundle {
        alteredDefaultBundle { model in model.classes[gasp].opensSound = false }
    }

    @Test func theModelAsksForIt() {
        #expect(defaultBundle.classifier.classes[gasp].opensSound)
        #expect(defaultBundle.classifier.classes.filter(\.opensSound).map(\.id) == ["gasp"])
    }

    /// Under every profile: no gasp within the cough fit or the sob, and the gasp after quiet is one gasp episode; the
    /// confidences the alert processor hears change only where the gasp lay inside the other sounds.
    @Test func aGaspIsHeardOnlyWhereItOpensTheSound() {
        let recording = recording
        for result in recording.run(defaultBundle) {
            #expect(result.episodes(of: gasp, in: 19...23).isEmpty, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 39...45).isEmpty, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 59...62).count == 1, "\(result.profile)")
        }
        recording.expectSilenced(gasp, where: { (21.0...22.0).contains($0) || (41.5...43.5).contains($0) }, value: 0.9,
                                 bundle: defaultBundle, control: plainBundle)
    }

    /// The control: without the setting the gasp-like breaths inside the cough fit and the sob are gasp episodes.
    @Test func withoutTheSettingTheyAreGasps() {
        for result in recording.run(plainBundle) {
            #expect(result.episodes(of: gasp, in: 19...23).count == 1, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 39...45).count == 1, "\(result.profile)")
        }
    }
}
