import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore
import SomniqSynth
import Testing

/// `classify`'s dominant class is the clip rule `evaluate` scores clips by (`ClassificationSummary.clipVerdict`), read
/// from the confidences the analysis stored and each window's level.
@Suite struct ClipVerdictTests {
    /// Twelve seconds of a smoke alarm's 3.15 kHz beeps as a recorder at `sampleRate` captures them, written to a WAV.
    func alarm(sampleRate: Int) throws -> String {
        let beeps = SoundSynthesizer(sampleRate: 16_000, seed: 3).smokeAlarm(seconds: 12, levelDbfs: -12).map(Float.init)
        let path = NSTemporaryDirectory() + "somniq-verdict-\(sampleRate)-\(UUID().uuidString).wav"
        let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, container: .wav, encoding: .float32)
        try writer.write(interleaved: Resampler.convert(beeps, from: 16_000, to: sampleRate))
        return path
    }

    /// Keeping the levels alone keeps each window's `rms_dbfs` as the whole feature rows hold it, and the same
    /// confidences and verdict.
    @Test func theLevelsKeptAreTheFeatureRowsLevels() throws {
        let path = try alarm(sampleRate: 8_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let levels = try analyzer.analyze(path: path, keeping: .levels)
        let rows = try analyzer.analyze(path: path, keeping: .inMemory)
        #expect(levels.featureIDs == ["rms_dbfs"])
        #expect(levels.features.count == levels.windowCount && levels.windowCount == 24)
        let width = rows.featureIDs.count, column = rows.featureIDs.firstIndex(of: "rms_dbfs")!
        #expect(levels.features == (0..<rows.windowCount).map { rows.features[$0 * width + column] })
        #expect(levels.confidences == rows.confidences)
        let floor = bundle.classifier.detectionFloor
        let verdict = ClassificationSummary.clipVerdict(levels, detectionFloor: floor)
        #expect(verdict.label == "smoke_detector")
        #expect(verdict == ClassificationSummary.clipVerdict(rows, detectionFloor: floor))
    }

    /// A class the recording cannot hear (the alarm's tone lies above a 4 kHz recording's band) is silenced in the
    /// stored confidences, and so is never the clip's class.
    @Test func aClassTheRecordingCannotHearIsNeverItsVerdict() throws {
        let path = try alarm(sampleRate: 4_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let data = try RecordingAnalyzer(bundle: bundle).analyze(path: path, keeping: .levels)
        #expect(data.undetectableClasses.contains("smoke_detector"))
        #expect(ClassificationSummary.clipVerdict(data, detectionFloor: bundle.classifier.detectionFloor).label != "smoke_detector")
    }

    /// A recording whose loud windows are mostly none of ours is `other` in every format, though a cough was on top
    /// once and the quiet windows after it were snoring; the headline, which sets `other` aside, still names the
    /// sound of ours heard most.
    let classIDs = ["other", "cough", "snoring"]

    /// Four loud windows (other, cough, other, other) and three quiet ones of snoring: 0.8 for the class on top, 0.1
    /// for the rest.
    func flush() -> RecordingData {
        let tops = [0, 1, 0, 0, 2, 2, 2]
        let levels: [Float] = [-20, -21, -22, -24, -50, -50, -50]
        let confidences = tops.flatMap { top in classIDs.indices.map { $0 == top ? Float(0.8) : 0.1 } }
        return RecordingData(path: "/clips/flush.wav", container: "wav", encoding: "pcm16", sampleRate: 16_000,
                             channelCount: 1, frameCount: 64_000, durationSeconds: 4, startMilliseconds: 0,
                             startSource: "explicit", windowCount: tops.count, featureIDs: ["rms_dbfs"],
                             features: levels, classIDs: classIDs, confidences: confidences)
    }

    @Test func classifyReportsTheClipRule() throws {
        let file = ClassificationReport.File(flush(), detectionFloor: 0.2, includeFeatures: false)
        #expect(file.dominantClass == "other")
        #expect(file.summary.headline == "heard most: snoring, 50% of the time (other 38%)")

        let json = try JSONSerialization.jsonObject(with: Data(try ClassificationReport.json([file], bundle: bundle).utf8))
        let summary = ((json as! [String: Any])["files"] as! [[String: Any]])[0]["summary"] as! [String: Any]
        #expect(summary["dominantClass"] as? String == "other")
        let csv = ClassificationReport.csv([file])
        #expect(csv.contains("dominant,/clips/flush.wav,,,,other,,"))
        #expect(csv.contains("summary,/clips/flush.wav,,,,snoring,,"))
        #expect(ClassificationReport.table([file]).hasPrefix("/clips/flush.wav: 4.0 s, heard most: snoring, 50% of the time (other 38%); dominant: other\n"))
    }

    /// `classify --confidences`: every class's confidence in every window and whether the window is one the dominant
    /// class is read from, in json and csv; without it neither appears.
    @Test func classifyPrintsEveryConfidenceAndTheLoudWindows() throws {
        let file = ClassificationReport.File(flush(), detectionFloor: 0.2, includeFeatures: false, includeConfidences: true)
        let json = try JSONSerialization.jsonObject(with: Data(try ClassificationReport.json([file], bundle: bundle).utf8))
        let windows = ((json as! [String: Any])["files"] as! [[String: Any]])[0]["windows"] as! [[String: Any]]
        #expect(windows.map { $0["loud"] as? Bool } == [true, true, true, true, false, false, false])
        let second = windows[1]["confidences"] as! [String: Double]
        #expect(Set(second.keys) == Set(classIDs))
        #expect(abs(second["cough"]! - 0.8) < 1e-6 && abs(second["other"]! - 0.1) < 1e-6)

        let lines = ClassificationReport.csv([file]).split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines[0] == "record,file,window,start_s,end_s,class,confidence,seconds,loud,confidence_other,confidence_cough,confidence_snoring")
        try #require(lines.count == 11)
        #expect(lines[2] == "window,/clips/flush.wav,1,0.5,1.5,cough,0.8,,1,0.1,0.8,0.1")
        #expect(lines[5] == "window,/clips/flush.wav,4,2,3,snoring,0.8,,0,0.1,0.1,0.8")
        #expect(lines.last!.hasPrefix("summary,/clips/flush.wav,,,,") && lines.last!.hasSuffix(",,,,"))
        #expect(lines.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 12 })

        let plain = ClassificationReport.File(flush(), detectionFloor: 0.2, includeFeatures: false)
        #expect(!ClassificationReport.csv([plain]).contains("loud"))
        #expect(!(try ClassificationReport.json([plain], bundle: bundle)).contains("confidences"))
    }
}
