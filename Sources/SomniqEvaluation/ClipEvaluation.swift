/// Scores labelled clips: each clip's predicted class against its label, through a `LabelMap`.
///
/// A clip's prediction is supplied by the caller (see `ClipScoringRule`). For class `c`: a true positive is
/// a clip whose label allows `c` and whose prediction is `c`; a false negative, a clip whose canonical
/// class is `c` but which was predicted otherwise; a false positive, a clip predicted `c` whose label
/// does not allow it (including clips whose label maps to none of our classes), except that predicting one
/// of the `nothing` classes (silence) for a clip whose label maps to none is a correct rejection. A clip of a mixed bag
/// (`LabelMap.Target.mixed`) predicted as one of the classes the bag may hold is neither right nor wrong: it is left
/// out of every count (`isScored`); predicted as nothing, it is a correct rejection; as another class, a false positive.
public struct ClipEvaluation: Sendable {
    public struct Clip: Equatable, Sendable {
        public var path: String
        public var label: String
        /// The dataset's finer category (a manifest's `orig_label`), where it has one.
        public var detail: String? = nil
        public var predicted: String
        /// The model's confidence in its prediction (for reliability tables).
        public var confidence: Float
    }

    public let map: LabelMap
    /// Predictions that mean "nothing of note".
    public let nothing: Set<String>
    public private(set) var clips: [Clip] = []
    public private(set) var excluded = 0

    public init(map: LabelMap, nothing: Set<String> = ["silence", "other", "unclassified"]) {
        self.map = map
        self.nothing = nothing
    }

    public mutating func add(path: String, label: String, detail: String? = nil, predicted: String, confidence: Float = 0) {
        if map.target(for: label, detail: detail, path: path) == .excluded {
            excluded += 1
            return
        }
        clips.append(Clip(path: path, label: label, detail: detail, predicted: predicted, confidence: confidence))
    }

    public func target(of clip: Clip) -> LabelMap.Target { map.target(for: clip.label, detail: clip.detail, path: clip.path) }

    /// Whether a clip's prediction can be judged: not a class its mixed bag may hold.
    public func isScored(_ clip: Clip) -> Bool {
        if case .mixed(let classes) = target(of: clip) { return !classes.contains(clip.predicted) }
        return true
    }

    /// Whether a clip's prediction is right: allowed by its label, or "nothing" for a label of none of ours (or a
    /// mixed bag). `nil` for a prediction that cannot be judged (`isScored`).
    public func isCorrect(_ clip: Clip) -> Bool? {
        let noneOfOurs = !Set(scoredClasses).contains(clip.predicted) || nothing.contains(clip.predicted)
        switch target(of: clip) {
        case .classes(let classes): return classes.contains(clip.predicted)
        case .none: return noneOfOurs
        case .mixed(let classes): return classes.contains(clip.predicted) ? nil : noneOfOurs
        case .excluded: return false
        }
    }

    /// Whether a label maps to none of our classes for sure (`none`) or perhaps (`mixed`): predicting nothing is right.
    func isRejection(_ clip: Clip) -> Bool {
        switch target(of: clip) {
        case .none, .mixed: nothing.contains(clip.predicted)
        case .classes, .excluded: false
        }
    }

    /// Reliability: clips predicted as one of our classes (not "nothing"), binned by confidence in tenths,
    /// with the share of them that were right. A calibrated model's share matches its bin.
    public var reliability: [(lower: Float, clips: Int, correct: Int)] {
        var bins = [(lower: Float, clips: Int, correct: Int)]((0..<10).map { (Float($0) / 10, 0, 0) })
        for clip in clips where !nothing.contains(clip.predicted) {
            guard let correct = isCorrect(clip) else { continue }
            let bin = min(9, max(0, Int(clip.confidence * 10)))
            bins[bin].clips += 1
            if correct { bins[bin].correct += 1 }
        }
        return bins.filter { $0.clips > 0 }
    }

    /// The class a clip counts for: its prediction if the label allows it, else the label's first class.
    func truth(of clip: Clip) -> String? {
        guard case .classes(let classes) = target(of: clip) else { return nil }
        return classes.contains(clip.predicted) ? clip.predicted : classes.first
    }

    /// Classes scored: every class a label maps to, sorted.
    public var scoredClasses: [String] {
        Set(clips.compactMap { clip -> [String]? in
            if case .classes(let classes) = target(of: clip) { return classes }
            return nil
        }.flatMap { $0 }).sorted()
    }

    public func counts(for label: String) -> DetectionCounts {
        var counts = DetectionCounts()
        for clip in clips where isScored(clip) {
            let truth = truth(of: clip)
            if truth == label { counts.nRef += 1 }
            if isRejection(clip) { continue }
            if clip.predicted == label { counts.nSys += 1 }
            if truth == label, clip.predicted == label { counts.truePositives += 1 }
        }
        counts.falsePositives = counts.nSys - counts.truePositives
        counts.falseNegatives = counts.nRef - counts.truePositives
        counts.deletions = counts.falseNegatives
        counts.insertions = counts.falsePositives
        return counts
    }

    /// Clips whose prediction cannot be judged: a class their mixed bag may hold (`isScored`).
    public var unjudged: Int { clips.filter { !isScored($0) }.count }

    /// Mean F1 over the scored classes that have at least one clip.
    public var macroF1: Double? {
        let values = scoredClasses.map(counts(for:)).filter { $0.nRef > 0 }.map { $0.f1 ?? 0 }
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Clips whose prediction is allowed by their label, or predicted as none of the scored classes when the
    /// label maps to none; over the clips whose prediction can be judged.
    public var accuracy: Double? {
        let judged = clips.compactMap(isCorrect)
        guard !judged.isEmpty else { return nil }
        return Double(judged.filter { $0 }.count) / Double(judged.count)
    }

    /// The clips (or windows) of none of our classes for sure (a label that maps to none, not a mixed bag), and how many
    /// of them were predicted as one of ours: the false alarms a set of ordinary sounds draws.
    public var noneOfOurs: (clips: Int, takenForOurs: Int) {
        let none = clips.filter { target(of: $0) == .none }
        return (none.count, none.count { !nothing.contains($0.predicted) })
    }

    /// Rows: dataset labels (a finer category only where the map has a line of its own for it); columns: predicted
    /// classes; in sorted order.
    public var confusion: (labels: [String], predictions: [String], counts: [[Int]]) {
        let rowLabels = clips.map { map.mapsOnItsOwn($0.label, detail: $0.detail) ? LabelMap.label($0.label, detail: $0.detail) : $0.label }
        let labels = Set(rowLabels).sorted()
        let predictions = Set(clips.map(\.predicted)).sorted()
        var counts = [[Int]](repeating: [Int](repeating: 0, count: predictions.count), count: labels.count)
        for (clip, label) in zip(clips, rowLabels) {
            counts[labels.firstIndex(of: label)!][predictions.firstIndex(of: clip.predicted)!] += 1
        }
        return (labels, predictions, counts)
    }
}
