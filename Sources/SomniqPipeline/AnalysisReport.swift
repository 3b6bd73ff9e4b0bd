import SomniqDetection
import SomniqFeatures
import SomniqStore

/// The per-recording summary `analyze` prints.
public enum AnalysisReport {
    public static func text(_ data: RecordingData, results: [ProfileResult], detectionFloor: Float) -> String {
        let summary = ClassificationSummary(data, detectionFloor: detectionFloor)
        let start = UTCTimestamp.format(milliseconds: data.startMilliseconds)
        var text = "\(data.path)\n"
        text += "  \(Formatting.clock(data.durationSeconds)) (\(Formatting.fixed(data.durationSeconds, 1)) s), "
            + "\(data.container) \(data.encoding), \(data.sampleRate) Hz, \(data.channelCount) ch, \(data.windowCount) windows\n"
        text += "  start \(start) (from \(data.startSource)); mostly \(summary.dominantClass)\n"
        if !data.undetectableClasses.isEmpty {
            text += "  not detectable at \(data.sampleRate) Hz (the sound lies above this recording's band): "
                + data.undetectableClasses.joined(separator: ", ") + "\n"
        }
        for result in results {
            text += "  \(result.profile): \(result.alerts.count) alerts, \(result.episodes.count) episodes\n"
            guard !result.episodes.isEmpty else { continue }
            var table = TextTable(headers: ["start", "end", "class", "tier", "severity", "peak", "alerts"],
                                  alignments: [.right, .right, .left, .left, .left, .right, .right])
            for episode in result.episodes {
                table.append([Formatting.clock(episode.startSeconds), Formatting.clock(episode.endSeconds),
                              data.classIDs[episode.classIndex], episode.tier.rawValue, episode.severity.rawValue,
                              Formatting.fixed(Double(episode.peakConfidence), 2), String(episode.alertCount)])
            }
            text += table.render(indent: "    ")
        }
        return text
    }
}
