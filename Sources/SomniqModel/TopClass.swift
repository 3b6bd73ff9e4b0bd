import Foundation

/// Which class a window, and a whole recording, mostly sounded like. Shared by the `classify` summary
/// and the clip scoring, so that both apply one rule.
public enum TopClass {
    /// The label of a window whose best confidence is below the model's detection floor.
    public static let unclassified = "unclassified"
    /// The class of sounds that are none of the model's others.
    public static let other = "other"
    /// Labels that say "nothing of note".
    public static let nothing: Set<String> = ["silence", other, unclassified]

    /// The window's best class (the first in model order on a tie), or `unclassified` below `floor`.
    /// Inlinable, so that callers in other modules get it specialised for their collection (one call a window).
    @inlinable
    public static func of<Confidences: RandomAccessCollection>(_ confidences: Confidences, classIDs: [String],
                                                                floor: Float) -> (label: String, confidence: Float)
    where Confidences.Element == Float, Confidences.Index == Int {
        var top = confidences.startIndex
        for index in confidences.indices where confidences[index] > confidences[top] { top = index }
        let confidence = confidences[top]
        return (confidence >= floor ? classIDs[top - confidences.startIndex] : unclassified, confidence)
    }

    /// The class with the most time on top, silence, other and unclassified windows aside (a recording's headline);
    /// `silence` when nothing else ever was. Ties go to the alphabetically first class.
    public static func dominant(_ secondsPerClass: [String: Double]) -> String {
        secondsPerClass.filter { !nothing.contains($0.key) && $0.value > 0 }
            .max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "silence"
    }

    /// The clip rule in words (printed with clip scores, and in `classify`'s help).
    public static let clipRule = "a clip's prediction is the class whose confidences, multiplied over its loud windows (within 10 dB "
        + "of its loudest, the windows the label is about), are the highest: their geometric mean, other (none of ours) included, "
        + "silence aside; silence if no loud window has another class on top"

    /// The smallest confidence a window's evidence counts at: a class at 0 in one window weighs as at one in a million
    /// (a strong vote against, not an end to it).
    public static let clipConfidenceFloor: Float = 1e-6

    /// A whole clip's class (see `clipRule`) from its windows' confidences (`windowCount × classIDs.count`, a row a
    /// window, in `classIDs`' order) and levels (`rms_dbfs`), and that class's geometric mean confidence over the loud
    /// windows. What `evaluate` scores a clip by and `classify` reports as a file's dominant class.
    ///
    /// Each window is evidence about the one sound the clip holds, so the windows' confidences are pooled as frame
    /// posteriors are pooled into a segment's decision: the mean of their logarithms, class by class. A class that one
    /// window hears at 0.9 and its neighbours at 0.05 loses to one heard at 0.5 throughout, where a vote of the windows'
    /// top classes gave each window's runner-up nothing. Since model 3.7.0 the confidences are the clip calibrations'
    /// (`ClassifierModel.choosingClips`). `floor` is the model's detection floor: a loud window whose best class is below
    /// it is no class on top, as in `of`. Ties go to the alphabetically first class.
    public static func clip<Confidences: RandomAccessCollection>(_ confidences: Confidences, classIDs: [String], levels: [Float],
                                                                floor: Float) -> (label: String, confidence: Float)
    where Confidences.Element == Float, Confidences.Index == Int {
        let classCount = classIDs.count
        precondition(confidences.count == levels.count * classCount, "one row of confidences a window")
        let silence = classIDs.firstIndex(of: "silence")
        var logSums = [Double](repeating: 0, count: classCount)
        var loudCount = 0, anotherOnTop = false
        var silenceSum: Float = 0, silenceOnTop = 0
        for (window, isLoud) in loudWindows(levels: levels).enumerated() where isLoud {
            let row = confidences.startIndex + window * classCount
            let top = of(confidences[row..<(row + classCount)], classIDs: classIDs, floor: floor)
            if top.label == "silence" {
                silenceSum += top.confidence
                silenceOnTop += 1
            } else if top.label != unclassified {
                anotherOnTop = true
            }
            loudCount += 1
            for index in 0..<classCount {
                logSums[index] += Double(log(max(confidences[row + index], clipConfidenceFloor)))
            }
        }
        guard anotherOnTop else { return ("silence", silenceOnTop > 0 ? silenceSum / Float(silenceOnTop) : 0) }
        var best = -1
        for index in 0..<classCount where index != silence {
            if best < 0 || logSums[index] > logSums[best] || (logSums[index] == logSums[best] && classIDs[index] < classIDs[best]) {
                best = index
            }
        }
        return (classIDs[best], Float(exp(logSums[best] / Double(loudCount))))
    }

    /// The windows a clip's label is about: those within `rangeDecibels` of its loudest and above `floorDbfs`; the
    /// loudest alone when none is (a silent clip keeps one window).
    public static func loudWindows(levels: [Float], rangeDecibels: Float = 10, floorDbfs: Float = -70) -> [Bool] {
        guard let loudest = levels.max() else { return [] }
        var loud = levels.map { $0 >= loudest - rangeDecibels && $0 > floorDbfs }
        if !loud.contains(true), let index = levels.firstIndex(of: loudest) { loud[index] = true }
        return loud
    }
}
