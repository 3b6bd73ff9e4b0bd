import Foundation
import SomniqPipeline
import SomniqDetection
import SomniqFeatures
import SomniqStore

/// What the pipeline made of one fixture, as a regression golden: per-class detection runs, and every
/// profile's alerts and episodes; or, for a bad input, the error the user sees.
public struct Golden: Codable, Equatable, Sendable {
    /// Consecutive windows in which a class's confidence is at or above the detection floor.
    public struct DetectionRun: Codable, Equatable, Sendable {
        public var classID: String
        public var start: Double, end: Double
        public var peak: Double, mean: Double
        enum CodingKeys: String, CodingKey { case classID = "class", start, end, peak, mean }
    }

    public struct AlertEntry: Codable, Equatable, Sendable {
        public var classID: String, tier: String, kind: String
        public var offset: Double, confidence: Double
        enum CodingKeys: String, CodingKey { case classID = "class", tier, kind, offset, confidence }
    }

    public struct EpisodeEntry: Codable, Equatable, Sendable {
        public var classID: String, tier: String, severity: String
        public var start: Double, end: Double, peak: Double
        public var alerts: Int, suppressed: Int
        enum CodingKeys: String, CodingKey { case classID = "class", tier, severity, start, end, peak, alerts, suppressed }
    }

    public struct ProfileEntry: Codable, Equatable, Sendable {
        public var alerts: [AlertEntry]
        public var episodes: [EpisodeEntry]
    }

    public struct ErrorEntry: Codable, Equatable, Sendable {
        public var code: String
        /// The message `analyze` prints, with the fixture's path relative to the fixtures folder.
        public var message: String
        /// The exit status of `somniq-analyze analyze` on this file alone.
        public var exitStatus: Int32

        public init(code: String, message: String, exitStatus: Int32) {
            self.code = code
            self.message = message
            self.exitStatus = exitStatus
        }
    }

    public var fixture: String
    public var model: String
    public var durationSeconds: Double?
    /// For a file cut short (analysed as far as its audio went), the frame count its header promised.
    public var declaredFrames: Int64?
    public var windows: Int?
    public var detections: [DetectionRun]?
    /// In the model's profile order.
    public var profiles: [String: ProfileEntry]?
    public var profileOrder: [String]?
    public var error: ErrorEntry?

    /// The golden of an analysed recording.
    public init(fixture: String, model: String, data: RecordingData, results: [ProfileResult], detectionFloor: Float) {
        self.fixture = fixture
        self.model = model
        durationSeconds = data.durationSeconds
        declaredFrames = data.declaredFrameCount
        windows = data.windowCount
        detections = Self.runs(data, floor: detectionFloor)
        profileOrder = results.map(\.profile)
        profiles = Dictionary(uniqueKeysWithValues: results.map { result in
            (result.profile, ProfileEntry(
                alerts: result.alerts.map {
                    AlertEntry(classID: data.classIDs[$0.classIndex], tier: result.rules[$0.classIndex]!.tier.rawValue,
                               kind: $0.kind.rawValue,
                               offset: AnalysisStore.alertOffsetSeconds(frame: $0.frame, durationSeconds: data.durationSeconds),
                               confidence: Double($0.confidence))
                },
                episodes: result.episodes.map {
                    EpisodeEntry(classID: data.classIDs[$0.classIndex], tier: $0.tier.rawValue, severity: $0.severity.rawValue,
                                 start: $0.startSeconds, end: $0.endSeconds, peak: Double($0.peakConfidence),
                                 alerts: $0.alertCount, suppressed: $0.suppressedCount)
                }))
        })
    }

    /// The golden of a bad input.
    public init(fixture: String, model: String, error: ErrorEntry) {
        self.fixture = fixture
        self.model = model
        self.error = error
    }

    static func runs(_ data: RecordingData, floor: Float) -> [DetectionRun] {
        var runs: [DetectionRun] = []
        for (classIndex, classID) in data.classIDs.enumerated() {
            var window = 0
            while window < data.windowCount {
                guard data.confidence(window: window, classIndex: classIndex) >= floor else { window += 1; continue }
                let first = window
                var peak: Float = 0, sum: Float = 0
                while window < data.windowCount, data.confidence(window: window, classIndex: classIndex) >= floor {
                    let value = data.confidence(window: window, classIndex: classIndex)
                    peak = max(peak, value)
                    sum += value
                    window += 1
                }
                runs.append(DetectionRun(
                    classID: classID, start: AnalysisGrid.windowStartSeconds(first),
                    end: min(data.durationSeconds, AnalysisGrid.windowStartSeconds(window - 1) + AnalysisGrid.windowSeconds),
                    peak: Double(peak),
                    mean: Double(sum / Float(window - first))))
            }
        }
        return runs.sorted { ($0.start, $0.classID) < ($1.start, $1.classID) }
    }
}
