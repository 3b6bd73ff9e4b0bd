import Foundation
import SomniqFeatures
import SomniqModel
import SomniqStore
@testable import SomniqPipeline
import SomniqSynth
import Testing

/// The trees of a file's windows run beside the features, as another thread's errands (`ScoringAside`), handed the
/// windows in jobs; scored in place (`WindowScorer`), eight at a time. Both give the same confidences and the same
/// windows of steady breathing, bit for bit, however the windows are cut into jobs; the errands write each window's
/// stored row to the spool, in order.
@Suite struct ScoringAsideTests {
    /// The windows of a night with breathing, snoring, a cough and speech over a quiet room.
    static let vectors: [FeatureVector] = {
        var night = SyntheticNight(seconds: 150, sampleRate: 16_000, seed: 4, backgroundDbfs: -55)
        night.addBreathing(from: 2, to: 60, levelDbfs: -38)
        night.addSnoringBout(from: 62, to: 110, levelDbfs: -28)
        night.addCough(at: 115, levelDbfs: -20)
        night.addSpeech(at: 125, seconds: 10, levelDbfs: -26)
        let samples = night.samples.map { Float(max(-1, min(1, $0))) }
        let features = RecordingAnalyzer(bundle: shippedBundle).analyze(samples: samples, sampleRate: 16_000).features
        return stride(from: 0, to: features.count, by: FeatureID.count).map {
            FeatureVector(values: Array(features[$0..<($0 + FeatureID.count)]))
        }
    }()

    /// The shipped model's trees, or the hand-written rules (which hear the synthetic breathing as breathing: windows of
    /// steady breathing to note).
    static func scorer(rules: Bool, expectedWindows: Int) -> WindowScorer {
        let model = (rules ? bundle : shippedBundle).classifier
        return WindowScorer(classifier: Classifier(model: model), classIDs: model.classIDs,
                            silencedClasses: [model.classIDs.firstIndex(of: "glass_breaking")!], expectedWindows: expectedWindows)
    }

    @Test(arguments: [false, true], [[ScoringAside.jobLength], [1], [7, 64, 3, 100], [1_000]])
    func jobsOfAnyLengthScoreAsInPlace(rules: Bool, jobLengths: [Int]) throws {
        let vectors = Self.vectors
        var inPlace = Self.scorer(rules: rules, expectedWindows: vectors.count)
        for start in stride(from: 0, to: vectors.count, by: Classifier.batchSize) {
            vectors[start..<min(vectors.count, start + Classifier.batchSize)].withUnsafeBufferPointer { inPlace.score($0) }
        }
        // Room for fewer windows than come: the scorer grows its rows as a live follow's does.
        let spool = try #require(FeatureSpool(width: FeatureID.stored.count))
        let errands = Errands()
        let aside = ScoringAside(scorer: Self.scorer(rules: rules, expectedWindows: 10), spool: spool,
                                 runAside: errands.run, waitForErrands: errands.wait)
        var start = 0, job = 0
        while start < vectors.count {
            let end = min(vectors.count, start + jobLengths[job % jobLengths.count])
            aside.submit(Array(vectors[start..<end]))
            start = end
            job += 1
        }
        let scored = aside.finish()
        #expect(errands.count == job, "one errand per job handed over")
        #expect(vectors.count == 300 && scored.windowCount == vectors.count && inPlace.windowCount == vectors.count)
        let classCount = inPlace.classCount
        #expect(scored.confidences.prefix(vectors.count * classCount).map(\.bitPattern)
                == inPlace.confidences.prefix(vectors.count * classCount).map(\.bitPattern))
        #expect(inPlace.steadyBreathing.isEmpty != rules && scored.steadyBreathing == inPlace.steadyBreathing)
        let silenced = (rules ? bundle : shippedBundle).classifier.classIDs.firstIndex(of: "glass_breaking")!
        #expect((0..<vectors.count).allSatisfy { scored.confidences[$0 * classCount + silenced] == 0 })
        #expect((0..<vectors.count).contains { scored.confidences[$0 * classCount] > 0 })

        var expectedRows: [Float] = []
        for vector in vectors { FeatureID.appendStored(of: vector.values[...], to: &expectedRows) }
        var spooled: [Float] = []
        try spool.forEachBlock { first, rows in
            #expect(first * FeatureID.stored.count == spooled.count)
            spooled.append(contentsOf: rows)
        }
        #expect(spool.rowCount == vectors.count && spooled.map(\.bitPattern) == expectedRows.map(\.bitPattern))
    }

    @Test func finishingWithNothingHandedOverReturns() {
        let errands = Errands()
        let scored = ScoringAside(scorer: Self.scorer(rules: false, expectedWindows: 4), spool: nil,
                                  runAside: errands.run, waitForErrands: errands.wait).finish()
        #expect(scored.windowCount == 0 && scored.steadyBreathing.isEmpty)
    }
}

/// Errands run one after another on a serial queue of their own, as a decoding thread runs them.
private final class Errands: @unchecked Sendable {
    private let queue = DispatchQueue(label: "somniq-tests-errands")
    private let lock = NSLock()
    private var handedOver = 0
    var count: Int { lock.withLock { handedOver } }

    func run(_ errand: @escaping () -> Void) {
        lock.withLock { handedOver += 1 }
        nonisolated(unsafe) let errand = errand
        queue.async { errand() }
    }

    func wait() { queue.sync {} }
}
