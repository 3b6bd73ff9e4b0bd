import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqModel
@testable import SomniqPipeline
import SomniqStore
import SomniqSynth
import Testing

/// An analysis measures the spectrum's shape band by band (`FeatureID.bandShapes`, 78 features) only where something
/// reads it: the model, or whoever keeps whole feature rows. Where it does not, the confidences are the same.
@Suite struct BandShapesUnmeasuredTests {
    let defaultBundle = try! ModelBundle.load(path: root + "/models/default")

    /// A minute of the sample night's kind of sounds at 16 kHz.
    var night: [Float] {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 9)
        var room = SyntheticNight(seconds: 40, sampleRate: 16_000, seed: 9, backgroundDbfs: -55)
        room.add(synthesizer.snore(seconds: 1.2, flutterHz: 40, levelDbfs: -25), at: 3, label: nil)
        room.add(synthesizer.cough(levelDbfs: -20), at: 10, label: nil)
        room.add(synthesizer.speech(seconds: 3, levelDbfs: -30), at: 15, label: nil)
        room.add(synthesizer.smokeAlarm(seconds: 8, levelDbfs: -20), at: 25, label: nil)
        return room.samples.map(Float.init)
    }

    func write(_ samples: [Float]) throws -> String {
        let path = NSTemporaryDirectory() + "somniq-shapes-\(UUID().uuidString).wav"
        let writer = try AudioFileWriter(path: path, sampleRate: 16_000, container: .wav, encoding: .float32)
        try writer.write(interleaved: samples)
        return path
    }

    @Test func whoMeasuresThem() {
        // Read into plain values first: an expectation on the analyzer itself would print the whole model.
        let analyzer = RecordingAnalyzer(bundle: defaultBundle), reading = RecordingAnalyzer(bundle: readingABandShape)
        let byKeeping = [FeatureKeeping.spooled, .levels, .dropped, .inMemory].map { analyzer.measuresBandShapes(keeping: $0) }
        #expect(byKeeping == [false, false, false, true], "the shipped default reads none of them; whole rows are kept whole")
        let readingMeasures = reading.measuresBandShapes(keeping: .dropped)
        #expect(readingMeasures, "a model that reads one")
    }

    /// The shipped default's confidences (its trees and rules) are the same, bit for bit, whether the 78 are measured
    /// (whole rows kept) or not (the database's rows, levels alone, nothing).
    @Test func theShippedModelHearsTheSameWithoutThem() throws {
        let path = try write(night)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let analyzer = RecordingAnalyzer(bundle: defaultBundle)
        let whole = try analyzer.analyze(path: path, keeping: .inMemory)
        for keeping in [FeatureKeeping.spooled, .levels, .dropped] {
            let data = try analyzer.analyze(path: path, keeping: keeping)
            #expect(data.confidences.map(\.bitPattern) == whole.confidences.map(\.bitPattern), "kept \(keeping)")
        }
        #expect(whole.confidences.contains { $0 > 0.5 }, "the sounds are heard")
    }

    /// The default with a veto on a band shape that always holds where it is measured: the class is never heard, with
    /// whole rows or without (were the feature left unmeasured, NaN would veto nothing and the class be heard).
    var readingABandShape: ModelBundle {
        var model = defaultBundle.classifier
        let cough = model.classes.firstIndex { $0.id == "cough" }!
        model.classes[cough].never.append(Condition(feature: .melShape3, test: .above(-1_000), softness: 0.001))
        return ModelBundle(classifier: model, profiles: defaultBundle.profiles, location: defaultBundle.location)
    }

    @Test func aModelThatReadsOneHasThemMeasured() throws {
        let path = try write(night)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cough = defaultBundle.classifier.classIDs.firstIndex(of: "cough")!, count = defaultBundle.classifier.classIDs.count
        func coughs(_ data: RecordingData) -> [Float] { (0..<data.windowCount).map { data.confidences[$0 * count + cough] } }
        let plain = try RecordingAnalyzer(bundle: defaultBundle).analyze(path: path, keeping: .dropped)
        #expect(coughs(plain).max()! > 0.5, "the control: the cough is heard without the veto")
        let vetoed = try RecordingAnalyzer(bundle: readingABandShape).analyze(path: path, keeping: .dropped)
        #expect(coughs(vetoed).max()! < 0.01, "the veto holds: mel_shape_3 was measured")
    }
}
