import Foundation
import SomniqAudio
import SomniqPipeline
import SomniqStore
import SomniqSynth
import Testing

/// Progress within one long recording (#46: a single 4-hour file showed "0/1 recordings, 0.00 h" until it was done):
/// while a file is analysed, the batch's snapshot counts the audio decoded so far and the share of the file done, both
/// growing, and nothing is counted twice once the file is done.
@Suite struct ProgressWithinAFileTests {
    @Test func theAudioDecodedGrowsWhileTheOneFileIsAnalysed() throws {
        let folder = NSTemporaryDirectory() + "somniq-progress-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/long.wav"
        do {
            // 40 minutes at 8 kHz: 40 progress calls, one per minute of audio.
            let night = SyntheticNight(seconds: 2_400, sampleRate: 8_000, seed: 4, backgroundDbfs: -50)
            let writer = try AudioFileWriter(path: path, sampleRate: 8_000, channelCount: 1, container: .wav, encoding: .pcm16)
            try writer.write(interleaved: night.samples.map(Float.init))
        }
        let batch = BatchAnalyzer(analyzer: RecordingAnalyzer(bundle: bundle), store: try AnalysisStore.inMemory(),
                                  profiles: [bundle.profiles.profile(named: "balanced")!], jobs: 1)
        let watch = Watch()
        let watcher = Thread {
            while !watch.finished {
                let now = batch.snapshot
                if now.done == 0 { watch.record(now.audioSeconds + now.audioSecondsInFlight, now.filesInFlightDone) }
                usleep(500)
            }
        }
        watcher.start()
        batch.run([path]) { _ in }
        watch.finish()
        let samples = watch.samples
        let during = samples.filter { $0.share > 0 && $0.share < 1 }
        #expect(during.count >= 3, "progress seen within the file: \(samples.count) looks, \(during.count) part-way")
        #expect(zip(during, during.dropFirst()).allSatisfy { $1.seconds >= $0.seconds && $1.share >= $0.share }, "never going back")
        #expect(during.allSatisfy { abs($0.seconds - $0.share * 2_400) < 1 }, "the share is the audio decoded over the duration")
        let end = batch.snapshot
        #expect(end.done == 1 && end.audioSecondsInFlight == 0 && end.filesInFlightDone == 0)
        #expect(abs(end.audioSeconds - 2_400) < 1)
    }
}

/// What a watching thread saw of the batch's progress.
private final class Watch: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(seconds: Double, share: Double)] = []
    private var done = false

    var finished: Bool { lock.withLock { done } }
    var samples: [(seconds: Double, share: Double)] { lock.withLock { seen } }
    func record(_ seconds: Double, _ share: Double) { lock.withLock { seen.append((seconds, share)) } }
    func finish() { lock.withLock { done = true } }
}
