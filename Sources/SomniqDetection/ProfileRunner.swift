import SomniqFeatures
import SomniqModel

/// What one profile made of one recording.
public struct ProfileResult: Equatable, Sendable {
    public var profile: String
    /// In time order; ties in class order.
    public var alerts: [Alert]
    /// Per alert, the index into `episodes` of the episode that holds it.
    public var alertEpisodes: [Int]
    /// In start order; ties in class order.
    public var episodes: [Episode]
    public var rules: [AlertRule?]
}

/// Runs every class's alert processor of one profile over a recording's stored per-window
/// confidences, then merges activations into episodes.
public enum ProfileRunner {
    /// - Parameters:
    ///   - confidences: row-major, `windowCount × classCount`.
    ///   - durationSeconds: the recording's length, to clip episode ends.
    ///   - timeline: the recording's envelope and events; given, episodes get the sound's own start and end
    ///     (to 10 ms) rather than the window grid's and the smoothing's. Alerts keep their causal times.
    public static func run(profile: SensitivityProfile, bundle: ModelBundle, confidences: [Float],
                           windowCount: Int, durationSeconds: Double, timeline: RecordingTimeline? = nil) -> ProfileResult {
        let classCount = bundle.classifier.classes.count
        precondition(confidences.count == windowCount * classCount, "confidence matrix does not match window count")
        let rules = bundle.rules(for: profile, frameHz: AnalysisGrid.frameHz)
        var alerts: [Alert] = []
        var episodes: [Episode] = []
        // The episodes each activation's alerts may belong to (several where an episode was split into bouts).
        var alertEpisodeByKey: [AlertKey: [Int]] = [:]
        for (classIndex, rule) in rules.enumerated() {
            guard let rule, let adjustment = bundle.adjustment(for: bundle.classifier.classes[classIndex]) else { continue }
            // What the whole recording shows to be something else is not heard (see `RecordingTimeline.heardConfidences`).
            let heard = timeline?.heard(confidences, classIndex: classIndex, classCount: classCount, windowCount: windowCount)
                ?? RecordingTimeline.column(confidences, classIndex: classIndex, classCount: classCount, windowCount: windowCount)
            var processor = AlertProcessor(rule: rule, classIndex: classIndex)
            var activations: [Activation] = []
            for frame in 0..<windowCount {
                switch processor.step(frame: frame, confidence: heard[frame]) {
                case .alert(let alert): alerts.append(alert)
                case .ended(let activation): activations.append(activation)
                case .suppressed, nil: break
                }
            }
            if let open = processor.finish() { activations.append(open) }
            var classEpisodes = EpisodeBuilder.merge(activations, tier: rule.tier, adjustment: adjustment,
                                                     durationSeconds: durationSeconds)
            if let timeline {
                classEpisodes = classEpisodes.flatMap {
                    timeline.boutEpisodes(timeline.refined($0, rule: rule, heard: heard, durationSeconds: durationSeconds), heard: heard)
                    .map { piece in
                        var episode = piece
                        episode.severity = adjustment.severity.severity(durationSeconds: episode.durationSeconds)
                        return episode
                    }
                }
            }
            for episode in classEpisodes {
                let episodeIndex = episodes.count
                episodes.append(episode)
                for activation in episode.activations {
                    alertEpisodeByKey[AlertKey(classIndex: classIndex, activation: activation), default: []].append(episodeIndex)
                }
            }
        }

        alerts.sort { ($0.frame, $0.classIndex) < ($1.frame, $1.classIndex) }
        let order = episodes.indices.sorted {
            (episodes[$0].startSeconds, episodes[$0].classIndex) < (episodes[$1].startSeconds, episodes[$1].classIndex)
        }
        var newIndex = [Int](repeating: 0, count: episodes.count)
        for (position, old) in order.enumerated() { newIndex[old] = position }
        // An alert belongs to its activation's episode; where that was split into bouts, to the last bout that had
        // begun when the alert was raised.
        let alertEpisodes = alerts.map { alert -> Int in
            let candidates = alertEpisodeByKey[AlertKey(classIndex: alert.classIndex, activation: alert.activation)]!
            let raised = AnalysisGrid.windowStartSeconds(alert.frame) + AnalysisGrid.windowSeconds
            return newIndex[candidates.last { episodes[$0].startSeconds <= raised } ?? candidates[0]]
        }
        var ordered = order.map { episodes[$0] }
        if timeline != nil {
            for index in ordered.indices { ordered[index].alertCount = 0 }
            for episode in alertEpisodes { ordered[episode].alertCount += 1 }
        }
        return ProfileResult(profile: profile.name, alerts: alerts, alertEpisodes: alertEpisodes, episodes: ordered, rules: rules)
    }

    private struct AlertKey: Hashable {
        var classIndex: Int
        var activation: Int
    }
}
