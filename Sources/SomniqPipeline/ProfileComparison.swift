import SomniqDetection
import SomniqModel
import SomniqReports
import SomniqStore

/// The five profiles side by side on one recording's confidences, and what switching between neighbours
/// gains or loses.
public struct ProfileComparison: Sendable {
    public struct Column: Sendable, Encodable {
        public var profile: String
        public var alerts: Int
        public var episodes: Int
        public var alertsByTier: [String: Int]
        public var alertsByClass: [String: Int]
        public var episodesBySeverity: [String: Int]
        /// Time covered by at least one episode, minutes.
        public var minutesInAlert: Double
        /// Seconds from the recording's start; `nil` without alerts.
        public var firstAlertSeconds: Double?
        public var lastAlertSeconds: Double?
    }

    /// An episode the looser profile has where the stricter has none of that class.
    public struct Gain: Sendable, Encodable {
        public var `class`: String
        public var startSeconds: Double
        public var endSeconds: Double
        public var alerts: Int
    }

    public struct Switch: Sendable, Encodable {
        public var from: String
        public var to: String
        public var extraAlerts: Int
        public var newEpisodes: [Gain]
    }

    public var path: String
    public var durationSeconds: Double
    public var columns: [Column]
    /// From each profile to the next looser one.
    public var switches: [Switch]

    public init(data: RecordingData, results: [ProfileResult]) {
        path = data.path
        durationSeconds = data.durationSeconds
        columns = results.map { result in
            var byTier: [String: Int] = [:], byClass: [String: Int] = [:], bySeverity: [String: Int] = [:]
            for alert in result.alerts {
                byClass[data.classIDs[alert.classIndex], default: 0] += 1
                if let tier = result.rules[alert.classIndex]?.tier { byTier[tier.rawValue, default: 0] += 1 }
            }
            for episode in result.episodes { bySeverity[episode.severity.rawValue, default: 0] += 1 }
            let times = result.alerts.map { AnalysisStore.alertOffsetSeconds(frame: $0.frame, durationSeconds: data.durationSeconds) }
            return Column(profile: result.profile, alerts: result.alerts.count, episodes: result.episodes.count, alertsByTier: byTier,
                          alertsByClass: byClass, episodesBySeverity: bySeverity,
                          minutesInAlert: Self.covered(result.episodes.map { ($0.startSeconds, $0.endSeconds) }) / 60,
                          firstAlertSeconds: times.min(), lastAlertSeconds: times.max())
        }
        switches = zip(results, results.dropFirst()).map { stricter, looser in
            let gains = looser.episodes.filter { episode in
                !stricter.episodes.contains {
                    $0.classIndex == episode.classIndex && $0.startSeconds < episode.endSeconds && episode.startSeconds < $0.endSeconds
                }
            }.map { Gain(class: data.classIDs[$0.classIndex], startSeconds: $0.startSeconds, endSeconds: $0.endSeconds, alerts: $0.alertCount) }
            return Switch(from: stricter.profile, to: looser.profile, extraAlerts: looser.alerts.count - stricter.alerts.count,
                          newEpisodes: gains)
        }
    }

    /// Length of the union of intervals, seconds.
    public static func covered(_ intervals: [(Double, Double)]) -> Double {
        var total = 0.0, reach = -Double.infinity
        for (start, end) in intervals.sorted(by: { $0.0 < $1.0 }) {
            if start > reach {
                total += end - start
                reach = end
            } else if end > reach {
                total += end - reach
                reach = end
            }
        }
        return total
    }

    // MARK: - Output

    public func table() -> String {
        let tiers = ["critical", "high", "medium", "low"], severities = ["mild", "moderate", "severe"]
        let classes = Set(columns.flatMap(\.alertsByClass.keys)).sorted()
        var table = TextTable(headers: [""] + columns.map(\.profile), alignments: [.left] + columns.map { _ in .right })
        table.append(["alerts"] + columns.map { String($0.alerts) })
        for tier in tiers { table.append(["  \(tier)"] + columns.map { String($0.alertsByTier[tier] ?? 0) }) }
        for label in classes { table.append(["  \(label)"] + columns.map { String($0.alertsByClass[label] ?? 0) }) }
        table.append(["episodes"] + columns.map { String($0.episodes) })
        for severity in severities { table.append(["  \(severity)"] + columns.map { String($0.episodesBySeverity[severity] ?? 0) }) }
        table.append(["minutes in alert"] + columns.map { Formatting.fixed($0.minutesInAlert, 1) })
        table.append(["first alert"] + columns.map { $0.firstAlertSeconds.map(Formatting.clock) ?? "—" })
        table.append(["last alert"] + columns.map { $0.lastAlertSeconds.map(Formatting.clock) ?? "—" })
        var text = "\(Formatting.printable(path)) (\(Formatting.clock(durationSeconds)))\n" + table.render()
        for change in switches {
            text += "\n\(change.from) → \(change.to): \(change.extraAlerts >= 0 ? "+" : "-")\(Formatting.counted(abs(change.extraAlerts), "alert"))"
            if change.newEpisodes.isEmpty {
                text += ", no new episode\n"
            } else {
                text += "; new episodes:\n" + change.newEpisodes.map {
                    "  \($0.class) \(Formatting.clock($0.startSeconds))–\(Formatting.clock($0.endSeconds)) (\(Formatting.counted($0.alerts, "alert")))\n"
                }.joined()
            }
        }
        return text
    }

    public func json() throws -> String {
        struct Output: Encodable { var path: String, durationSeconds: Double, profiles: [Column], switches: [Switch] }
        return try JSONOutput.encode(Output(path: path, durationSeconds: durationSeconds, profiles: columns, switches: switches))
    }

    public func csv() throws -> String {
        try CSVText.make { writer in
            writer.write(row: ["profile", "metric", "key", "value"])
            for column in columns {
                func row(_ metric: String, _ key: String, _ value: String) throws { writer.write(row: [column.profile, metric, key, value]) }
                try row("alerts", "", String(column.alerts))
                for (tier, count) in column.alertsByTier.sorted(by: { $0.key < $1.key }) { try row("alerts_by_tier", tier, String(count)) }
                for (label, count) in column.alertsByClass.sorted(by: { $0.key < $1.key }) { try row("alerts_by_class", label, String(count)) }
                try row("episodes", "", String(column.episodes))
                for (severity, count) in column.episodesBySeverity.sorted(by: { $0.key < $1.key }) { try row("episodes_by_severity", severity, String(count)) }
                try row("minutes_in_alert", "", CSVText.number(column.minutesInAlert))
                try row("first_alert_s", "", column.firstAlertSeconds.map { CSVText.number($0) } ?? "")
                try row("last_alert_s", "", column.lastAlertSeconds.map { CSVText.number($0) } ?? "")
            }
        }
    }
}
