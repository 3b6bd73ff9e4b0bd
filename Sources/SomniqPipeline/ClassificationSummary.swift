import SomniqFeatures
import SomniqModel
import SomniqStore

/// What a recording mostly sounded like: each window's top class, and the seconds each class was on top.
public struct ClassificationSummary: Equatable, Sendable {
    /// The label of a window whose best confidence is below the model's detection floor.
    public static let unclassified = TopClass.unclassified

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
            let row = data.confidences[(index * classCount)..<((index + 1) * classCount)]
            let (label, confidence) = TopClass.of(row, classIDs: data.classIDs, floor: detectionFloor)
            let start = AnalysisGrid.windowStartSeconds(index)
            windows.append(Window(index: index, startSeconds: start,
                                  endSeconds: min(data.durationSeconds, start + AnalysisGrid.windowSeconds),
                                  topClass: label, confidence: confidence))
            let share = min(AnalysisGrid.hopSeconds, max(0, data.durationSeconds - start))
            seconds[label, default: 0] += index == data.windowCount - 1 ? max(0, data.durationSeconds - start) : share
        }
        self.windows = windows
        secondsPerClass = seconds
        dominantClass = TopClass.dominant(seconds)
    }
}
