import GRDB

/// A row of `recordings`.
public struct RecordingRecord: Codable, FetchableRecord, Sendable, Equatable {
    public static let databaseTableName = "recordings"

    public var id: Int64
    public var path: String
    public var fileName: String
    public var status: String
    public var errorCode: String?
    public var errorMessage: String?
    public var container: String?
    public var encoding: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var frameCount: Int64?
    public var durationSeconds: Double?
    public var startUTC: String?
    public var startSource: String?
    public var windowCount: Int?
    public var modelName: String?
    public var modelVersion: String?
    public var profilesVersion: String?
    public var classIDs: String?
    public var featureIDs: String?
    public var analyzedAt: String
    public var contentHash: String?
    /// JSON array of the classes this recording cannot hear.
    public var undetectableClasses: String?
    public var fileSize: Int64?
    public var fileModified: Double?
    /// Whether the file held less audio than its header promised (analysed as far as it went).
    public var truncated: Bool
    /// For a recording cut short, the frame count its header promised (`frameCount` is what it held).
    public var declaredFrames: Int64?
    /// What decoding measured of clipping and of channels cancelling in the mix (`RecordingFaults`); NULL in
    /// recordings analysed before schema v10.
    public var fullScaleShare: Double?
    public var fullScaleReads: Int?
    public var mixBelowChannelsDb: Double?
    /// The one channel analysed (from 1), `nil` where the channels were mixed to mono.
    public var channel: Int?

    /// Clipping and channels that cancel, as stored (nothing known for a recording analysed before they were).
    public var faults: RecordingFaults {
        RecordingFaults(fullScaleShare: fullScaleShare, readsReachingFullScale: fullScaleReads ?? 0,
                        mixBelowChannelsDecibels: mixBelowChannelsDb)
    }

    enum CodingKeys: String, CodingKey {
        case id, path, status, container, encoding, channels, channel, truncated
        case declaredFrames = "declared_frames"
        case fullScaleShare = "full_scale_share", fullScaleReads = "full_scale_reads", mixBelowChannelsDb = "mix_below_channels_db"
        case fileName = "file_name", errorCode = "error_code", errorMessage = "error_message"
        case sampleRate = "sample_rate", frameCount = "frame_count", durationSeconds = "duration_s"
        case startUTC = "start_utc", startSource = "start_source", windowCount = "window_count"
        case modelName = "model_name", modelVersion = "model_version", profilesVersion = "profiles_version"
        case classIDs = "class_ids", featureIDs = "feature_ids", analyzedAt = "analyzed_at"
        case contentHash = "content_hash", fileSize = "file_size", fileModified = "file_mtime"
        case undetectableClasses = "undetectable_classes"
    }
}

/// A row of `episodes`.
public struct EpisodeRecord: Codable, FetchableRecord, Sendable, Equatable {
    public static let databaseTableName = "episodes"

    public var id: Int64
    public var recordingID: Int64
    public var profile: String
    public var classID: String
    public var tier: String
    public var severity: String
    public var startOffsetSeconds: Double
    public var endOffsetSeconds: Double
    public var startUTC: String
    public var endUTC: String
    public var durationSeconds: Double
    public var peakConfidence: Double
    public var alertCount: Int
    public var suppressedCount: Int
    public var activationCount: Int
    /// The loudest 10 ms of the episode, dBFS (absent in databases written before episodes were timed to the sound).
    public var peakDbfs: Double?
    /// Its level taken as one sound (the power mean of its 10 ms levels), dBFS; absent as `peakDbfs` is, and in
    /// databases written before schema v6.
    public var meanDbfs: Double?
    /// How far its loudest 10 ms stands over the room's background, dB; absent as `meanDbfs` is.
    public var peakOverBackgroundDb: Double?

    enum CodingKeys: String, CodingKey {
        case id, profile, tier, severity, peakDbfs = "peak_dbfs", meanDbfs = "mean_dbfs"
        case peakOverBackgroundDb = "peak_over_background_db"
        case recordingID = "recording_id", classID = "class_id"
        case startOffsetSeconds = "start_offset_s", endOffsetSeconds = "end_offset_s"
        case startUTC = "start_utc", endUTC = "end_utc", durationSeconds = "duration_s"
        case peakConfidence = "peak_confidence", alertCount = "alert_count"
        case suppressedCount = "suppressed_count", activationCount = "activation_count"
    }
}

