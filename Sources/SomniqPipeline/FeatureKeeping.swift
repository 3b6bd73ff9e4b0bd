import SomniqFeatures

/// Where an analysis keeps each window's feature row (165 floats, 0.66 kB: 38 MB for an 8-hour night).
public enum FeatureKeeping: Sendable {
    /// In `RecordingData.features`, for those who read them (`classify --features`, fitting).
    case inMemory
    /// In a temporary file (`RecordingData.featureSpool`), so that memory does not grow with the recording: for analyses
    /// headed for the database, which keeps the `FeatureID.stored` ones.
    case spooled
    /// Only each window's level (`rms_dbfs`, 4 bytes a window), in `RecordingData.features`: what a file's clip verdict
    /// reads beside the confidences (`classify` without `--features`, `evaluate` of clips).
    case levels
    /// Nowhere: for commands that read only the confidences (`compare`, `evaluate` of nights); `RecordingData.featureIDs`
    /// is then empty.
    case dropped

    /// The names of the features kept, in their order.
    var featureIDs: [String] {
        switch self {
        case .inMemory: FeatureID.allCases.map(\.rawValue)
        case .spooled: FeatureID.stored.map(\.rawValue)
        case .levels: [FeatureID.rmsDbfs.rawValue]
        case .dropped: []
        }
    }
}
