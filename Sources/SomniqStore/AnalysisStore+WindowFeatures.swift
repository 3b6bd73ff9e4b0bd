import Foundation
import GRDB

extension AnalysisStore {
    /// Chosen features (`featureIDs`, by name) of a recording's windows `windows`, a row each in window order; a feature
    /// the recording's analysis did not store is NaN.
    public func windowFeatures(recordingID: Int64, windows: ClosedRange<Int>, featureIDs: [String]) throws(StoreError) -> [[Float]] {
        try read { db in
            let json = try String.fetchOne(db, sql: "SELECT feature_ids FROM recordings WHERE id = ?", arguments: [recordingID]) ?? "[]"
            let stored = (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
            let positions = featureIDs.map { stored.firstIndex(of: $0) }
            var rows: [[Float]] = []
            var values: [Float] = []
            let cursor = try Data.fetchCursor(db, sql: """
                SELECT features FROM windows WHERE recording_id = ? AND window_index BETWEEN ? AND ? ORDER BY window_index
                """, arguments: [recordingID, windows.lowerBound, windows.upperBound])
            while let blob = try cursor.next() {
                FloatBlob.decode(blob, into: &values)
                rows.append(positions.map { position in position.flatMap { $0 < values.count ? values[$0] : nil } ?? .nan })
            }
            return rows
        }
    }
}
