import Foundation
import GRDB

/// Merging another database of this tool (a shard of a study) into this one.
extension AnalysisStore {
    /// What a database's complete recordings were analysed with: the model tags (`name@version+profiles@version`) and
    /// the profiles run.
    public struct Provenance: Equatable, Sendable {
        public var models: Set<String>
        public var profiles: Set<String>

        public var isEmpty: Bool { models.isEmpty }
    }

    /// What one merge added and left.
    public struct MergeOutcome: Equatable, Sendable {
        /// Complete recordings copied in.
        public var added = 0
        /// Complete recordings the database already held (the same audio, by content hash): nothing copied.
        public var alreadyThere = 0
        /// Failed files recorded (a file the database knows nothing of by that path).
        public var failuresAdded = 0
    }

    public func provenance() throws(StoreError) -> Provenance {
        do {
            return try writer.read { db in try Self.provenance(db, schema: "main") }
        } catch {
            throw .readFailed(path: path, reason: Self.reason(error))
        }
    }

    static func provenance(_ db: Database, schema: String) throws -> Provenance {
        let models = try String.fetchAll(db, sql: """
            SELECT DISTINCT model_name || '@' || model_version || '+profiles@' || profiles_version
            FROM \(schema).recordings WHERE status = 'complete'
            """)
        let profiles = try String.fetchAll(db, sql: "SELECT DISTINCT profile FROM \(schema).profile_runs")
        return Provenance(models: Set(models), profiles: Set(profiles))
    }

    /// Copies every recording of the database at `shardPath` that this one does not hold (complete recordings by the
    /// content hash of their audio; failed files by path) with all its rows, in one transaction: interrupted, nothing of
    /// it is written; run again, what is already here is skipped. The shard must be a database of this tool at this
    /// schema version (open it with `AnalysisStore(path:upgrade:false)` first to check).
    public func merge(shard shardPath: String) throws(StoreError) -> MergeOutcome {
        do {
            return try writer.writeWithoutTransaction { db in
                // Read-only: a shard is only read, and may lie where it cannot be written (a read-only mount, another
                // user's folder), where a WAL database opens only as immutable.
                let location = Self.readOnlyLocations(shardPath)?.last ?? Self.uri(shardPath, query: "mode=ro")
                try db.execute(sql: "ATTACH DATABASE ? AS shard", arguments: [location])
                defer { try? db.execute(sql: "DETACH DATABASE shard") }
                var outcome = MergeOutcome()
                try db.inTransaction {
                    try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS merge_episode_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
                    let complete = try Row.fetchAll(db, sql: """
                        SELECT id, content_hash, path FROM shard.recordings WHERE status = 'complete' ORDER BY id
                        """)
                    for row in complete {
                        let shardID: Int64 = row[0], hash: String? = row[1], filePath: String = row[2]
                        if let hash, let existing = try Int64.fetchOne(db, sql: """
                            SELECT id FROM main.recordings WHERE content_hash = ? AND status = 'complete'
                            """, arguments: [hash]) {
                            // The same audio: nothing to copy, but its places are remembered.
                            try db.execute(sql: """
                                INSERT OR IGNORE INTO main.recording_locations SELECT path, ?, file_name, container, encoding,
                                file_size, file_mtime FROM shard.recording_locations WHERE recording_id = ?
                                """, arguments: [existing, shardID])
                            outcome.alreadyThere += 1
                            continue
                        }
                        try db.execute(sql: "DELETE FROM main.recordings WHERE path = ? AND status = 'failed'", arguments: [filePath])
                        try Self.copyRecording(db, shardID: shardID)
                        outcome.added += 1
                    }
                    let failed = try Row.fetchAll(db, sql: "SELECT id, path FROM shard.recordings WHERE status = 'failed' ORDER BY id")
                    for row in failed {
                        let shardID: Int64 = row[0], filePath: String = row[1]
                        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM main.recordings WHERE path = ?", arguments: [filePath]) == 0 else {
                            continue
                        }
                        try Self.copyRecording(db, shardID: shardID)
                        outcome.failuresAdded += 1
                    }
                    try db.execute(sql: "DROP TABLE temp.merge_episode_map")
                    // Tags follow the audio, whichever database analysed it.
                    try db.execute(sql: "INSERT OR IGNORE INTO main.night_tags (content_hash, tag) SELECT content_hash, tag FROM shard.night_tags")
                    return .commit
                }
                return outcome
            }
        } catch {
            throw .writeFailed(path: path, reason: "merging \(shardPath): " + Self.reason(error))
        }
    }

    /// The columns of `table` in this schema, in order.
    private static func columns(_ db: Database, _ table: String) throws -> [String] {
        try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(table))").map { $0["name"] }
    }

    /// One recording's rows, from the attached shard into main, under a new recording id (and new episode ids, which
    /// its alerts follow).
    private static func copyRecording(_ db: Database, shardID: Int64) throws {
        let recordingColumns = try columns(db, "recordings").filter { $0 != "id" }
        let list = recordingColumns.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO main.recordings (\(list)) SELECT \(list) FROM shard.recordings WHERE id = ?", arguments: [shardID])
        let newID = db.lastInsertedRowID

        // Tables keyed by the recording alone: every column as it is but the recording id.
        for table in ["windows", "detections", "profile_runs", "sound_events", "bouts", "recording_envelopes", "recording_locations",
                      "night_summaries"] {
            let other = try columns(db, table).filter { $0 != "recording_id" }
            let list = other.joined(separator: ", ")
            let verb = table == "recording_locations" ? "INSERT OR IGNORE" : "INSERT"
            try db.execute(sql: "\(verb) INTO main.\(table) (recording_id, \(list)) SELECT ?, \(list) FROM shard.\(table) WHERE recording_id = ?",
                           arguments: [newID, shardID])
        }

        // Episodes get new ids, in the shard's order; alerts point at the new ones.
        try db.execute(sql: "DELETE FROM temp.merge_episode_map")
        let episodeColumns = try columns(db, "episodes").filter { $0 != "id" && $0 != "recording_id" }
        let episodeList = episodeColumns.joined(separator: ", ")
        let episodes = try Int64.fetchAll(db, sql: "SELECT id FROM shard.episodes WHERE recording_id = ? ORDER BY id", arguments: [shardID])
        for episode in episodes {
            try db.execute(sql: "INSERT INTO main.episodes (recording_id, \(episodeList)) SELECT ?, \(episodeList) FROM shard.episodes WHERE id = ?",
                           arguments: [newID, episode])
            try db.execute(sql: "INSERT INTO temp.merge_episode_map (old, new) VALUES (?, ?)", arguments: [episode, db.lastInsertedRowID])
        }
        let alertColumns = try columns(db, "alerts").filter { !["id", "recording_id", "episode_id"].contains($0) }
        let alertList = alertColumns.joined(separator: ", ")
        try db.execute(sql: """
            INSERT INTO main.alerts (recording_id, episode_id, \(alertList))
            SELECT ?, m.new, \(alertColumns.map { "a." + $0 }.joined(separator: ", "))
            FROM shard.alerts a JOIN temp.merge_episode_map m ON m.old = a.episode_id
            WHERE a.recording_id = ? ORDER BY a.id
            """, arguments: [newID, shardID])
    }
}
