import Foundation
import SomniqAudio
import SomniqPipeline
import SomniqSynth
import Testing

/// A file rewritten while it is read is refused, not stored with the old audio's hash under the new file's time (which
/// every later run would take for "already analysed"). The rewrite is made deterministic by doing it from the
/// analysis's own cancellation check, which it calls every ten seconds of audio.
@Suite struct FileChangedWhileReadTests {
    func recording() throws -> (folder: String, path: String) {
        let folder = NSTemporaryDirectory() + "somniq-changed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let night = SyntheticNight(seconds: 60, sampleRate: 8_000, seed: 2, backgroundDbfs: -50)
        let path = folder + "/night.wav"
        let writer = try AudioFileWriter(path: path, sampleRate: 8_000, channelCount: 1, container: .wav, encoding: .pcm16)
        try writer.write(interleaved: night.samples.map(Float.init))
        return (folder, path)
    }

    @Test(arguments: ["touched", "appended"])
    func aFileRewrittenWhileReadIsRefused(change: String) throws {
        let (folder, path) = try recording()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var changed = false
        #expect(throws: AudioFileError.changedWhileRead(path: path)) {
            _ = try RecordingAnalyzer(bundle: bundle).analyze(path: path, isCancelled: {
                if !changed {
                    changed = true
                    if change == "touched" {
                        try? FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
                    } else {
                        let handle = FileHandle(forWritingAtPath: path)!
                        handle.seekToEndOfFile()
                        handle.write(Data(repeating: 0, count: 64))
                        try? handle.close()
                    }
                }
                return false
            })
        }
        #expect(changed, "the check ran while the file was read")
    }

    /// The control: the same analysis, the file left alone, stores its size and time.
    @Test func aFileLeftAloneIsAnalysed() throws {
        let (folder, path) = try recording()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var checks = 0
        let data = try RecordingAnalyzer(bundle: bundle).analyze(path: path, isCancelled: { checks += 1; return false })
        #expect(checks > 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(data.fileSize == (attributes[.size] as? NSNumber)?.int64Value)
        #expect(data.fileModified == (attributes[.modificationDate] as? Date)?.timeIntervalSince1970)
    }
}
