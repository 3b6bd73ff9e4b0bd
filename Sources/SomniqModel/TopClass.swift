import SomniqFeatures

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

    /// The class with the most time on top, silence, other and unclassified windows aside; `silence` when
    /// nothing else ever was. Ties go to the alphabetically first class. With `otherCompetes`, `other` is one of the
    /// contenders: a sound heard mostly as none of ours is `other`, whatever one window of it sounded like.
    public static func dominant(_ secondsPerClass: [String: Double], otherCompetes: Bool = false) -> String {
        let aside = otherCompetes ? nothing.subtracting([other]) : nothing
        return secondsPerClass.filter { !aside.contains($0.key) && $0.value > 0 }
            .max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "silence"
    }

    /// The clip rule in words (printed with clip scores, and in `classify`'s help).
    /// `other` competes: a household sound heard as none of ours in most of its loud windows is none of ours, even where one
    /// window of it sounded like a cough (with `other` aside, as before model 3.0.0, one such window made the clip a cough).
    public static let clipRule = "a clip's prediction is the class on top in the most of its loud windows (within 10 dB of its "
        + "loudest, the windows the label is about), other (none of ours) included, silence and unclassified aside; silence if "
        + "nothing else is on top"

    /// A whole clip's class (see `clipRule`) from its windows' top classes (`of`) and levels (`rms_dbfs`), and the mean
    /// confidence of that class over the loud windows where it is on top (0 when it is on top in none). What `evaluate`
    /// scores a clip by and `classify` reports as a file's dominant class.
    public static func clip(_ windows: [(label: String, confidence: Float)], levels: [Float]) -> (label: String, confidence: Float) {
        precondition(windows.count == levels.count, "one level a window")
        var seconds: [String: Double] = [:], confidenceSum: [String: Float] = [:], count: [String: Int] = [:]
        for (window, isLoud) in zip(windows, loudWindows(levels: levels)) where isLoud {
            seconds[window.label, default: 0] += AnalysisGrid.hopSeconds
            confidenceSum[window.label, default: 0] += window.confidence
            count[window.label, default: 0] += 1
        }
        let label = dominant(seconds, otherCompetes: true)
        return (label, count[label].map { confidenceSum[label]! / Float($0) } ?? 0)
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
