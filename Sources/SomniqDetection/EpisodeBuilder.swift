import SomniqFeatures
import SomniqModel

/// Merges one class's activations into episodes.
public enum EpisodeBuilder {
    /// Activations (in order) whose gap — next onset minus current end — is at most the tier's
    /// `mergeGapSec` join one episode. Severity follows the tier's rule on the episode's duration.
    public static func merge(_ activations: [Activation], tier: AlertTier, adjustment: TierAdjustment,
                             durationSeconds: Double) -> [Episode] {
        var episodes: [Episode] = []
        for activation in activations {
            let start = AnalysisGrid.windowStartSeconds(activation.onsetFrame)
            let end = min(durationSeconds, AnalysisGrid.windowStartSeconds(activation.endFrame) + AnalysisGrid.windowSeconds)
            if var last = episodes.last, start - last.endSeconds <= adjustment.mergeGapSec {
                last.endSeconds = max(last.endSeconds, end)
                last.peakConfidence = max(last.peakConfidence, activation.peakConfidence)
                last.alertCount += activation.alertCount
                last.suppressedCount += activation.suppressedCount
                last.activations = last.activations.lowerBound...activation.index
                episodes[episodes.count - 1] = last
            } else {
                episodes.append(Episode(
                    classIndex: activation.classIndex, tier: tier, startSeconds: start, endSeconds: end,
                    severity: .mild, peakConfidence: activation.peakConfidence, alertCount: activation.alertCount,
                    suppressedCount: activation.suppressedCount, activations: activation.index...activation.index))
            }
        }
        for index in episodes.indices {
            episodes[index].severity = adjustment.severity.severity(durationSeconds: episodes[index].durationSeconds)
        }
        return episodes
    }
}
