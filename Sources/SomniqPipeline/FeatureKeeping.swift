import SomniqFeatures

/// Where an analysis keeps each window's feature row (165 floats, 0.66 kB: 38 MB for an 8-hour night).
public enum FeatureKeeping: Sendable {
    /// In `RecordingData.features`, for those who read them (`classify --features`, fitting, clip verdicts).
    case inMemory
    /// In a temporary file (`RecordingData.featureSpool`), so that memory does not grow with the recording: for analyses
    /// headed for the database, which keeps the `FeatureID.stored` ones.
    case spooled
    /// Nowhere: for commands that read only the confidences (`compare`, `classify` without `--features`, `evaluate` of
    /// nights); `RecordingData.featureIDs` is then empty.
    case dropped

    /// The names of the features kept, in their order.
    var featureIDs: [String] {
        switch self {
        case .inMemory: FeatureID.allCases.map(\.rawValue)
        case .spooled: FeatureID.stored.map(\.rawValue)
        case .dropped: []
        }
    }
}
