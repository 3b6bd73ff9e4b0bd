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
    /// The model's detection floor the windows' top classes were read with.
    public var detectionFloor: Float

    public init(_ data: RecordingData, detectionFloor: Float) {
        self.detectionFloor = detectionFloor
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
    }

    /// The recording's class as a clip (`TopClass.clip`: the class whose confidences, multiplied over its loud windows,
    /// are the highest, `other` included): what `evaluate` scores a labelled clip by and `classify` reports as a file's
    /// dominant class. Read from the stored confidences (a class the recording cannot hear is silenced there) and each
    /// window's level from the kept features: the analysis must have kept `rms_dbfs` in memory (`FeatureKeeping.levels`
    /// or `.inMemory`).
    public static func clipVerdict(_ data: RecordingData, detectionFloor: Float) -> (label: String, confidence: Float) {
        ClassificationSummary(data, detectionFloor: detectionFloor).clipVerdict(data)
    }

    /// The same, from this summary's windows of `data`; `levels` are `levels(data)` where the caller has them already.
    public func clipVerdict(_ data: RecordingData, levels: [Float]? = nil) -> (label: String, confidence: Float) {
        TopClass.clip(data.confidences, classIDs: data.classIDs, levels: levels ?? Self.levels(data), floor: detectionFloor)
    }

    /// Each window's level (`rms_dbfs`), from features or levels kept in memory (`FeatureKeeping.levels`, `.inMemory`).
    public static func levels(_ data: RecordingData) -> [Float] {
        guard let column = data.featureIDs.firstIndex(of: FeatureID.rmsDbfs.rawValue), data.featureSpool == nil,
              data.firstFeatureWindow == 0 else {
            preconditionFailure("a clip verdict reads each window's level: analyse with the features or levels kept in memory")
        }
        let width = data.featureIDs.count
        return (0..<data.windowCount).map { data.features[$0 * width + column] }
    }

    /// Seconds in total, the whole recording.
    public var totalSeconds: Double { secondsPerClass.values.reduce(0, +) }

    /// What the recording was, in words that do not overstate it: "mostly snoring" only when snoring was on top more
    /// than half the time; otherwise the sound heard most beside the share of the time nothing of note was
    /// ("heard most: snoring, 9% of the time (other 79%, silence 12%)"; a share under half a percent is "<1%").
    public var headline: String { Self.headline(secondsPerClass) }

    /// The headline of a recording whose classes were on top for these seconds.
    public static func headline(_ secondsPerClass: [String: Double]) -> String {
        let total = max(secondsPerClass.values.reduce(0, +), 1e-9)
        func percent(_ seconds: Double) -> String {
            let share = Int((100 * seconds / total).rounded())
            return share == 0 && seconds > 0 ? "<1%" : "\(share)%"
        }
        let dominantClass = TopClass.dominant(secondsPerClass)
        let heard = secondsPerClass[dominantClass] ?? 0
        guard !TopClass.nothing.contains(dominantClass) else { return "nothing of note" }
        if heard > total / 2 { return "mostly \(dominantClass)" }
        let quiet = TopClass.nothing.sorted().compactMap { label in
            secondsPerClass[label].flatMap { $0 > 0 ? "\(label) \(percent($0))" : nil }
        }
        return "heard most: \(dominantClass), \(percent(heard)) of the time"
            + (quiet.isEmpty ? "" : " (\(quiet.joined(separator: ", ")))")
    }

    /// Minutes each class was on top, the classes of note only, most first.
    public var minutesPerClass: [(String, Double)] {
        secondsPerClass.filter { !TopClass.nothing.contains($0.key) && $0.value > 0 }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { ($0.key, $0.value / 60) }
    }
}
