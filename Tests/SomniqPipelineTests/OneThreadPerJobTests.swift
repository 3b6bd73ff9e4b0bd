import Foundation
import SomniqAudio
@testable import SomniqPipeline
import SomniqStore
import SomniqSynth
import Testing

/// A batch whose jobs keep every core busy analyses each night on its job's one thread (a second thread per night
/// would only add hand-overs); the nights left when fewer remain than the cores spread over them again. Either way a
/// night's confidences are the same, bit for bit.
@Suite struct OneThreadPerJobTests {
    func batch(jobs: Int, cores: Int) throws -> BatchAnalyzer {
        BatchAnalyzer(analyzer: RecordingAnalyzer(bundle: bundle), store: try AnalysisStore.inMemory(),
                      profiles: [bundle.profiles.profile(named: "balanced")!], jobs: jobs, cores: cores)
    }

    @Test func onlyTheLastNightsSpreadWhileTheJobsFillTheCores() throws {
        let two = try batch(jobs: 2, cores: 2)
        #expect((0..<19).allSatisfy { !two.spreads(index: $0, of: 20) })
        #expect(two.spreads(index: 19, of: 20), "the last night, alone on two cores")
        let one = try batch(jobs: 1, cores: 2)
        #expect((0..<20).allSatisfy { one.spreads(index: $0, of: 20) }, "one job on two cores: every night spreads")
        let four = try batch(jobs: 4, cores: 2)
        #expect(!four.spreads(index: 18, of: 20) && four.spreads(index: 19, of: 20))
        let eightOnEight = try batch(jobs: 8, cores: 8)
        #expect(!eightOnEight.spreads(index: 12, of: 20) && eightOnEight.spreads(index: 13, of: 20))
        let oneCore = try batch(jobs: 1, cores: 1)
        #expect(!oneCore.spreads(index: 0, of: 1), "one core: nothing to spread over")
    }

    @Test func nightsOnOneThreadScoreAsNightsSpread() throws {
        let folder = NSTemporaryDirectory() + "somniq-one-thread-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var paths: [String] = []
        for (seed, rate) in [(3, 16_000), (5, 44_100), (8, 8_000)] {
            var night = SyntheticNight(seconds: 30, sampleRate: rate, seed: UInt64(seed), backgroundDbfs: -48)
            night.addSpeech(at: 4, seconds: 5, levelDbfs: -24)
            night.addCough(at: 17, levelDbfs: -20)
            let path = folder + "/night-\(seed).wav"
            let writer = try AudioFileWriter(path: path, sampleRate: rate, channelCount: 1, container: .wav, encoding: .pcm16)
            try writer.write(interleaved: night.samples.map { Float(max(-1, min(1, $0))) })
            paths.append(path)
        }
        func confidences(jobs: Int) throws -> [String: [UInt32]] {
            let results = Results()
            try batch(jobs: jobs, cores: 2).run(paths) { outcome in
                if case .analysed(let data, _) = outcome { results.add(data.path, data.confidences.map(\.bitPattern)) }
            }
            return results.byPath
        }
        let spread = try confidences(jobs: 1)
        let oneThreadEach = try confidences(jobs: 2)
        #expect(spread.count == 3 && spread.values.allSatisfy { $0.count >= 59 * bundle.classifier.classIDs.count })
        #expect(oneThreadEach == spread)
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String: [UInt32]] = [:]
    var byPath: [String: [UInt32]] { lock.withLock { stored } }
    func add(_ path: String, _ bits: [UInt32]) { lock.withLock { stored[path] = bits } }
}
