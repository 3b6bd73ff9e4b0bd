import SomniqFeatures
import SomniqModel

/// One profile's alerts as a recording is heard, for a follower of a recording in progress: each alert is raised once
/// what its class's alert processor hears up to its window is settled (`RecordingTimeline.horizonSeconds`), so the
/// alerts raised live are the alerts `analyze` stores for the whole recording: the same windows, kinds and
/// confidences, in the same order within each class. A smoke alarm's alert is raised as soon as its window is heard;
/// a snoring alert once the bout it belongs to is settled.
///
/// The work an update does does not grow with the night for the classes heard as the classifier hears them: their
/// alert processors are fed each window once, as it comes. The classes whose hearing takes the recording around a
/// window (snoring, cough, gasp: a horizon of half a minute to three minutes) are heard again from the whole recording
/// every `timelineEverySeconds` of audio, which delays their alerts by at most that beyond their horizon.
public struct LiveAlerts: Sendable {
    public let profile: SensitivityProfile
    public let bundle: ModelBundle
    /// Per class, seconds after a window's end before its alert can be raised.
    public let horizons: [Double]
    /// Seconds of audio between two hearings of the whole recording (for the classes with a horizon).
    public let timelineEverySeconds: Double
    /// Per class, how many of its alerts have been raised.
    private var raised: [Int]
    /// The alert processors of the classes heard as the classifier hears them (no horizon), fed window by window.
    private var streamed: [AlertProcessor]
    /// Windows fed to `streamed` so far.
    private var fedWindows = 0
    /// The audio heard at the last hearing of the whole recording.
    private var lastWholeHearing = -Double.infinity

    public init(profile: SensitivityProfile, bundle: ModelBundle, timelineEverySeconds: Double = 10) {
        self.profile = profile
        self.bundle = bundle
        self.timelineEverySeconds = timelineEverySeconds
        let horizons = bundle.classifier.classes.indices.map { RecordingTimeline.horizonSeconds(classIndex: $0, model: bundle.classifier) }
        self.horizons = horizons
        raised = [Int](repeating: 0, count: bundle.classifier.classes.count)
        // The processors `ProfileRunner.run` would make for these classes, in class order.
        let rules = bundle.rules(for: profile, frameHz: AnalysisGrid.frameHz)
        streamed = rules.enumerated().compactMap { classIndex, rule in
            guard let rule, horizons[classIndex] == 0, bundle.adjustment(for: bundle.classifier.classes[classIndex]) != nil else { return nil }
            return AlertProcessor(rule: rule, classIndex: classIndex)
        }
    }

    /// The alerts settled once `heardSeconds` of audio have been heard (its `windowCount` whole windows' confidences and
    /// its level envelope) that were not raised before, in time order within each class.
    public mutating func update(confidences: [Float], windowCount: Int, envelope: LevelEnvelope, heardSeconds: Double) -> [Alert] {
        let classCount = bundle.classifier.classes.count
        var fresh: [Alert] = []
        for frame in fedWindows..<max(fedWindows, windowCount) {
            for index in streamed.indices {
                if case .alert(let alert) = streamed[index].step(frame: frame, confidence: confidences[frame * classCount + streamed[index].classIndex]) {
                    fresh.append(alert)
                }
            }
        }
        fedWindows = max(fedWindows, windowCount)
        for alert in fresh { raised[alert.classIndex] += 1 }
        guard horizons.contains(where: { $0 > 0 }), heardSeconds - lastWholeHearing >= timelineEverySeconds else { return fresh }
        lastWholeHearing = heardSeconds
        let timeline = envelope.isEmpty ? nil
            : RecordingTimeline(envelope: envelope, model: bundle.classifier, confidences: confidences, windowCount: windowCount)
        let result = ProfileRunner.run(profile: profile, bundle: bundle, confidences: confidences, windowCount: windowCount,
                                       durationSeconds: heardSeconds, timeline: timeline)
        let horizons = horizons
        return fresh + take(result.alerts.filter { horizons[$0.classIndex] > 0 }) { alert in
            AnalysisGrid.windowStartSeconds(alert.frame) + AnalysisGrid.windowSeconds + horizons[alert.classIndex] <= heardSeconds
        }
    }

    /// The alerts of the whole recording's `result` (as `analyze` stores them) that were not raised live: those the
    /// recording ended too soon after to settle.
    public mutating func finish(_ result: ProfileResult) -> [Alert] {
        take(result.alerts) { _ in true }
    }

    /// Of `alerts` (in time order), those past each class's raised ones that `settled` allows, in time order; within
    /// a class they are taken in order and stop at the first not yet settled.
    private mutating func take(_ alerts: [Alert], settled: (Alert) -> Bool) -> [Alert] {
        var seen = [Int](repeating: 0, count: raised.count), blocked = [Bool](repeating: false, count: raised.count)
        var taken: [Alert] = []
        for alert in alerts {
            let classIndex = alert.classIndex
            defer { seen[classIndex] += 1 }
            guard seen[classIndex] >= raised[classIndex], !blocked[classIndex] else { continue }
            guard settled(alert) else {
                blocked[classIndex] = true
                continue
            }
            taken.append(alert)
        }
        for alert in taken { raised[alert.classIndex] += 1 }
        return taken
    }
}
