import Foundation
import GRDB

/// Recordings stored before the audio's identity became XXH3-128 carry SHA-256 (`ContentHashKind`): found again by
/// their audio, they take the new identity, so that a night moved, copied or merged after the change is still known
/// as the same night, and keeps its tags.
extension AnalysisStore {
    /// Whether a complete recording stored with a SHA-256 identity could hold the same audio as `data` (the same rate,
    /// channels, channel read and length): only then is hashing the file the old way worth its cost.
    public func mayHoldUnderOlderIdentity(_ data: RecordingData) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM recordings WHERE status = 'complete' AND length(content_hash) = 64
                    AND sample_rate = ? AND channels = ? AND frame_count = ? AND channel IS ?)
                """, arguments: [data.sampleRate, data.channelCount, data.frameCount, data.channel]) ?? false
        }
    }

    /// Gives the recordings stored with identity `older` (and its night's tags) identity `newer`, unless a complete
    /// recording holds `newer` already. Returns how many recordings took it.
    @discardableResult
    public func adoptIdentity(_ newer: String, forOlder older: String) throws(StoreError) -> Int {
        guard newer != older else { return 0 }
        do {
            return try writer.write { db in
                guard try Int64.fetchOne(db, sql: "SELECT id FROM recordings WHERE content_hash = ? AND status = 'complete'",
                                         arguments: [newer]) == nil else { return 0 }
                try db.execute(sql: "UPDATE recordings SET content_hash = ? WHERE content_hash = ?", arguments: [newer, older])
                let changed = db.changesCount
                try db.execute(sql: """
                    INSERT OR IGNORE INTO night_tags (content_hash, tag) SELECT ?, tag FROM night_tags WHERE content_hash = ?
                    """, arguments: [newer, older])
                try db.execute(sql: "DELETE FROM night_tags WHERE content_hash = ?", arguments: [older])
                return changed
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }
}
