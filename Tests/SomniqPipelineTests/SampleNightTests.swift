import Foundation
import SomniqAudio
import SomniqDetection
import SomniqModel
import SomniqPipeline
import SomniqStore
import SomniqSynth
import Testing

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
/// The hand-written model the synthetic night was designed with (the fitted default is scored on real audio).
let bundle = try! ModelBundle.load(path: root + "/models/rules")
let sampleNight = root + "/fixtures/sample-night/sleep_recording_1795302000.caf"

/// One line of a DCASE ground-truth table.
struct LabelledEvent {
    var onset: Double, offset: Double, label: String
}

func groundTruth(_ path: String) throws -> [LabelledEvent] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
        let fields = line.split(separator: "\t")
        return LabelledEvent(onset: Double(fields[1])!, offset: Double(fields[2])!, label: String(fields[3]))
    }
}

@Suite struct SampleNightTests {
    let analyzer = RecordingAnalyzer(bundle: bundle)

    @Test func balancedFindsEveryScriptedEventAsAnEpisodeOfItsClass() throws {
        let data = try analyzer.analyze(path: sampleNight)
        let truth = try groundTruth(root + "/fixtures/sample-night/sleep_recording_1795302000.tsv")
        let balanced = analyzer.runProfiles([bundle.profiles.profile(named: "balanced")!], on: data)[0]
        let episodes = balanced.episodes.map { (data.classIDs[$0.classIndex], $0.startSeconds, $0.endSeconds) }
        // An episode may start a little early (a window reaches back 1 s) and end late (smoothing releases slowly).
        func matches(_ episode: (String, Double, Double), _ event: LabelledEvent) -> Bool {
            episode.0 == event.label && episode.1 <= event.offset + 1 && episode.2 >= event.onset - 1
        }
        for event in truth {
            #expect(episodes.contains { matches($0, event) }, "no \(event.label) episode for \(event.onset)–\(event.offset) s; got \(episodes)")
        }
        for episode in episodes {
            #expect(truth.contains { matches(episode, $0) }, "episode \(episode) matches no scripted event")
        }
    }

    @Test func readsTheStartFromTheAppsFileName() throws {
        let data = try analyzer.analyze(path: sampleNight)
        #expect(data.startSource == "file-name")
        #expect(UTCTimestamp.format(milliseconds: data.startMilliseconds) == "2026-11-21T23:00:00.000Z")
        #expect(data.windowCount == 480)
        #expect(data.container == "CAF")
    }

    @Test func theSameFileGivesTheSameBits() throws {
        let first = try analyzer.analyze(path: sampleNight)
        let second = try analyzer.analyze(path: sampleNight)
        #expect(first.features == second.features)
        #expect(first.confidences == second.confidences)
        #expect(analyzer.runProfiles(bundle.profiles.profiles, on: first) == analyzer.runProfiles(bundle.profiles.profiles, on: second))
    }

    @Test func stereoCopiesAnalyseLikeMono() throws {
        let folder = NSTemporaryDirectory() + "somniq-pipeline-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var synth = SoundSynthesizer(sampleRate: 22_050, seed: 4)
        let samples = synth.speech(seconds: 6, levelDbfs: -25).map { Float($0) }
        for channels in [1, 2] {
            let writer = try AudioFileWriter(path: folder + "/\(channels).wav", sampleRate: 22_050, channelCount: channels,
                                             encoding: .float32)
            try writer.write(interleaved: samples.flatMap { Array(repeating: $0, count: channels) })
        }
        let mono = try analyzer.analyze(path: folder + "/1.wav", explicitStart: Date(timeIntervalSince1970: 0))
        let stereo = try analyzer.analyze(path: folder + "/2.wav", explicitStart: Date(timeIntervalSince1970: 0))
        #expect(mono.features == stereo.features)
        #expect(mono.windowCount == 12)
    }
}

@Suite struct InputCollectorTests {
    @Test func searchesFoldersByAudioExtensionInOrder() throws {
        let folder = NSTemporaryDirectory() + "somniq-inputs-\(UUID().uuidString)"
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: folder + "/b/deeper", withIntermediateDirectories: true)
        for name in ["b/deeper/z.WAV", "a.caf", "notes.txt", ".hidden.wav", "b/c.Flac", "b/memo.M4A", "call.amr", "photo.jpg"] {
            #expect(fileManager.createFile(atPath: folder + "/" + name, contents: Data([1])))
        }
        defer { try? fileManager.removeItem(atPath: folder) }
        let found = InputCollector.collect([folder, folder + "/a.caf", folder + "/missing.wav"])
        // Recordings libsndfile cannot read are listed too (the analysis says what to do with each); other files are not.
        #expect(found == [folder + "/a.caf", folder + "/b/c.Flac", folder + "/b/deeper/z.WAV", folder + "/b/memo.M4A",
                          folder + "/call.amr", folder + "/missing.wav"])
    }
}
