import Foundation
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import Testing

/// The smoke alarm's hand-written rule hears a tone that holds its pitch (models/rules 0.21.0): a detector's sounder
/// sounds one frequency, while a cry's harmonics glide. Held out, that rule raised a critical smoke alarm on 26 crying
/// clips. Through the hand-written rules (which stand beside the fitted smoke score in models/default), the control
/// being the rules without that condition.
@Suite struct SteadyAlarmToneTests {
    static let sampleRate = 16_000

    /// A tone at −20 dBFS over a quiet room, its frequency `hertz(time)`, phase accumulated so that it glides smoothly.
    static func tone(seconds: Double, hertz: (Double) -> Double) -> [Float] {
        var phase = 0.0, state: UInt64 = 7
        return (0..<Int(seconds * Double(sampleRate))).map { index in
            phase += 2 * .pi * hertz(Double(index) / Double(sampleRate)) / Double(sampleRate)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let room = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.002
            return Float(0.1 * sin(phase) + room)
        }
    }

    /// The smoke confidence of each window wholly inside the 4 s tone (the first and last lean on the edges).
    static func smoke(_ samples: [Float], bundle: ModelBundle) -> [Float] {
        let analysis = RecordingAnalyzer(bundle: bundle).analyze(samples: samples, sampleRate: sampleRate)
        let classes = bundle.classifier.classes.count
        let smoke = bundle.classifier.classes.firstIndex { $0.id == "smoke_detector" }!
        return (1..<(analysis.windowCount - 1)).map { analysis.confidences[$0 * classes + smoke] }
    }

    var withoutSteadiness: ModelBundle {
        var model = bundle.classifier
        let smoke = model.classes.firstIndex { $0.id == "smoke_detector" }!
        #expect(model.classes[smoke].all.contains { $0.feature == .toneSteadiness })
        model.classes[smoke].all.removeAll { $0.feature == .toneSteadiness }
        return ModelBundle(classifier: model, profiles: bundle.profiles, location: bundle.location)
    }

    @Test func aGlidingToneIsNoAlarmAndAHeldOneStillIs() {
        // A cry's harmonic near 3 kHz, gliding 150 Hz either way once a second.
        let glide = Self.tone(seconds: 4) { 3_100 + 150 * sin(2 * .pi * $0) }
        let gliding = Self.smoke(glide, bundle: bundle), control = Self.smoke(glide, bundle: withoutSteadiness)
        #expect(gliding.count >= 3)
        #expect(control.allSatisfy { $0 >= 0.5 }, "the control: without it the rule takes the glide for an alarm (\(control))")
        #expect(gliding.allSatisfy { $0 < 0.5 }, "gliding: \(gliding)")

        let held = Self.smoke(Self.tone(seconds: 4) { _ in 3_100 }, bundle: bundle)
        #expect(held.count >= 3)
        #expect(held.allSatisfy { $0 >= 0.9 }, "held: \(held)")
    }
}
