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
    public static func run(profile: SensitivityProfile, bundle: ModelBundle, confidences: [Float],
                           windowCount: Int, durationSeconds: Double) -> ProfileResult {
        let classCount = bundle.classifier.classes.count
        precondition(confidences.count == windowCount * classCount, "confidence matrix does not match window count")
        let rules = bundle.rules(for: profile, frameHz: AnalysisGrid.frameHz)
        var alerts: [Alert] = []
        var episodes: [Episode] = []
        var alertEpisodeByKey: [AlertKey: Int] = [:]

        for (classIndex, rule) in rules.enumerated() {
            guard let rule, let adjustment = bundle.adjustment(for: bundle.classifier.classes[classIndex]) else { continue }
            var processor = AlertProcessor(rule: rule, classIndex: classIndex)
            var activations: [Activation] = []
            for frame in 0..<windowCount {
                switch processor.step(frame: frame, confidence: confidences[frame * classCount + classIndex]) {
                case .alert(let alert): alerts.append(alert)
                case .ended(let activation): activations.append(activation)
                case .suppressed, nil: break
                }
            }
            if let open = processor.finish() { activations.append(open) }
            let classEpisodes = EpisodeBuilder.merge(activations, tier: rule.tier, adjustment: adjustment,
                                                     durationSeconds: durationSeconds)
            for episode in classEpisodes {
                let episodeIndex = episodes.count
                episodes.append(episode)
                for activation in episode.activations {
                    alertEpisodeByKey[AlertKey(classIndex: classIndex, activation: activation)] = episodeIndex
                }
            }
        }

        alerts.sort { ($0.frame, $0.classIndex) < ($1.frame, $1.classIndex) }
        let order = episodes.indices.sorted {
            (episodes[$0].startSeconds, episodes[$0].classIndex) < (episodes[$1].startSeconds, episodes[$1].classIndex)
        }
        var newIndex = [Int](repeating: 0, count: episodes.count)
        for (position, old) in order.enumerated() { newIndex[old] = position }
        let alertEpisodes = alerts.map { newIndex[alertEpisodeByKey[AlertKey(classIndex: $0.classIndex, activation: $0.activation)]!] }
        return ProfileResult(profile: profile.name, alerts: alerts, alertEpisodes: alertEpisodes,
                             episodes: order.map { episodes[$0] }, rules: rules)
    }

    private struct AlertKey: Hashable {
        var classIndex: Int
        var activation: Int
    }
}
