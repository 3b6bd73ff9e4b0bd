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
}
