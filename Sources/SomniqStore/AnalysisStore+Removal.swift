import Foundation
import GRDB

/// Taking a recording out of the database: one analysed by mistake (a test file, a night heard from the wrong room), a
/// failed file that will not be fixed, or a night the sleeper does not want in the trends.
extension AnalysisStore {
    /// Every recording stored at `filePath` (as given, or standardized), whatever its status: complete, failed (a file
    /// that could not be read) or partial (a night being followed), newest first.
    public func recordingIDs(atPath filePath: String) throws(StoreError) -> [Int64] {
        let standardized = URL(fileURLWithPath: filePath).standardizedFileURL.path
        return try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM recordings WHERE path IN (?, ?) ORDER BY id DESC",
                               arguments: [filePath, standardized])
        }
    }

    /// Removes recording `id` and everything stored of it (its windows, detections, alerts, episodes, events and bouts,
    /// the night's summary, the places it was seen), in one transaction. The night's tags, kept by its audio's hash, go
    /// with it unless another row still holds that hash.
    /// Returns the tags removed with it, or `nil` when no recording has that id. The audio file is not touched.
    public func remove(recordingID id: Int64) throws(StoreError) -> [String]? {
        do {
            return try writer.write { db -> [String]? in
                guard let row = try Row.fetchOne(db, sql: "SELECT content_hash FROM recordings WHERE id = ?", arguments: [id]) else {
                    return nil
                }
                try db.execute(sql: "DELETE FROM recordings WHERE id = ?", arguments: [id])
                guard let hash: String = row["content_hash"],
                      try Int64.fetchOne(db, sql: "SELECT id FROM recordings WHERE content_hash = ? LIMIT 1", arguments: [hash]) == nil
                else { return [] }
                let tags = try String.fetchAll(db, sql: "SELECT tag FROM night_tags WHERE content_hash = ? ORDER BY tag", arguments: [hash])
                try db.execute(sql: "DELETE FROM night_tags WHERE content_hash = ?", arguments: [hash])
                return tags
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }
}
