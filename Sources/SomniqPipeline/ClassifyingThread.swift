import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel

/// How one window's features become its confidences: the classifier, then classes the recording cannot hear set to 0,
/// and whether the window is a steady breath for the night summary.
struct WindowClassifier: Sendable {
    let classifier: Classifier
    let classIDs: [String]
    /// Model positions of the classes the recording's rate cannot hear: their confidence is 0, not a guess.
    let silencedClasses: [Int]

    var classCount: Int { classifier.classCount }

    /// Fills `row` with window `window`'s confidences; the window as a steady breath, or nil.
    func classify(_ vector: FeatureVector, window: Int, into row: UnsafeMutableBufferPointer<Float>) -> NightSummary.RhythmWindow? {
        classifier.classify(vector, into: row)
        for index in silencedClasses { row[index] = 0 }
        guard vector[.breathingPeriodicity] >= NightSummary.steadyRhythm else { return nil }
        let top = TopClass.of(row, classIDs: classIDs, floor: 0)
        return NightSummary.RhythmWindow(window: window, topClass: top.label, topConfidence: top.confidence,
                                         periodicity: vector[.breathingPeriodicity],
                                         periodSeconds: vector[.breathingPeriodSeconds])
    }
}

/// Classifies a recording's windows on a thread of its own, a block of windows behind the thread that extracts their
/// features: the classifier (hundreds of trees a class) is a third of the analysis thread's work, and the decoding
/// thread (`ReadAhead`) leaves the second core idle most of the time. Each window's confidences depend on its own
/// features only, so they are the same, bit for bit, as classifying each window as its features come.
///
/// The thread that extracts the features calls `add` for each window in order, then `finish` (or `stop`, which may
/// follow `finish`); nothing else.
final class ClassifyingThread: @unchecked Sendable {
    /// Windows handed over at once (two minutes of audio): one wake-up per block, not per window.
    static let blockWindows = 240
    /// Blocks handed over and not yet classified, at most: the feature thread waits rather than hold more in memory.
    static let depth = 8

    private let windows: WindowClassifier
    private let condition = NSCondition()
    /// Feature rows handed over, oldest first, each with the index of its first window.
    private var pending: [(first: Int, rows: [Float])] = []
    private var closed = false
    private var running = true
    /// What the thread has made, in window order (only the classifying thread writes them until `finish` returns).
    private var confidences: [Float] = []
    private var steadyBreathing: [NightSummary.RhythmWindow] = []
    /// The block being filled (only the feature thread touches it).
    private var block: [Float] = []
    private var blockFirst = 0
    private var added = 0

    init(_ windows: WindowClassifier, expectedWindows: Int) {
        self.windows = windows
        confidences.reserveCapacity(expectedWindows * windows.classCount)
        block.reserveCapacity(Self.blockWindows * FeatureID.count)
        let thread = Thread { [self] in work() }
        thread.name = "somniq-classify"
        thread.start()
    }

    /// The next window's features.
    func add(_ vector: FeatureVector) {
        block.append(contentsOf: vector.values)
        added += 1
        if added - blockFirst == Self.blockWindows { handOver() }
    }

    /// Waits for every window added to be classified: their confidences (row-major, window order) and the steady
    /// breaths among them.
    func finish() -> (confidences: [Float], steadyBreathing: [NightSummary.RhythmWindow]) {
        if added > blockFirst { handOver() }
        condition.lock()
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
        return (confidences, steadyBreathing)
    }

    /// Stops the thread without classifying what is still pending (an analysis that failed or was stopped); nothing
    /// after `finish`.
    func stop() {
        condition.lock()
        closed = true
        pending.removeAll()
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func handOver() {
        condition.lock()
        while pending.count >= Self.depth { condition.wait() }
        pending.append((blockFirst, block))
        condition.broadcast()
        condition.unlock()
        block.removeAll(keepingCapacity: true)
        blockFirst = added
    }

    private func work() {
        let width = FeatureID.count, classCount = windows.classCount
        while true {
            condition.lock()
            while pending.isEmpty && !closed { condition.wait() }
            guard !pending.isEmpty else {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            let (first, rows) = pending.removeFirst()
            condition.broadcast()
            condition.unlock()

            let count = rows.count / width, start = confidences.count
            confidences.append(contentsOf: repeatElement(0, count: count * classCount))
            confidences.withUnsafeMutableBufferPointer { buffer in
                for index in 0..<count {
                    let vector = FeatureVector(values: Array(rows[(index * width)..<((index + 1) * width)]))
                    let row = UnsafeMutableBufferPointer(rebasing: buffer[(start + index * classCount)..<(start + (index + 1) * classCount)])
                    if let steady = windows.classify(vector, window: first + index, into: row) { steadyBreathing.append(steady) }
                }
            }
        }
    }
}
