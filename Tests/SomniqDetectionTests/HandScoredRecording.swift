import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// A recording scripted for the timeline tests, as the whole-recording steps see one: `seconds` of a quiet room
/// (−60 dBFS) with loud stretches at −20 dBFS (`loudest` ones at −8 dBFS), and per-window confidences set by hand for a
/// model's classes.
struct HandScoredRecording {
    let seconds: Double
    let classCount: Int
    let windows: Int
    let envelope: LevelEnvelope
    var confidences: [Float]

    init(seconds: Double, classCount: Int, loud: [(Double, Double)], loudest: [(Double, Double)] = [], baseline: Float = 0.02) {
        self.seconds = seconds
        self.classCount = classCount
        windows = AnalysisGrid(sampleRate: 16000).windowCount(frameCount: Int64(seconds * 16000))
        var envelope = LevelEnvelope()
        for index in 0..<Int(seconds * 100) {
            let time = Double(index) / 100
            envelope.append(dbfs: loudest.contains { time >= $0.0 && time < $0.1 } ? -8
                                : loud.contains { time >= $0.0 && time < $0.1 } ? -20 : -60)
        }
        self.envelope = envelope
        confidences = [Float](repeating: baseline, count: windows * classCount)
    }

    /// Gives class `classIndex` confidence `value` in every window that shares time with `span`.
    mutating func score(_ span: (Double, Double), _ classIndex: Int, _ value: Float) {
        for window in 0..<windows where AnalysisGrid.windowStartSeconds(window) < span.1
            && AnalysisGrid.windowStartSeconds(window) + AnalysisGrid.windowSeconds > span.0 {
            confidences[window * classCount + classIndex] = value
        }
    }

    func timeline(_ bundle: ModelBundle) -> RecordingTimeline {
        RecordingTimeline(envelope: envelope, model: bundle.classifier, confidences: confidences, windowCount: windows)
    }

    /// The confidences the alert processor hears under `bundle`'s whole-recording timeline.
    func heard(_ bundle: ModelBundle) -> [Float] {
        timeline(bundle).heardConfidences(confidences, classCount: classCount, windowCount: windows)
    }

    /// Expects `bundle` to hear what `control` hears, except class `classIndex` in the windows whose start
    /// `silenced` holds: there `bundle` hears 0 and `control` the scripted `value`.
    func expectSilenced(_ classIndex: Int, where silenced: (Double) -> Bool, value: Float, bundle: ModelBundle,
                        control: ModelBundle, sourceLocation: SourceLocation = #_sourceLocation) {
        let with = heard(bundle), without = heard(control)
        for window in 0..<windows {
            let start = AnalysisGrid.windowStartSeconds(window)
            for other in 0..<classCount {
                let index = window * classCount + other
                if other == classIndex && silenced(start) {
                    #expect(with[index] == 0 && without[index] == value, "window at \(start) s", sourceLocation: sourceLocation)
                } else {
                    #expect(with[index] == without[index], "window at \(start) s, class \(other)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Every profile of `bundle` over the recording, with its whole-recording timeline.
    func run(_ bundle: ModelBundle) -> [ProfileResult] {
        let timeline = timeline(bundle)
        return bundle.profiles.profiles.map {
            ProfileRunner.run(profile: $0, bundle: bundle, confidences: confidences, windowCount: windows,
                              durationSeconds: seconds, timeline: timeline)
        }
    }
}

/// models/default with `change` made to its classifier: the control that shows a setting's check can fail.
func alteredDefaultBundle(_ change: (inout ClassifierModel) -> Void) -> ModelBundle {
    var model = defaultBundle.classifier
    change(&model)
    return ModelBundle(classifier: model, profiles: defaultBundle.profiles, location: defaultBundle.location)
}

extension ProfileResult {
    /// The episodes of class `classIndex` that share time with `range`.
    func episodes(of classIndex: Int, in range: ClosedRange<Double>) -> [Episode] {
        episodes.filter { $0.classIndex == classIndex && $0.endSeconds > range.lowerBound && $0.startSeconds < range.upperBound }
    }
}
