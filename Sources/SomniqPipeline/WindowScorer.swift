import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqStore

/// Turns windows' features into their confidences, in window order: the model's trees (`Classifier.batchSize` windows
/// at a time), the classes the recording cannot hear set to 0, and the windows of steady breathing noted for the night
/// summary (`NightSummary.RhythmWindow`).
struct WindowScorer: Sendable {
    let classifier: Classifier
    let classCount: Int
    /// Model positions of the classes the recording cannot hear: their confidence is 0, not a guess.
    let silencedClasses: [Int]
    let classIDs: [String]
    /// Row-major, `classCount` a window; room for more windows than scored (`windowCount` says how many are).
    var confidences: [Float]
    private(set) var windowCount = 0
    var steadyBreathing: [NightSummary.RhythmWindow] = []

    init(classifier: Classifier, classIDs: [String], silencedClasses: [Int], expectedWindows: Int) {
        self.classifier = classifier
        classCount = classifier.classCount
        self.classIDs = classIDs
        self.silencedClasses = silencedClasses
        confidences = [Float](repeating: 0, count: expectedWindows * classCount)
    }

    /// Scores the next windows (any number: they are walked `Classifier.batchSize` at a time, which gives the same
    /// confidences, bit for bit, as one at a time).
    mutating func score(_ vectors: UnsafeBufferPointer<FeatureVector>) {
        guard !vectors.isEmpty else { return }
        let first = windowCount, classCount = classCount
        windowCount += vectors.count
        while windowCount * classCount > confidences.count {
            confidences += [Float](repeating: 0, count: max(confidences.count, classCount))
        }
        confidences.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            while start < vectors.count {
                let end = min(vectors.count, start + Classifier.batchSize)
                let rows = UnsafeMutableBufferPointer(rebasing: buffer[((first + start) * classCount)..<((first + end) * classCount)])
                classifier.classify(batch: UnsafeBufferPointer(rebasing: vectors[start..<end]), into: rows)
                start = end
            }
            for window in first..<windowCount {
                for index in silencedClasses { buffer[window * classCount + index] = 0 }
            }
        }
        for (offset, vector) in vectors.enumerated() where vector[.breathingPeriodicity] >= NightSummary.steadyRhythm {
            let window = first + offset
            let top = TopClass.of(confidences[(window * classCount)..<((window + 1) * classCount)], classIDs: classIDs, floor: 0)
            if let steady = NightSummary.RhythmWindow(window: window, topClass: top.label, topConfidence: top.confidence,
                                                      periodicity: vector[.breathingPeriodicity],
                                                      periodSeconds: vector[.breathingPeriodSeconds]) {
                steadyBreathing.append(steady)
            }
        }
    }
}

/// A `WindowScorer` beside the thread that computes the features: as `ReadAhead`'s errands (`ReadAhead.runAside`), run
/// by the decoding thread or by the features' thread when it would otherwise wait for a chunk.
///
/// A night analysed on two cores runs decoding and conditioning on one thread (`ReadAhead`) and the features on
/// another; the trees, about a tenth of the work, ran on the features' thread, which then set the pace while the decoding
/// thread waited. They then ran on a third thread, which took turns with the features' thread whenever the decoding
/// thread was busy too; as errands, between the decoding thread's chunks or while the features' thread waits for one,
/// two threads share two cores and the trees go to whichever is ahead. Windows are
/// handed over `jobLength` at a time (one hand-over per half a minute of audio, not per window); the scorer sees the
/// same windows in the same order, so the confidences are those of the features' thread, bit for bit. Headed for the
/// database, it also writes each window's stored row to the spool (`FeatureSpool`, a copy into the page cache the
/// features' thread no longer waits on), in window order as the features' thread would.
final class ScoringAside: @unchecked Sendable {
    static let jobLength = 64

    /// The errands' own until `finish()` returns.
    private var scorer: WindowScorer
    /// Where the windows' stored rows go, the errands' own until `finish()` returns; `storedRow` is their scratch.
    private let spool: FeatureSpool?
    private var storedRow: [Float] = []
    private let runAside: (@escaping () -> Void) -> Void
    private let waitForErrands: () -> Void

    /// Scores with `scorer` in errands handed to `runAside`, which runs them one after another in the order handed
    /// over; `waitForErrands` returns once all have run.
    init(scorer: WindowScorer, spool: FeatureSpool?, runAside: @escaping (@escaping () -> Void) -> Void,
         waitForErrands: @escaping () -> Void) {
        self.scorer = scorer
        self.spool = spool
        self.runAside = runAside
        self.waitForErrands = waitForErrands
    }

    /// Scores with `scorer` as `readAhead`'s errands.
    convenience init<Product>(scorer: WindowScorer, spool: FeatureSpool?, on readAhead: ReadAhead<Product>) {
        self.init(scorer: scorer, spool: spool, runAside: { readAhead.runAside($0) }, waitForErrands: { readAhead.waitForErrands() })
    }

    /// Hands over the next windows.
    func submit(_ vectors: [FeatureVector]) {
        runAside { [self] in score(vectors) }
    }

    /// Waits until every window handed over is scored; the scorer, with all of them.
    func finish() -> WindowScorer {
        waitForErrands()
        return scorer
    }

    private func score(_ job: [FeatureVector]) {
        job.withUnsafeBufferPointer { scorer.score($0) }
        if let spool {
            for vector in job { spool.appendStored(of: vector, using: &storedRow) }
        }
    }
}

extension FeatureSpool {
    /// Adds the row a database keeps of `vector` (`FeatureID.stored`), built in `row` (scratch, reused).
    func appendStored(of vector: FeatureVector, using row: inout [Float]) {
        row.removeAll(keepingCapacity: true)
        FeatureID.appendStored(of: vector.values[...], to: &row)
        append(row)
    }
}
