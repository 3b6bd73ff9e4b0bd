import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqPipeline
import SomniqSynth
import Testing

@Suite struct UndetectableClassTests {
    /// A smoke alarm's 3.15 kHz beeps as a recorder at `sampleRate` captures them (band-limited to its Nyquist
    /// frequency), written to a temporary WAV.
    func alarmRecording(sampleRate: Int) throws -> String {
        let alarm = SoundSynthesizer(sampleRate: 16_000, seed: 3).smokeAlarm(seconds: 12, levelDbfs: -12).map(Float.init)
        let recorded = Resampler.convert(alarm, from: 16_000, to: sampleRate)
        let path = NSTemporaryDirectory() + "somniq-alarm-\(sampleRate)-\(UUID().uuidString).wav"
        do {  // the writer closes the file when it goes
            let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, container: .wav, encoding: .float32)
            try writer.write(interleaved: recorded)
        }

        return path
    }

    @Test func anAlarmAboveTheRecordingsBandIsNotDetectableRatherThanGuessed() throws {
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let low = try alarmRecording(sampleRate: 4_000)
        defer { try? FileManager.default.removeItem(atPath: low) }
        let data = try analyzer.analyze(path: low)
        #expect(data.undetectableClasses == ["smoke_detector", "rain"])
        let column = data.classIDs.firstIndex(of: "smoke_detector")!
        #expect((0..<data.windowCount).allSatisfy { data.confidence(window: $0, classIndex: column) == 0 })
        let summary = AnalysisReport.text(data, results: analyzer.runProfiles([bundle.profiles.profile(named: "balanced")!], on: data),
                                          detectionFloor: bundle.classifier.detectionFloor)
        #expect(summary.contains("not detectable at 4000 Hz (the sound lies above this recording's band): smoke_detector, rain"))

        // The same alarm recorded at 8 kHz is heard, and nothing is reported missing.
        let heard = try alarmRecording(sampleRate: 8_000)
        defer { try? FileManager.default.removeItem(atPath: heard) }
        let full = try analyzer.analyze(path: heard)
        #expect(full.undetectableClasses.isEmpty)
        #expect((0..<full.windowCount).contains { full.confidence(window: $0, classIndex: column) > 0.9 })
    }
}
