/// Event-based scoring, as `sed_eval.sound_event.EventBasedMetrics` with optimal matching: a system event
/// matches a reference event of the same label when its onset is within `onsetCollar` seconds and its offset
/// within the larger of `onsetCollar` and `offsetFraction` of the reference event's length. Matches are a
/// maximum bipartite matching; among the events left over, a reference and a system event that meet both
/// conditions whatever their labels count as one substitution (overall only).
public struct EventBasedMetrics: Sendable {
    public let onsetCollar: Double
    public let offsetFraction: Double
    public private(set) var scores = DetectionScores()

    public init(onsetCollar: Double = 0.2, offsetFraction: Double = 0.5) {
        self.onsetCollar = onsetCollar
        self.offsetFraction = offsetFraction
    }

    func onsetMatches(_ reference: SoundEvent, _ estimated: SoundEvent) -> Bool {
        abs(reference.onset - estimated.onset) <= onsetCollar
    }

    func offsetMatches(_ reference: SoundEvent, _ estimated: SoundEvent) -> Bool {
        abs(reference.offset - estimated.offset) <= max(onsetCollar, offsetFraction * reference.duration)
    }

    /// Adds one file's reference and system events.
    public mutating func evaluate(reference: [SoundEvent], estimated: [SoundEvent]) {
        var overall = DetectionCounts()
        overall.nRef = reference.count
        overall.nSys = estimated.count
        let matching = Self.maximumMatching(references: reference.count, estimates: estimated.count) { ref, est in
            reference[ref].label == estimated[est].label && onsetMatches(reference[ref], estimated[est])
                && offsetMatches(reference[ref], estimated[est])
        }
        overall.truePositives = matching.count
        let matchedReferences = Set(matching.keys), matchedEstimates = Set(matching.values)
        var counted = Set<Int>()
        for ref in reference.indices where !matchedReferences.contains(ref) {
            for est in estimated.indices where !matchedEstimates.contains(est) && !counted.contains(est) {
                if onsetMatches(reference[ref], estimated[est]), offsetMatches(reference[ref], estimated[est]) {
                    counted.insert(est)
                    overall.substitutions += 1
                    break
                }
            }
        }
        overall.falsePositives = overall.nSys - overall.truePositives - overall.substitutions
        overall.falseNegatives = overall.nRef - overall.truePositives - overall.substitutions
        overall.deletions = overall.falseNegatives
        overall.insertions = overall.falsePositives
        scores.overall += overall

        for label in Set(reference.map(\.label)).union(estimated.map(\.label)).sorted() {
            let classReference = reference.filter { $0.label == label }
            let classEstimated = estimated.filter { $0.label == label }
            let classMatching = Self.maximumMatching(references: classReference.count, estimates: classEstimated.count) { ref, est in
                onsetMatches(classReference[ref], classEstimated[est]) && offsetMatches(classReference[ref], classEstimated[est])
            }
            var counts = DetectionCounts()
            counts.nRef = classReference.count
            counts.nSys = classEstimated.count
            counts.truePositives = classMatching.count
            counts.falsePositives = counts.nSys - counts.truePositives
            counts.falseNegatives = counts.nRef - counts.truePositives
            counts.deletions = counts.falseNegatives
            counts.insertions = counts.falsePositives
            scores.classWise[label, default: DetectionCounts()] += counts
        }
    }

    /// A maximum-cardinality matching (augmenting paths) between references and estimates that `compatible`
    /// allows, as `[reference: estimate]`. Tried in index order, so the result is deterministic.
    static func maximumMatching(references: Int, estimates: Int, compatible: (Int, Int) -> Bool) -> [Int: Int] {
        let edges = (0..<estimates).map { est in (0..<references).filter { compatible($0, est) } }
        var referenceOf = [Int?](repeating: nil, count: estimates)
        var estimateOf = [Int?](repeating: nil, count: references)

        func augment(_ est: Int, _ visited: inout Set<Int>) -> Bool {
            for ref in edges[est] where !visited.contains(ref) {
                visited.insert(ref)
                if estimateOf[ref] == nil || augment(estimateOf[ref]!, &visited) {
                    estimateOf[ref] = est
                    referenceOf[est] = ref
                    return true
                }
            }
            return false
        }

        for est in 0..<estimates {
            var visited = Set<Int>()
            _ = augment(est, &visited)
        }
        var matching: [Int: Int] = [:]
        for (ref, est) in estimateOf.enumerated() { if let est { matching[ref] = est } }
        return matching
    }
}
