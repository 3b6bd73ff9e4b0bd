import SomniqDetection
import SomniqFeatures
import SomniqStore

/// The per-recording summary `analyze` prints.
public enum AnalysisReport {
    public static func text(_ data: RecordingData, results: [ProfileResult], detectionFloor: Float) -> String {
        let summary = ClassificationSummary(data, detectionFloor: detectionFloor)
        let start = UTCTimestamp.format(milliseconds: data.startMilliseconds)
        var text = "\(Formatting.printable(data.path))\n"
        text += "  \(Formatting.clock(data.durationSeconds)) (\(Formatting.tenths(data.durationSeconds)) s), "
            + "\(data.container) \(data.encoding), \(data.sampleRate) Hz, \(data.channelCount) ch, "
            + "\(Formatting.counted(data.windowCount, "window"))\n"
        text += "  start \(start) (from \(data.startSource)); \(summary.headline)\n"
        let minutes = summary.minutesPerClass
        if !minutes.isEmpty {
            text += "  time on top: " + minutes.map { "\($0.0) \(Formatting.duration($0.1 * 60))" }.joined(separator: ", ") + "\n"
        }
        if let timeline = data.timeline {
            text += rhythmLines(data, timeline: timeline)
        }
        if let summary = NightSummary(data).map({ NightSummaryRecord(recordingID: 0, $0) }) {
            for line in [SnoringWords.score(summary), SnoringWords.pace(summary)].compactMap({ $0 }) { text += "  \(line)\n" }
        }
        if !data.undetectableClasses.isEmpty {
            text += "  not detectable at \(data.sampleRate) Hz (the sound lies above this recording's band): "
                + data.undetectableClasses.joined(separator: ", ") + "\n"
        }
        for result in results {
            text += "  \(result.profile): \(Formatting.counted(result.alerts.count, "alert")), "
                + "\(Formatting.counted(result.episodes.count, "episode"))\n"
            guard !result.episodes.isEmpty else { continue }
            var table = TextTable(headers: ["start", "end", "class", "tier", "severity", "peak", "dBFS", "alerts"],
                                  alignments: [.right, .right, .left, .left, .left, .right, .right, .right])
            for episode in result.episodes {
                table.append([Formatting.clock(episode.startSeconds), Formatting.clock(episode.endSeconds),
                              data.classIDs[episode.classIndex], episode.tier.rawValue, episode.severity.rawValue,
                              Formatting.fixed(Double(episode.peakConfidence), 2),
                              episode.peakDbfs.map { Formatting.fixed(Double($0), 1) } ?? "", String(episode.alertCount)])
            }
            text += table.render(indent: "    ")
        }
        return text
    }

    /// Per class with a rhythm that was heard: its events, their rate, the bouts, and the loudest.
    static func rhythmLines(_ data: RecordingData, timeline: RecordingTimeline) -> String {
        var text = ""
        let hours = max(data.durationSeconds, 1e-9) / 3600
        for classIndex in Set(timeline.events.map(\.classIndex)).sorted() {
            let events = timeline.events.filter { $0.classIndex == classIndex }
            let bouts = timeline.bouts.filter { $0.classIndex == classIndex }
            let name = data.classIDs[classIndex]
            var line: String
            if name == NightSummary.snoringClass {
                // Snores are the sounds heard as snoring within bouts (as the night summary, the report and the exports
                // count them); a snore-like sound on its own is said apart.
                let inBouts = events.count { $0.bout != nil }, alone = events.count - inBouts
                line = "  \(name): \(Formatting.counted(inBouts, "snore")) in bouts (\(Formatting.fixed(Double(inBouts) / hours, 0)) an hour)"
                    + (alone > 0 ? " and \(Formatting.counted(alone, "snore-like sound")) on \(alone == 1 ? "its" : "their") own" : "")
            } else {
                line = "  \(name): \(Formatting.counted(events.count, name + " event")) (\(Formatting.fixed(Double(events.count) / hours, 0)) an hour)"
            }
            // Bouts are said where there are some ("0.0 min in 0 bouts" said nothing).
            if let longest = bouts.max(by: { $0.durationSeconds < $1.durationSeconds }) {
                line += ", \(Formatting.duration(bouts.reduce(0) { $0 + $1.durationSeconds })) in \(Formatting.counted(bouts.count, "bout"))"
                    + ", longest \(Formatting.duration(longest.durationSeconds)) from \(Formatting.clock(longest.onsetSeconds))"
            }
            // The loudest of those in bouts where there are bouts (and of snores, always): a lone loud sound the classifier
            // leant towards is the likeliest to be something else.
            let candidates = bouts.isEmpty && name != NightSummary.snoringClass ? events : events.filter { $0.bout != nil }
            let loudest = candidates.sorted { ($0.peakDbfs, $1.onsetSeconds) > ($1.peakDbfs, $0.onsetSeconds) }.prefix(3)
            if !loudest.isEmpty {
                line += "; loudest " + loudest.map { "\(Formatting.clock($0.onsetSeconds)) (\(Formatting.fixed(Double($0.peakDbfs), 1)) dBFS)" }
                    .joined(separator: ", ")
            }
            text += line + "\n"
        }
        return text
    }
}
