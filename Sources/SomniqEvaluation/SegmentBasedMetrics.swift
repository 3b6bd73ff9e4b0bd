import Foundation

/// Segment-based scoring, as `sed_eval.sound_event.SegmentBasedMetrics`: time is cut into segments of
/// `resolution` seconds; a class is active in a segment if any of its events overlaps it (an event from
/// `onset` to `offset` covers segments `floor(onset / r) ..< ceil(offset / r)`). A file is evaluated up to
/// the later of its reference's and its system output's last offset.
public struct SegmentBasedMetrics: Sendable {
    public let resolution: Double
    public private(set) var scores = DetectionScores()

    public init(resolution: Double = 1.0) { self.resolution = resolution }

    /// Adds one file's reference and system events.
    public mutating func evaluate(reference: [SoundEvent], estimated: [SoundEvent]) {
        let labels = Set(reference.map(\.label)).union(estimated.map(\.label)).sorted()
        let lastOffset = max(reference.map(\.offset).max() ?? 0, estimated.map(\.offset).max() ?? 0)
        let segments = Int((lastOffset / resolution).rounded(.up))
        let referenceRoll = roll(reference, labels: labels, segments: segments)
        let estimatedRoll = roll(estimated, labels: labels, segments: segments)
        for label in labels where scores.classWise[label] == nil { scores.classWise[label] = DetectionCounts() }

        for segment in 0..<segments {
            var counts = DetectionCounts()
            for classIndex in labels.indices {
                let ref = referenceRoll[classIndex][segment], sys = estimatedRoll[classIndex][segment]
                var classCounts = DetectionCounts()
                classCounts.nRef = ref ? 1 : 0
                classCounts.nSys = sys ? 1 : 0
                classCounts.truePositives = ref && sys ? 1 : 0
                classCounts.falsePositives = sys && !ref ? 1 : 0
                classCounts.falseNegatives = ref && !sys ? 1 : 0
                classCounts.deletions = classCounts.falseNegatives
                classCounts.insertions = classCounts.falsePositives
                scores.classWise[labels[classIndex]]! += classCounts
                counts.nRef += classCounts.nRef
                counts.nSys += classCounts.nSys
                counts.truePositives += classCounts.truePositives
                counts.falsePositives += classCounts.falsePositives
                counts.falseNegatives += classCounts.falseNegatives
            }
            // Within a segment, a missed class and a spurious one together are one substitution.
            counts.substitutions = min(counts.nRef, counts.nSys) - counts.truePositives
            counts.deletions = max(0, counts.nRef - counts.nSys)
            counts.insertions = max(0, counts.nSys - counts.nRef)
            scores.overall += counts
        }
    }

    private func roll(_ events: [SoundEvent], labels: [String], segments: Int) -> [[Bool]] {
        var roll = [[Bool]](repeating: [Bool](repeating: false, count: segments), count: labels.count)
        for event in events {
            let classIndex = labels.firstIndex(of: event.label)!
            let first = Int((event.onset / resolution).rounded(.down))
            let end = min(segments, Int((event.offset / resolution).rounded(.up)))
            if first < end { for segment in first..<end { roll[classIndex][segment] = true } }
        }
        return roll
    }
}
