import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// A gasp ends a pause in breathing (`SoundClassDefinition.endsPauseIn`, as models/default sets it for gasp): it is
/// heard only within a minute of a window snoring or breathing held. A gasp-like sound after a quiet that no breathing
/// was heard before is a sneeze's intake, a scream's start or a bark, not the end of an apnea. Checked on scripted
/// recordings, with a model without the setting as the control that shows each check can fail.
@Suite struct EndsPauseInTests {
    let classes = defaultBundle.classifier.classes.count
    let gasp = defaultBundle.classifier.classes.firstIndex { $0.id == "gasp" }!
    let snoring = defaultBundle.classifier.classes.firstIndex { $0.id == "snoring" }!
    let breathing = defaultBundle.classifier.classes.firstIndex { $0.id == "breathing" }!
    let cough = defaultBundle.classifier.classes.firstIndex { $0.id == "cough" }!

    /// 300 s of a quiet room (−60 dBFS), no gasp but where said: a gasp at 5 s, before anything; snoring from 10 to
    /// 30 s and a gasp 15 s after it (45 s); a gasp 70 s after the snoring (100 s), with a cough between (80 s);
    /// breathing from 200 to 205 s and a gasp 45 s after it (250 s).
    var recording: HandScoredRecording {
        let gasps = [(5.0, 5.6), (45.0, 45.6), (100.0, 100.6), (250.0, 250.6)]
        var recording = HandScoredRecording(seconds: 300, classCount: classes,
                                            loud: gasps + [(10.0, 30.0), (80.0, 80.5), (200.0, 205.0)])
        for window in 0..<recording.windows { recording.confidences[window * classes + gasp] = 0 }
        recording.score((10, 30), snoring, 0.9)
        recording.score((80, 80.5), cough, 0.9)
        recording.score((200, 205), breathing, 0.9)
        for span in gasps { recording.score(span, gasp, 0.9) }
        return recording
    }

    /// The same model without the setting.
    var plainBundle: ModelBundle {
        alteredDefaultBundle { model in model.classes[gasp].endsPauseIn = nil }
    }

    @Test func theModelAsksForIt() {
        let pause = defaultBundle.classifier.classes[gasp].endsPauseIn
        #expect(pause?.classes == ["snoring", "breathing"])
        #expect(pause?.withinSec == 60)
        #expect(defaultBundle.classifier.classes.filter { $0.endsPauseIn != nil }.map(\.id) == ["gasp"])
    }

    /// Under every profile: the gasps within a minute of snoring or breathing are one episode each, the one before
    /// anything and the one 70 s after the snoring none; the confidences the alert processor hears change only there.
    @Test func aGaspIsHeardOnlyWithinAMinuteOfBreathing() {
        let recording = recording
        for result in recording.run(defaultBundle) {
            #expect(result.episodes(of: gasp, in: 4...7).isEmpty, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 44...47).count == 1, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 99...102).isEmpty, "\(result.profile)")
            #expect(result.episodes(of: gasp, in: 249...252).count == 1, "\(result.profile)")
        }
        recording.expectSilenced(gasp, where: { (4.5...5.5).contains($0) || (99.5...100.5).contains($0) }, value: 0.9,
                                 bundle: defaultBundle, control: plainBundle)
    }

    /// The control: without the setting every scripted gasp is an episode.
    @Test func withoutTheSettingEveryGaspIsHeard() {
        for result in recording.run(plainBundle) {
            for range in [4.0...7.0, 44...47, 99...102, 249...252] {
                #expect(result.episodes(of: gasp, in: range).count == 1, "\(result.profile), \(range)")
            }
        }
    }

    /// The minute is counted from the start of the last window breathing or snoring held to the start of the gasp's:
    /// 60 s is within it, 60.5 s is not. A window held is one where the class is on top at 0.5 or more.
    @Test func theMinuteEndsWhereItSays() {
        var recording = HandScoredRecording(seconds: 100, classCount: classes, loud: [])
        for window in 0..<recording.windows { recording.confidences[window * classes + gasp] = 0.3 }
        recording.confidences[20 * classes + breathing] = 0.9  // 10.0 s: held
        recording.confidences[40 * classes + snoring] = 0.9  // 20.0 s: held
        recording.confidences[50 * classes + snoring] = 0.45  // 25.0 s: on top, but under 0.5
        recording.confidences[60 * classes + breathing] = 0.6  // 30.0 s: a cough on top of it
        recording.confidences[60 * classes + cough] = 0.7
        let heard = recording.heard(defaultBundle)
        let heardWindows = (0..<recording.windows).filter { heard[$0 * classes + gasp] > 0 }
        // After the window held at 10 s (windows 21...140) and the one at 20 s (41...160): 80.0 s heard, 80.5 s not.
        #expect(heardWindows == Array(21...160), "\(heardWindows.first ?? -1)...\(heardWindows.last ?? -1)")
        #expect(AnalysisGrid.windowStartSeconds(160) == 80 && AnalysisGrid.windowStartSeconds(161) == 80.5)
    }

    @Test func aPauseInAnUnknownClassIsRefused() throws {
        var model = defaultBundle.classifier
        model.classes[gasp].endsPauseIn = .init(classes: ["snorting"], withinSec: 60)
        let data = try JSONEncoder().encode(model)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ClassifierModel.self, from: data) }
        model.classes[gasp].endsPauseIn = .init(classes: ["gasp"], withinSec: 60)
        let own = try JSONEncoder().encode(model)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ClassifierModel.self, from: own) }
    }

    @Test(arguments: ["{\"classes\": [], \"withinSec\": 60}", "{\"classes\": [\"snoring\"], \"withinSec\": 0}",
                      "{\"classes\": [\"snoring\"], \"withinSec\": 7200}", "{\"classes\": [\"snoring\"]}",
                      "{\"classes\": [\"snoring\"], \"withinSec\": 60, \"afterSec\": 8}"])
    func aMalformedPauseIsRefused(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SoundClassDefinition.PauseEnding.self, from: Data(json.utf8))
        }
    }

    @Test func aPauseReadsBackAsWritten() throws {
        let pause = SoundClassDefinition.PauseEnding(classes: ["snoring", "breathing"], withinSec: 45)
        #expect(try JSONDecoder().decode(SoundClassDefinition.PauseEnding.self, from: JSONEncoder().encode(pause)) == pause)
    }
}