/// A row of `sound_events`: one snore, one cough of a fit.
public struct SoundEventRecord: Codable, FetchableRecord, Sendable, Equatable {
    public static let databaseTableName = "sound_events"

    public var recordingID: Int64
    public var classID: String
    public var eventIndex: Int
    public var onsetSeconds: Double
    public var offsetSeconds: Double
    public var durationSeconds: Double
    public var onsetUTC: String
    public var peakDbfs: Double
    public var confidence: Double
    public var boutIndex: Int?

    enum CodingKeys: String, CodingKey {
        case confidence
        case recordingID = "recording_id", classID = "class_id", eventIndex = "event_index", onsetSeconds = "onset_s"
        case offsetSeconds = "offset_s", durationSeconds = "duration_s", onsetUTC = "onset_utc", peakDbfs = "peak_dbfs"
        case boutIndex = "bout_index"
    }
}

/// A row of `bouts`: a run of one class's recurring events at their pace (a snoring bout, a coughing fit).
public struct BoutRecord: Codable, FetchableRecord, Sendable, Equatable {
    public var recordingID: Int64
    public var classID: String
    public var boutIndex: Int
    public var onsetSeconds: Double
    public var offsetSeconds: Double
    public var durationSeconds: Double
    public var onsetUTC: String
    public var eventCount: Int
    /// A snoring bout's breathing pace, breaths a minute: the median and the 10th to 90th percentile of 60 s over the
    /// time between its snores (`NightSummary`); nil for other classes' bouts.
    public var breathsPerMinute: Double?
    public var breathsPerMinuteLow: Double?
    public var breathsPerMinuteHigh: Double?

    enum CodingKeys: String, CodingKey {
        case recordingID = "recording_id", classID = "class_id", boutIndex = "bout_index", onsetSeconds = "onset_s"
        case offsetSeconds = "offset_s", durationSeconds = "duration_s", onsetUTC = "onset_utc", eventCount = "event_count"
        case breathsPerMinute = "breaths_per_minute", breathsPerMinuteLow = "breaths_per_minute_low"
        case breathsPerMinuteHigh = "breaths_per_minute_high"
    }
}

/// A row of `alerts`.
public struct AlertRecord: Codable, FetchableRecord, Sendable, Equatable {
    public static let databaseTableName = "alerts"

    public var id: Int64
    public var recordingID: Int64
    public var profile: String
    public var classID: String
    public var tier: String
    public var kind: String
    public var offsetSeconds: Double
    public var utc: String
    public var windowIndex: Int
    public var confidence: Double
    public var episodeID: Int64

    enum CodingKeys: String, CodingKey {
        case id, profile, tier, kind, utc, confidence
        case recordingID = "recording_id", classID = "class_id", offsetSeconds = "offset_s"
        case windowIndex = "window_index", episodeID = "episode_id"
    }
}

/// A row of `detections`.
public struct DetectionRecord: Codable, FetchableRecord, Sendable, Equatable {
    public var recordingID: Int64
    public var windowIndex: Int
    public var classID: String
    public var confidence: Double
    public var startOffsetSeconds: Double
    public var startUTC: String

    enum CodingKeys: String, CodingKey {
        case confidence
        case recordingID = "recording_id", windowIndex = "window_index", classID = "class_id"
        case startOffsetSeconds = "start_offset_s", startUTC = "start_utc"
    }
}

/// A row of `windows`, its confidences decoded (in the recording's `class_ids` order); features left out.
public struct WindowRecord: Sendable, Equatable {
    public var windowIndex: Int
    public var startOffsetSeconds: Double
    public var endOffsetSeconds: Double
    public var startUTC: String
    public var rmsDbfs: Double
    public var snrDb: Double
    public var topClass: String
    public var topConfidence: Double
    public var confidences: [Float]
}
