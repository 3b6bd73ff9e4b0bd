import SomniqFeatures
import SomniqStore

/// What a recording mostly sounded like: each window's top class, and the seconds each class was on top.
public struct ClassificationSummary: Equatable, Sendable {
    /// The label of a window whose best confidence is below the model's detection floor.
    public static let unclassified = "unclassified"

    public struct Window: Equatable, Sendable {
        public var index: Int
        public var startSeconds: Double
        public var endSeconds: Double
        public var topClass: String
        public var confidence: Float
    }

    public var windows: [Window]
    /// Each window contributes one hop (0.5 s) to its top class, so the total is the recording's length.
    public var secondsPerClass: [String: Double]
    /// The class with the most seconds, silence and unclassified windows aside (`silence` if there is nothing else).
    public var dominantClass: String

    public init(_ data: RecordingData, detectionFloor: Float) {
        var windows: [Window] = []
        windows.reserveCapacity(data.windowCount)
        var seconds: [String: Double] = [:]
        let classCount = data.classIDs.count
        for index in 0..<data.windowCount {
            var top = 0
            for classIndex in 1..<max(1, classCount)
            where data.confidence(window: index, classIndex: classIndex) > data.confidence(window: index, classIndex: top) {
                top = classIndex
            }
            let confidence = data.confidence(window: index, classIndex: top)
            let label = confidence >= detectionFloor ? data.classIDs[top] : Self.unclassified
            let start = AnalysisGrid.windowStartSeconds(index)
            windows.append(Window(index: index, startSeconds: start,
                                  endSeconds: min(data.durationSeconds, start + AnalysisGrid.windowSeconds),
                                  topClass: label, confidence: confidence))
            let share = min(AnalysisGrid.hopSeconds, max(0, data.durationSeconds - start))
            seconds[label, default: 0] += index == data.windowCount - 1 ? max(0, data.durationSeconds - start) : share
        }
        self.windows = windows
        secondsPerClass = seconds
        let candidates = seconds.filter { $0.key != "silence" && $0.key != Self.unclassified }
        dominantClass = candidates.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "silence"
    }
}
