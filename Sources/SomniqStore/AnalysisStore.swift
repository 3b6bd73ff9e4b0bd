import Foundation
import GRDB
import SomniqDetection
import SomniqFeatures
import SomniqModel

/// The SQLite database of analysed recordings (WAL mode, so readers never block the writer).
///
/// Every recording is written in one transaction: its recording row, windows, detections, and
/// each profile's episodes and alerts land together or not at all.
public final class AnalysisStore: Sendable {
    /// The database every command reads and writes when not given `--db`: in the working directory.
    public static let defaultPath = "somniq.sqlite"

    public let path: String
    let writer: any DatabaseWriter
    /// Opened read-only where no -wal or -shm file lay beside the database: `close` removes the ones SQLite leaves.
    private let removesSidecars: Bool

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// Two processes creating or upgrading the same database at once race on switching it to WAL and on the
    /// migrations (GRDB reads which are applied before running each in its own transaction); the loser sees
    /// "database is locked", a table that "already exists", a "duplicate column name" or, renaming a column the winner
    /// renamed already (v12), "no such column". All are retried for a while: by then the winner has finished and the
    /// schema is simply up to date.
    ///
    /// Before anything is changed, the file is checked to be ours: a non-empty SQLite database of another application
    /// is refused (unless `adoptForeign`), as is one written by a newer version of this tool; with `upgrade` false (the
    /// commands that only read) the schema is never changed, and a database of an earlier version, or an empty one, is
    /// refused with what to do.
    ///
    /// With `upgrade` false (the commands that only read) an existing database is opened read-only, so that reading
    /// neither waits on a writer nor changes a byte of the file (`removeReadersSidecars` says what is left beside it).
    /// Where it cannot be written where it lies (a study archive on read-only media, a mounted backup), a WAL database
    /// needs a shared-memory file beside it, which read-only media cannot take, so there SQLite is told the file is
    /// immutable.
    public init(path: String, upgrade: Bool = true, adoptForeign: Bool = false) throws(StoreError) {
        self.path = path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { throw .isFolder(path: path) }
        if !FileManager.default.fileExists(atPath: path) {
            // SQLite says only "unable to open database file" of a new database in a folder that is not there.
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty, !(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue) {
                throw .noFolder(path: path, folder: folder)
            }
        }
        let readsOnly = !upgrade && FileManager.default.fileExists(atPath: path)
        removesSidecars = readsOnly && !FileManager.default.fileExists(atPath: path + "-wal")
            && !FileManager.default.fileExists(atPath: path + "-shm")
        var configuration = Configuration()
        configuration.busyMode = .timeout(60)
        configuration.foreignKeysEnabled = true
        if readsOnly {
            // The commands that only read open the database read-only, wherever it lies: a WAL reader takes no lock that
            // a writer waits on, waits on none of the writer's, and writes nothing (a read-write open would switch the
            // journal mode and check WAL by creating and dropping a table, and close with a checkpoint).
            let locations = Self.readOnlyLocations(path) ?? [path]
            configuration.readonly = true
            configuration.busyMode = .timeout(5)
            var failure = ""
            for location in locations {
                do {
                    try Self.checkIdentity(path: path, location: location, configuration: configuration, upgrade: false, adoptForeign: false)
                    writer = try DatabaseQueue(path: location, configuration: configuration)
                    return
                } catch let verdict as StoreError {
                    throw verdict
                } catch {
                    if Self.isNotADatabase(error) { throw .notADatabase(path: path) }
                    failure = Self.reason(error)
                }
            }
            if Self.hasLog(path), !FileManager.default.fileExists(atPath: path + "-shm") { throw .unreadableLog(path: path) }
            throw .cannotOpen(path: path, reason: failure + " (opened read-only: this command only reads)")
        }
        // A database that opens but cannot be written (its -shm beside it on a read-only disk) would fail at the first
        // write, each recording of a batch in turn: said once, here.
        if FileManager.default.fileExists(atPath: path), let block = Self.writeBlock(path), [.readOnlyMedia, .fileNotWritable].contains(block) {
            throw .cannotWrite(path: path, block: block, isNew: false)
        }
        var attempt = 0
        while true {
            do {
                try Self.checkIdentity(path: path, location: path, configuration: configuration, upgrade: upgrade, adoptForeign: adoptForeign)
                let pool = try DatabasePool(path: path, configuration: configuration)
                if upgrade { try Schema.migrator.migrate(pool) }
                writer = pool
                return
            } catch let verdict as StoreError {
                throw verdict
            } catch {
                if Self.isNotADatabase(error) { throw .notADatabase(path: path) }
                attempt += 1
                let message = Self.reason(error)
                // Another run creating or closing the same database: its locks, its schema steps, or its -wal and
                // -shm files appearing and going (a checkpoint on close deletes them between two looks at them).
                let racing = ["locked", "busy", "already exists", "duplicate column name", "no such column", "-wal", "-shm"]
                    .contains { message.contains($0) }
                guard racing, attempt < 100 else {
                    // SQLite says "unable to open database file" or "attempt to write a readonly database": the file
                    // system says why, where it can.
                    if let block = Self.writeBlock(path) {
                        throw .cannotWrite(path: path, block: block, isNew: !FileManager.default.fileExists(atPath: path))
                    }
                    throw .cannotOpen(path: path, reason: message)
                }
                Thread.sleep(forTimeInterval: 0.05 + 0.01 * Double(attempt % 7))
            }
        }
    }

    /// What kind of database `path` holds, read through one plain connection (which changes nothing: no WAL switch).
    /// Throws a `StoreError` verdict, or the database's own error (a lock held by a run creating it: retried).
    private static func checkIdentity(path: String, location: String, configuration: Configuration, upgrade: Bool,
                                      adoptForeign: Bool) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let migrator = Schema.migrator
        let known = Set(migrator.migrations)
        let queue = try DatabaseQueue(path: location, configuration: configuration)
        defer { try? queue.close() }
        let (allTables, applied) = try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            let applied = tables.contains("grdb_migrations")
                ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
            return (tables, applied)
        }
        // Nothing yet, or only the migrations' own table: a new database (perhaps being created by another run), which
        // a command that only reads has nothing to read from (its queries would fail on tables that are not there).
        let tables = allTables.filter { $0 != "grdb_migrations" }
        if tables.isEmpty {
            if upgrade { return }
            throw StoreError.noAnalyses(path: path)
        }
        guard applied.contains("v1-core") || adoptForeign else {
            throw StoreError.notOurs(path: path, tables: tables)
        }
        let unknown = applied.subtracting(known)
        if !unknown.isEmpty { throw StoreError.newerVersion(path: path, steps: unknown.sorted()) }
        if !upgrade, applied.contains("v1-core"), !known.isSubset(of: applied) {
            throw StoreError.olderVersion(path: path, missing: migrator.migrations.filter { !applied.contains($0) })
        }
    }

    /// Why the database at `path` (or a new one there) cannot be written, by what the file system says: a read-only
    /// mount, or no permission to write the file or its folder (SQLite writes its log and shared-memory files beside
    /// the database). `nil` when nothing stands in the way.
    static func writeBlock(_ path: String) -> StoreError.WriteBlock? {
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        let exists = FileManager.default.fileExists(atPath: path)
        var filesystem = statvfs()
        if statvfs(exists ? path : folder, &filesystem) == 0, filesystem.f_flag & UInt(ST_RDONLY) != 0 { return .readOnlyMedia }
        if exists, access(path, W_OK) != 0 { return .fileNotWritable }
        if access(folder, W_OK | X_OK) != 0 { return .folderNotWritable(folder) }
        return nil
    }

    /// Where an existing database at `path` cannot be written (its file, its folder, or the whole filesystem), what to
    /// open it by read-only, in order: the path itself (unless on a read-only filesystem), then an `immutable` URI,
    /// with which SQLite needs no shared-memory file beside a WAL database (on read-only media nothing can change
    /// it). With a write-ahead log beside it (a copy made as the tool says to, with its -wal), only a plain read-only
    /// open (`mode=ro`), which reads the log: an immutable one would read the file alone, an earlier state or a
    /// damaged one (a checkpoint cut short by a full disk). `nil` when it can be written, or does not exist.
    static func readOnlyLocations(_ path: String) -> [String]? {
        guard FileManager.default.fileExists(atPath: path), let block = writeBlock(path) else { return nil }
        if hasLog(path) { return [uri(path, query: "mode=ro")] }
        let immutable = uri(path, query: "immutable=1")
        return block == .readOnlyMedia ? [immutable] : [path, immutable]
    }

    /// Whether a write-ahead log with something in it lies beside the database at `path`.
    static func hasLog(_ path: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0) > 0
    }

    /// The SQLite URI of the file at `path` with `query` (`mode=ro`, `immutable=1`).
    static func uri(_ path: String, query: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? absolute
        return "file:\(escaped)?\(query)"
    }

    /// Stops the statement running on any of the store's connections (from another thread: a signal handler's): it
    /// fails with SQLite's "interrupted", and its transaction is rolled back.
    public func interrupt() { writer.interrupt() }

    /// Writes everything into the database file (a complete checkpoint of the write-ahead log) and closes every
    /// connection, so that the file alone holds every row and no -wal or -shm file is left beside it. Returns
    /// `false` when another process still has the database open: the checkpoint then cannot finish, and SQLite
    /// keeps the log until that process closes it. The store is unusable afterwards.
    @discardableResult
    public func close() throws(StoreError) -> Bool {
        guard let pool = writer as? DatabasePool else {
            try? (writer as? DatabaseQueue)?.close()
            if removesSidecars { Self.removeReadersSidecars(path) }
            return true
        }
        var whole = true
        do {
            try pool.writeWithoutTransaction { db in
                // An interruption (`interrupt()`, from a signal handler) that came between two statements stays pending
                // in SQLite until a statement starts, and a checkpoint is no statement: it would stop at once and leave
                // the log. A statement started with none running clears it.
                try db.execute(sql: "SELECT 1")
                let result = try db.checkpoint(.truncate)
                whole = result.walFrameCount == 0 || result.walFrameCount == result.checkpointedFrameCount
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            whole = false
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
        do {
            try pool.close()
            // The pool closes its writer before its readers, and a reader, the last connection, may not remove the
            // log. One read-write connection, opened and closed last, does: SQLite checkpoints and deletes the -wal and
            // -shm files when the last connection to a database closes (unless another process has it open).
            let last = try DatabaseQueue(path: path)
            try last.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try last.close()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            whole = false
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
        return whole && !FileManager.default.fileExists(atPath: path + "-wal")
    }

    /// After a read-only connection closed a database that had no -wal or -shm file beside it: a read-only connection,
    /// the last to close, cannot checkpoint, so SQLite leaves an empty -wal and the -shm (which, made beside a file the
    /// owner made read-only, would stop every later writer). Where the database can be written, one read-write
    /// connection opened and closed does what the last connection does: removes both, unless another process has the
    /// database open (then they are its). Where it cannot, an empty -wal is removed with the -shm, as nothing can be
    /// writing it.
    private static func removeReadersSidecars(_ path: String) {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path + "-wal") || manager.fileExists(atPath: path + "-shm") else { return }
        if readOnlyLocations(path) == nil {
            var configuration = Configuration()
            configuration.busyMode = .timeout(1)
            if let last = try? DatabaseQueue(path: path, configuration: configuration) {
                try? last.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
                try? last.close()
            }
            return
        }
        let walSize = (try? manager.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
        guard walSize == 0 else { return }
        try? manager.removeItem(atPath: path + "-wal")
        try? manager.removeItem(atPath: path + "-shm")
    }

    /// A private in-memory database, for tests and for commands that need no file.
    public static func inMemory() throws(StoreError) -> AnalysisStore {
        do {
            let queue = try DatabaseQueue()
            try Schema.migrator.migrate(queue)
            return AnalysisStore(path: ":memory:", writer: queue)
        } catch {
            throw .cannotOpen(path: ":memory:", reason: reason(error))
        }
    }

    private init(path: String, writer: any DatabaseWriter) {
        self.path = path
        self.writer = writer
        removesSidecars = false
    }

    /// What `save` did.
    public enum SaveOutcome: Equatable, Sendable {
        /// A new analysis was stored under this recording id.
        case stored(Int64)
        /// The same audio was already analysed with the same model (by another run, or under another path):
        /// its location was updated and any missing profiles added; nothing was duplicated.
        case alreadyStored(Int64, previousPath: String)

        public var recordingID: Int64 {
            switch self {
            case .stored(let id), .alreadyStored(let id, _): id
            }
        }
    }

    /// Stores one analysed recording and its profile results in one transaction. The recording is identified
    /// by its content hash: the same audio analysed with the same model is never stored twice (a concurrent
    /// run that got there first wins, and its rows are kept); an analysis with another model replaces the
    /// old one, as does a new analysis of the same path.
    @discardableResult
    /// - Parameter replacing: store this analysis even if the same audio was analysed with the same model
    ///   (`--reanalyze`).
    /// - Parameter profilesFor: the results of more profiles for this analysis: an analysis replaced had profiles this
    ///   one lacks (another run, with other `--profile`s, stored it meanwhile), and they are computed from this analysis
    ///   and kept beside its own, so that two runs replacing one recording lose neither's profiles.
    public func save(_ data: RecordingData, bundle: ModelBundle, results: [ProfileResult], replacing: Bool = false,
                     analyzedAt: Date = Date(), profilesFor: ([String]) -> [ProfileResult] = { _ in [] }) throws(StoreError) -> SaveOutcome {
        try save(data, bundle: bundle, profiles: results.map(\.profile), completion: { (data, results) }, replacing: replacing,
                 analyzedAt: analyzedAt, profilesFor: profilesFor)
    }

    /// Stores one analysed recording as `save(_:bundle:results:)` does, asking for what is read last only once the
    /// window rows are written: `completion` gives the recording with its timeline (`RecordingData.timeline`) and the
    /// results of `profiles`, which may meanwhile be computed on another thread.
    @discardableResult
    public func save(_ data: RecordingData, bundle: ModelBundle, profiles: [String],
                     completion: () -> (data: RecordingData, results: [ProfileResult]), replacing: Bool = false,
                     analyzedAt: Date = Date(), profilesFor: ([String]) -> [ProfileResult] = { _ in [] }) throws(StoreError) -> SaveOutcome {
        do {
            return try writer.write { db in
                var replacedProfiles: Set<String> = []
                if let hash = data.contentHash, let existing = try Self.analysis(db, contentHash: hash) {
                    if existing.modelTag == bundle.versionTag, !replacing {
                        try Self.relocate(db, id: existing.id, data: data)
                        let (data, results) = completion()
                        let missing = results.filter { !existing.profiles.contains($0.profile) }
                        for result in missing { try insertProfileResult(db, result, data: data, recordingID: existing.id) }
                        return .alreadyStored(existing.id, previousPath: existing.path)
                    }
                    replacedProfiles.formUnion(existing.profiles)
                    try db.execute(sql: "DELETE FROM recordings WHERE id = ?", arguments: [existing.id])
                }
                replacedProfiles.formUnion(try String.fetchAll(db, sql: """
                    SELECT p.profile FROM profile_runs p JOIN recordings r ON r.id = p.recording_id WHERE r.path = ?
                    """, arguments: [data.path]))
                // The same file (same path, size and modification time) whose audio identity changed can only have
                // been hashed another way (16-bit Apple Lossless is hashed as integers since model 3.5.0's release):
                // its night's tags, kept by that identity, follow it. A new recording written to the same path does
                // not inherit the tags of the night it replaces.
                let previousHashes = try String.fetchAll(db, sql: """
                    SELECT DISTINCT content_hash FROM recordings
                    WHERE path = ? AND content_hash IS NOT NULL AND file_size = ? AND file_mtime = ?
                    """, arguments: [data.path, data.fileSize, data.fileModified])
                try db.execute(sql: "DELETE FROM recordings WHERE path = ?", arguments: [data.path])
                let own = Set(profiles)
                let order = bundle.profiles.profileNames
                let recordingID = try insertRecording(db, data, bundle: bundle, analyzedAt: analyzedAt)
                if let hash = data.contentHash {
                    for previous in previousHashes where previous != hash {
                        try db.execute(sql: """
                            INSERT OR IGNORE INTO night_tags (content_hash, tag) SELECT ?, tag FROM night_tags WHERE content_hash = ?
                            """, arguments: [hash, previous])
                    }
                }
                try Self.recordLocation(db, id: recordingID, data: data)
                try insertWindows(db, data, recordingID: recordingID, detectionFloor: bundle.classifier.detectionFloor)
                let (data, ownResults) = completion()
                let kept = profilesFor(order.filter { replacedProfiles.contains($0) && !own.contains($0) })
                let results = kept.isEmpty ? ownResults : (ownResults + kept)
                    .sorted { (order.firstIndex(of: $0.profile) ?? order.count) < (order.firstIndex(of: $1.profile) ?? order.count) }
                try insertTimeline(db, data, recordingID: recordingID)
                if let summary = NightSummary(data) { try Self.insertNightSummary(db, summary, recordingID: recordingID) }
                for result in results {
                    try insertProfileResult(db, result, data: data, recordingID: recordingID)
                }
                return .stored(recordingID)
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    /// A complete analysis already in the database.
    public struct StoredAnalysis: Equatable, Sendable {
        public var id: Int64
        public var path: String
        /// `model@version+profiles@version`, as `ModelBundle.versionTag`.
        public var modelTag: String
        public var profiles: Set<String>
        public var contentHash: String?
        /// The one channel analysed (from 1), `nil` for the channels mixed.
        public var channel: Int?
    }

    /// The complete analysis of the file at `path`, if the file has not changed since (same size and
    /// modification time): how a rerun skips what it has done without decoding anything.
    public func completeAnalysis(path filePath: String, fileSize: Int64, fileModified: Double) throws(StoreError) -> StoredAnalysis? {
        try read { db in
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT l.recording_id FROM recording_locations l JOIN recordings r ON r.id = l.recording_id
                WHERE l.path = ? AND r.status = 'complete' AND l.file_size = ? AND l.file_mtime = ?
                """, arguments: [filePath, fileSize, fileModified]) else { return nil }
            return try Self.analysis(db, id: id)
        }
    }

    /// The complete analysis of the audio with this content hash, wherever it was.
    public func completeAnalysis(contentHash hash: String) throws(StoreError) -> StoredAnalysis? {
        try read { db in try Self.analysis(db, contentHash: hash) }
    }

    /// Adds profile results to a stored recording (computed from its stored confidences) and records its
    /// current location, in one transaction; profiles it already has are left alone.
    public func addProfiles(_ results: [ProfileResult], to data: RecordingData, recordingID: Int64) throws(StoreError) {
        do {
            try writer.write { db in
                let existing = Set(try String.fetchAll(db, sql: "SELECT profile FROM profile_runs WHERE recording_id = ?",
                                                       arguments: [recordingID]))
                for result in results where !existing.contains(result.profile) {
                    try insertProfileResult(db, result, data: data, recordingID: recordingID)
                }
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Moves a stored recording to a new start time (`startMilliseconds` since the epoch, UTC), as if it had been
    /// analysed with it: the start is metadata, so every stored time of day (windows, detections, alerts, episodes,
    /// events, bouts) is recomputed from its offset, in one transaction, without decoding anything. Returns the
    /// start it had, or `nil` when it already had this one (nothing is written then).
    @discardableResult
    public func setStart(recordingID: Int64, startMilliseconds: Int64, source: String) throws(StoreError) -> String? {
        let start = UTCTimestamp.format(milliseconds: startMilliseconds)
        do {
            return try writer.write { db -> String? in
                let previous = try String.fetchOne(db, sql: "SELECT start_utc FROM recordings WHERE id = ?", arguments: [recordingID])
                guard previous != start else { return nil }
                try db.execute(sql: "UPDATE recordings SET start_utc = ?, start_source = ? WHERE id = ?",
                               arguments: [start, source, recordingID])
                func utc(_ offset: Double) -> String {
                    UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(startMilliseconds: startMilliseconds, offsetSeconds: offset))
                }
                // Table, then its offset columns and the time-of-day column each gives.
                let columns: [(String, [(String, String)])] = [
                    ("windows", [("start_offset_s", "start_utc")]), ("detections", [("start_offset_s", "start_utc")]),
                    ("alerts", [("offset_s", "utc")]), ("episodes", [("start_offset_s", "start_utc"), ("end_offset_s", "end_utc")]),
                    ("sound_events", [("onset_s", "onset_utc")]), ("bouts", [("onset_s", "onset_utc")]),
                ]
                for (table, pairs) in columns {
                    for (offsetColumn, utcColumn) in pairs {
                        let update = try db.cachedStatement(sql: "UPDATE \(table) SET \(utcColumn) = ? WHERE rowid = ?")
                        let rows = try Row.fetchCursor(db, sql: "SELECT rowid, \(offsetColumn) FROM \(table) WHERE recording_id = ?",
                                                       arguments: [recordingID])
                        var changes: [(Int64, String)] = []
                        while let row = try rows.next() { changes.append((row[0], utc(row[1]))) }
                        for (rowid, value) in changes { try update.execute(arguments: [value, rowid]) }
                    }
                }
                return previous
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    /// A stored recording's per-window confidences and timing, enough to run profiles on it again.
    public func recordingData(id: Int64) throws(StoreError) -> RecordingData? {
        guard let record = try recording(id: id), record.status == "complete",
              let classJSON = record.classIDs,
              let classIDs = try? JSONDecoder().decode([String].self, from: Data(classJSON.utf8)) else { return nil }
        let stored = try confidences(recordingID: id)
        let start = record.startUTC.flatMap { UTCTimestamp.parse($0) } ?? 0
        var data = RecordingData(
            path: record.path, container: record.container ?? "", encoding: record.encoding ?? "",
            sampleRate: record.sampleRate ?? 0, channelCount: record.channels ?? 0, frameCount: record.frameCount ?? 0,
            durationSeconds: record.durationSeconds ?? 0, startMilliseconds: start, startSource: record.startSource ?? "",
            windowCount: stored.windowCount, featureIDs: [], features: [], classIDs: classIDs, confidences: stored.values)
        data.contentHash = record.contentHash
        data.undetectableClasses = record.undetectableClasses
            .flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        data.fileSize = record.fileSize
        data.fileModified = record.fileModified
        data.declaredFrameCount = record.truncated ? record.declaredFrames : nil
        data.faults = record.faults
        data.channel = record.channel
        data.envelope = try envelope(recordingID: id)
        return data
    }

    /// A stored recording's level every 10 ms (empty when none was stored).
    public func envelope(recordingID id: Int64) throws(StoreError) -> LevelEnvelope {
        try read { db in
            var codes: [UInt8] = []
            let chunks = try Data.fetchCursor(db, sql: "SELECT levels FROM recording_envelopes WHERE recording_id = ? ORDER BY chunk",
                                              arguments: [id])
            while let chunk = try chunks.next() { codes.append(contentsOf: chunk) }
            return LevelEnvelope(codes: codes)
        }
    }

    static func analysis(_ db: Database, contentHash hash: String) throws -> StoredAnalysis? {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM recordings WHERE content_hash = ? AND status = 'complete'",
                                          arguments: [hash]) else { return nil }
        return try analysis(db, id: id)
    }

    static func analysis(_ db: Database, id: Int64) throws -> StoredAnalysis? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT path, model_name, model_version, profiles_version, content_hash, channel FROM recordings WHERE id = ?
            """, arguments: [id]) else { return nil }
        let name: String = row["model_name"] ?? "", version: String = row["model_version"] ?? ""
        let profilesVersion: String = row["profiles_version"] ?? ""
        let profiles = try String.fetchAll(db, sql: "SELECT profile FROM profile_runs WHERE recording_id = ?", arguments: [id])
        return StoredAnalysis(id: id, path: row["path"], modelTag: "\(name)@\(version)+profiles@\(profilesVersion)",
                              profiles: Set(profiles), contentHash: row["content_hash"], channel: row["channel"])
    }

    /// The same audio found at `data.path`, dropping any other row (such as an old failure) for that path. If the
    /// stored path no longer holds a file, the recording was moved or renamed: it now points at the new path. If it
    /// does, this is another copy (a FLAC of a WAV, say): the recording keeps its first path, and the new one is
    /// added to its locations, with its own container and format.
    static func relocate(_ db: Database, id: Int64, data: RecordingData) throws {
        try db.execute(sql: "DELETE FROM recordings WHERE path = ? AND id <> ?", arguments: [data.path, id])
        let stored = try String.fetchOne(db, sql: "SELECT path FROM recordings WHERE id = ?", arguments: [id])
        if let stored, stored != data.path, !FileManager.default.fileExists(atPath: stored) {
            try db.execute(sql: "DELETE FROM recording_locations WHERE path = ?", arguments: [stored])
            try db.execute(sql: """
                UPDATE recordings SET path = ?, file_name = ?, container = ?, encoding = ?, file_size = ?, file_mtime = ? WHERE id = ?
                """, arguments: [data.path, (data.path as NSString).lastPathComponent, data.container, data.encoding, data.fileSize,
                                 data.fileModified, id])
        } else if stored == data.path {
            try db.execute(sql: "UPDATE recordings SET file_size = ?, file_mtime = ? WHERE id = ?",
                           arguments: [data.fileSize, data.fileModified, id])
        }
        try recordLocation(db, id: id, data: data)
    }

    /// Notes that `data.path` holds recording `id`'s audio (replacing what was noted for that path).
    static func recordLocation(_ db: Database, id: Int64, data: RecordingData) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO recording_locations (path, recording_id, file_name, container, encoding, file_size, file_mtime)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [data.path, id, (data.path as NSString).lastPathComponent, data.container, data.encoding,
                             data.fileSize, data.fileModified])
    }

    /// Records that `filePath` could not be analysed, and why, replacing an earlier failure of it. A complete analysis
    /// of the file stays: a failed attempt (a file cut short in place, a read refused during `--reanalyze`) is recorded
    /// beside it and never removes it.
    @discardableResult
    public func saveFailure(filePath: String, code: String, message: String, analyzedAt: Date = Date()) throws(StoreError) -> Int64 {
        do {
            return try writer.write { db in
                try db.execute(sql: "DELETE FROM recordings WHERE path = ? AND status = 'failed'", arguments: [filePath])
                try db.execute(sql: """
                    INSERT INTO recordings (path, file_name, status, error_code, error_message, analyzed_at)
                    VALUES (?, ?, 'failed', ?, ?, ?)
                    """, arguments: [filePath, (filePath as NSString).lastPathComponent, code, message,
                                     Self.isoNow(analyzedAt)])
                return db.lastInsertedRowID
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    // MARK: - Reading

    public func recordings() throws(StoreError) -> [RecordingRecord] {
        try read { db in try RecordingRecord.fetchAll(db, sql: "SELECT * FROM recordings ORDER BY id") }
    }

    /// What one profile made of a stored recording.
    public struct ProfileRun: Codable, Equatable, Sendable {
        public var profile: String
        public var episodes: Int
        public var alerts: Int
    }

    /// Per stored recording (by id), its profile runs in the order the profiles were first run.
    public func profileRuns() throws(StoreError) -> [Int64: [ProfileRun]] {
        try read { db in
            var runs: [Int64: [ProfileRun]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT recording_id, profile, episode_count, alert_count FROM profile_runs ORDER BY recording_id, rowid") {
                runs[row[0], default: []].append(ProfileRun(profile: row[1], episodes: row[2], alerts: row[3]))
            }
            return runs
        }
    }

    public func recording(id: Int64) throws(StoreError) -> RecordingRecord? {
        try read { db in try RecordingRecord.fetchOne(db, sql: "SELECT * FROM recordings WHERE id = ?", arguments: [id]) }
    }

    public func episodes(recordingID: Int64, profile: String? = nil) throws(StoreError) -> [EpisodeRecord] {
        try read { db in
            try EpisodeRecord.fetchAll(db, sql: """
                SELECT * FROM episodes WHERE recording_id = ? AND (? IS NULL OR profile = ?)
                ORDER BY profile, start_offset_s, id
                """, arguments: [recordingID, profile, profile])
        }
    }

    public func alerts(recordingID: Int64, profile: String? = nil) throws(StoreError) -> [AlertRecord] {
        try read { db in
            try AlertRecord.fetchAll(db, sql: """
                SELECT * FROM alerts WHERE recording_id = ? AND (? IS NULL OR profile = ?)
                ORDER BY profile, offset_s, id
                """, arguments: [recordingID, profile, profile])
        }
    }

    /// The recording's recurring events (snores, coughs, sobs), by class then time.
    public func soundEvents(recordingID: Int64) throws(StoreError) -> [SoundEventRecord] {
        try read { db in
            try SoundEventRecord.fetchAll(db, sql: "SELECT * FROM sound_events WHERE recording_id = ? ORDER BY class_id, event_index",
                                          arguments: [recordingID])
        }
    }

    /// The recording's bouts (runs of recurring events at their pace), by class then time.
    public func bouts(recordingID: Int64) throws(StoreError) -> [BoutRecord] {
        try read { db in
            try BoutRecord.fetchAll(db, sql: "SELECT * FROM bouts WHERE recording_id = ? ORDER BY class_id, bout_index",
                                    arguments: [recordingID])
        }
    }

    /// Each window's level over the room's background (`snr_db`), dB, in window order: the loudness of the night
    /// without reading a single confidence or feature.
    public func windowLevelsOverBackground(recordingID: Int64) throws(StoreError) -> [Float] {
        try read { db in
            var levels: [Float] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT snr_db FROM windows WHERE recording_id = ? ORDER BY window_index",
                                           arguments: [recordingID])
            while let row = try rows.next() { levels.append(Float(row[0] as Double)) }
            return levels
        }
    }

    public func detections(recordingID: Int64) throws(StoreError) -> [DetectionRecord] {
        try read { db in
            try DetectionRecord.fetchAll(db, sql: "SELECT * FROM detections WHERE recording_id = ? ORDER BY window_index, class_id",
                                         arguments: [recordingID])
        }
    }

    public func windows(recordingID: Int64) throws(StoreError) -> [WindowRecord] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT window_index, start_offset_s, end_offset_s, start_utc, rms_dbfs, snr_db, top_class, top_confidence, confidences
                FROM windows WHERE recording_id = ? ORDER BY window_index
                """, arguments: [recordingID]).map { row in
                WindowRecord(windowIndex: row[0], startOffsetSeconds: row[1], endOffsetSeconds: row[2], startUTC: row[3],
                             rmsDbfs: row[4], snrDb: row[5], topClass: row[6], topConfidence: row[7],
                             confidences: FloatBlob.decode(row[8]))
            }
        }
    }

    /// The profiles any stored recording was run under, sorted.
    public func storedProfiles() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT profile FROM profile_runs ORDER BY profile") }
    }

    /// The classes of the models of the stored recordings, sorted.
    public func storedClassIDs() throws(StoreError) -> [String] {
        let lists = try read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT class_ids FROM recordings WHERE status = 'complete' AND class_ids IS NOT NULL")
        }
        let ids = lists.flatMap { (try? JSONDecoder().decode([String].self, from: Data($0.utf8))) ?? [] }
        return Array(Set(ids)).sorted()
    }

    // MARK: - Streaming reads
    //
    // Rows handed to `body` one at a time as SQLite reads them, in one read transaction (a consistent snapshot), so
    // an export's memory stays flat however many windows a night or a study holds. An error thrown by `body` (a full
    // disk, say) comes out as it was thrown; the store's own failures are `StoreError`s.

    public func forEachEpisode(recordingID: Int64, profile: String? = nil, _ body: (EpisodeRecord) throws -> Void) throws {
        try forEach(EpisodeRecord.self, sql: """
            SELECT * FROM episodes WHERE recording_id = ? AND (? IS NULL OR profile = ?) ORDER BY profile, start_offset_s, id
            """, arguments: [recordingID, profile, profile], body)
    }

    public func forEachAlert(recordingID: Int64, profile: String? = nil, _ body: (AlertRecord) throws -> Void) throws {
        try forEach(AlertRecord.self, sql: """
            SELECT * FROM alerts WHERE recording_id = ? AND (? IS NULL OR profile = ?) ORDER BY profile, offset_s, id
            """, arguments: [recordingID, profile, profile], body)
    }

    public func forEachSoundEvent(recordingID: Int64, _ body: (SoundEventRecord) throws -> Void) throws {
        try forEach(SoundEventRecord.self, sql: "SELECT * FROM sound_events WHERE recording_id = ? ORDER BY class_id, event_index",
                    arguments: [recordingID], body)
    }

    public func forEachDetection(recordingID: Int64, _ body: (DetectionRecord) throws -> Void) throws {
        try forEach(DetectionRecord.self, sql: "SELECT * FROM detections WHERE recording_id = ? ORDER BY window_index, class_id",
                    arguments: [recordingID], body)
    }

    /// Each window of a recording in order (one record refilled row by row: nothing is allocated per window).
    public func forEachWindow(recordingID: Int64, _ body: (WindowRecord) throws -> Void) throws {
        var window = WindowRecord(windowIndex: 0, startOffsetSeconds: 0, endOffsetSeconds: 0, startUTC: "", rmsDbfs: 0, snrDb: 0,
                                  topClass: "", topConfidence: 0, confidences: [])
        try forEachRow(sql: """
            SELECT window_index, start_offset_s, end_offset_s, start_utc, rms_dbfs, snr_db, top_class, top_confidence, confidences
            FROM windows WHERE recording_id = ? ORDER BY window_index
            """, arguments: [recordingID]) { row in
            window.windowIndex = row[0]
            window.startOffsetSeconds = row[1]
            window.endOffsetSeconds = row[2]
            window.startUTC = row[3]
            window.rmsDbfs = row[4]
            window.snrDb = row[5]
            window.topClass = row[6]
            window.topConfidence = row[7]
            try row.withUnsafeData(atIndex: 8) { FloatBlob.decode($0 ?? Data(), into: &window.confidences) }
            try body(window)
        }
    }

    private func forEach<Record: FetchableRecord>(_ type: Record.Type, sql: String, arguments: StatementArguments,
                                                  _ body: (Record) throws -> Void) throws {
        try forEachRow(sql: sql, arguments: arguments) { row in try body(Record(row: row)) }
    }

    private func forEachRow(sql: String, arguments: StatementArguments, _ body: (Row) throws -> Void) throws {
        var bodyFailure: (any Error)?
        do {
            try writer.read { db in
                let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try rows.next() {
                    do { try body(row) } catch {
                        bodyFailure = error
                        return
                    }
                }
            }
        } catch {
            throw StoreError.readFailed(path: path, reason: Self.reason(error))
        }
        if let bodyFailure { throw bodyFailure }
    }

    /// The one channel (from 1) the complete analysis of the file at `filePath` was made on; `nil` for the channels
    /// mixed, or no analysis.
    public func analysedChannel(path filePath: String) throws(StoreError) -> Int? {
        guard let id = try recordingID(forPath: filePath) else { return nil }
        return try recording(id: id)?.channel
    }

    /// The complete recording stored for `filePath` (as given or standardised), if any.
    public func recordingID(forPath filePath: String) throws(StoreError) -> Int64? {
        let standardized = URL(fileURLWithPath: filePath).standardizedFileURL.path
        return try read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM recordings WHERE status = 'complete' AND path IN (?, ?) ORDER BY id DESC",
                               arguments: [filePath, standardized])
                ?? Int64.fetchOne(db, sql: """
                    SELECT l.recording_id FROM recording_locations l JOIN recordings r ON r.id = l.recording_id
                    WHERE r.status = 'complete' AND l.path IN (?, ?)
                    """, arguments: [filePath, standardized])
        }
    }

    /// The stored per-window confidences of a recording (row-major, windows × classes), to run profiles on.
    public func confidences(recordingID: Int64) throws(StoreError) -> (classIDs: [String], windowCount: Int, values: [Float]) {
        try read { db in
            guard let record = try RecordingRecord.fetchOne(db, sql: "SELECT * FROM recordings WHERE id = ?", arguments: [recordingID]),
                  let classJSON = record.classIDs,
                  let classIDs = try? JSONDecoder().decode([String].self, from: Data(classJSON.utf8)) else {
                return ([], 0, [])
            }
            var values: [Float] = []
            var windows = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT confidences FROM windows WHERE recording_id = ? ORDER BY window_index",
                                           arguments: [recordingID])
            while let row = try rows.next() {
                let blob: Data = row[0]
                values.append(contentsOf: FloatBlob.decode(blob))
                windows += 1
            }
            return (classIDs, windows, values)
        }
    }

    /// Scalar query, for reports and tests.
    public func count(_ table: String, recordingID: Int64? = nil) throws(StoreError) -> Int {
        precondition(["recordings", "windows", "detections", "alerts", "episodes", "profile_runs"].contains(table))
        return try read { db in
            if let recordingID {
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE recording_id = ?", arguments: [recordingID]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
    }

    func read<Value>(_ body: (Database) throws -> Value) throws(StoreError) -> Value {
        do {
            return try writer.read(body)
        } catch {
            throw .readFailed(path: path, reason: Self.reason(error))
        }
    }

    // MARK: - Writing

    /// The recording's row: `complete`, or `partial` for a night still being followed (`savePartial`).
    func insertRecording(_ db: Database, _ data: RecordingData, bundle: ModelBundle, analyzedAt: Date,
                         status: String = "complete") throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO recordings (path, file_name, status, container, encoding, sample_rate, channels, frame_count,
                duration_s, start_utc, start_source, window_count, model_name, model_version, profiles_version,
                class_ids, feature_ids, analyzed_at, content_hash, file_size, file_mtime, undetectable_classes,
                truncated, declared_frames, full_scale_share, full_scale_reads, mix_below_channels_db, channel)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                data.path, (data.path as NSString).lastPathComponent, status, data.container, data.encoding, data.sampleRate,
                data.channelCount, data.frameCount, data.durationSeconds,
                UTCTimestamp.format(milliseconds: data.startMilliseconds), data.startSource, data.windowCount,
                bundle.classifier.name, bundle.classifier.version, bundle.profiles.version,
                Self.jsonArray(data.classIDs), Self.jsonArray(data.featureIDs), Self.isoNow(analyzedAt),
                data.contentHash, data.fileSize, data.fileModified, Self.jsonArray(data.undetectableClasses),
                data.declaredFrameCount == nil ? 0 : 1, data.declaredFrameCount,
                data.faults.fullScaleShare, data.faults.fullScaleShare == nil ? nil : data.faults.readsReachingFullScale,
                data.faults.mixBelowChannelsDecibels, data.channel,
            ])
        return db.lastInsertedRowID
    }

    /// Inserts the rows of the windows in `range` (all of them by default) and their detections.
    func insertWindows(_ db: Database, _ data: RecordingData, recordingID: Int64, detectionFloor: Float,
                       range: Range<Int>? = nil) throws {
        let range = range ?? 0..<data.windowCount
        let windowInsert = try BulkInsert(db, sql: """
            INSERT INTO windows (recording_id, window_index, start_offset_s, end_offset_s, start_utc, rms_dbfs, snr_db,
                top_class, top_confidence, features, confidences)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let detectionInsert = try BulkInsert(db, sql: """
            INSERT INTO detections (recording_id, window_index, class_id, confidence, start_offset_s, start_utc)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        let featureCount = data.featureIDs.count
        precondition(featureCount > 0, "a fresh analysis has features")
        // Detections are the sounds heard: silence and other ("nothing of note", on top of most windows of a
        // night) stay in each window's confidences and top class, not in 100,000 detection rows a night.
        let detectable = data.classIDs.map { !TopClass.nothing.contains($0) }
        let classCount = data.classIDs.count
        let rmsIndex = data.featureIDs.firstIndex(of: FeatureID.rmsDbfs.rawValue)
        let snrIndex = data.featureIDs.firstIndex(of: FeatureID.snrDb.rawValue)
        try data.confidences.withUnsafeBufferPointer { allConfidences in
            try data.forEachFeatureBlock { firstWindow, allFeatures in
                for window in firstWindow..<(firstWindow + allFeatures.count / featureCount) where range.contains(window) {
                    let start = AnalysisGrid.windowStartSeconds(window)
                    let end = min(data.durationSeconds, start + AnalysisGrid.windowSeconds)
                    let utc = UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(
                        startMilliseconds: data.startMilliseconds, offsetSeconds: start))
                    let row = window - firstWindow
                    let features = UnsafeBufferPointer(rebasing: allFeatures[(row * featureCount)..<((row + 1) * featureCount)])
                    let confidences = UnsafeBufferPointer(rebasing: allConfidences[(window * classCount)..<((window + 1) * classCount)])
                    var top = 0
                    for index in 0..<classCount where confidences[index] > confidences[top] { top = index }
                    try windowInsert.bind(recordingID)
                    try windowInsert.bind(window)
                    try windowInsert.bind(start)
                    try windowInsert.bind(end)
                    try windowInsert.bind(utc)
                    try windowInsert.bind(Double(rmsIndex.map { features[$0] } ?? 0))
                    try windowInsert.bind(Double(snrIndex.map { features[$0] } ?? 0))
                    try windowInsert.bind(data.classIDs[top])
                    try windowInsert.bind(Double(confidences[top]))
                    try windowInsert.bind(floats: features)
                    try windowInsert.bind(floats: confidences)
                    try windowInsert.step()
                    for index in 0..<classCount where detectable[index] && confidences[index] >= detectionFloor {
                        try detectionInsert.bind(recordingID)
                        try detectionInsert.bind(window)
                        try detectionInsert.bind(data.classIDs[index])
                        try detectionInsert.bind(Double(confidences[index]))
                        try detectionInsert.bind(start)
                        try detectionInsert.bind(utc)
                        try detectionInsert.step()
                    }
                }
            }
        }
    }

    /// The envelope is stored an hour a row.
    static let envelopeChunkSeconds = 3600

    private func insertTimeline(_ db: Database, _ data: RecordingData, recordingID: Int64) throws {
        guard !data.envelope.isEmpty else { return }
        try storeEnvelope(db, data.envelope, recordingID: recordingID, fromChunk: 0)
        guard let timeline = data.timeline else { return }
        func utc(_ offset: Double) -> String {
            UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(startMilliseconds: data.startMilliseconds, offsetSeconds: offset))
        }
        let eventStatement = try db.cachedStatement(sql: """
            INSERT INTO sound_events (recording_id, class_id, event_index, onset_s, offset_s, duration_s, onset_utc, peak_dbfs,
                confidence, bout_index)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var eventIndex: [Int: Int] = [:]
        for event in timeline.events {
            let index = eventIndex[event.classIndex, default: 0]
            eventIndex[event.classIndex] = index + 1
            try eventStatement.execute(arguments: [
                recordingID, data.classIDs[event.classIndex], index, event.onsetSeconds, event.offsetSeconds,
                event.durationSeconds, utc(event.onsetSeconds), Double(event.peakDbfs), Double(event.confidence), event.bout,
            ])
        }
        let boutStatement = try db.cachedStatement(sql: """
            INSERT INTO bouts (recording_id, class_id, bout_index, onset_s, offset_s, duration_s, onset_utc, event_count)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var boutIndex: [Int: Int] = [:]
        for bout in timeline.bouts {
            let index = boutIndex[bout.classIndex, default: 0]
            boutIndex[bout.classIndex] = index + 1
            try boutStatement.execute(arguments: [
                recordingID, data.classIDs[bout.classIndex], index, bout.onsetSeconds, bout.offsetSeconds, bout.durationSeconds,
                utc(bout.onsetSeconds), bout.eventCount,
            ])
        }
    }

    /// Writes the envelope's hour-long rows from `fromChunk` on (replacing what a partial night stored of them).
    func storeEnvelope(_ db: Database, _ envelope: LevelEnvelope, recordingID: Int64, fromChunk: Int) throws {
        let chunkLength = Self.envelopeChunkSeconds * LevelEnvelope.rateHz
        let envelopeStatement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO recording_envelopes (recording_id, chunk, rate_hz, levels) VALUES (?, ?, ?, ?)
            """)
        for (chunk, start) in stride(from: 0, to: envelope.count, by: chunkLength).enumerated() where chunk >= fromChunk {
            let levels = envelope.codes[start..<min(envelope.count, start + chunkLength)]
            try envelopeStatement.execute(arguments: [recordingID, chunk, LevelEnvelope.rateHz, Data(levels)])
        }
    }

    private func insertProfileResult(_ db: Database, _ result: ProfileResult, data: RecordingData, recordingID: Int64) throws {
        let rules = result.rules.compactMap { $0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let rulesJSON = String(decoding: try encoder.encode(rules), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO profile_runs (recording_id, profile, rules, alert_count, episode_count) VALUES (?, ?, ?, ?, ?)
            """, arguments: [recordingID, result.profile, rulesJSON, result.alerts.count, result.episodes.count])

        func utc(_ offset: Double) -> String {
            UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(startMilliseconds: data.startMilliseconds, offsetSeconds: offset))
        }
        var episodeIDs: [Int64] = []
        let episodeStatement = try db.cachedStatement(sql: """
            INSERT INTO episodes (recording_id, profile, class_id, tier, severity, start_offset_s, end_offset_s, start_utc,
                end_utc, duration_s, peak_confidence, alert_count, suppressed_count, activation_count, peak_dbfs, mean_dbfs,
                peak_over_background_db)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for episode in result.episodes {
            try episodeStatement.execute(arguments: [
                recordingID, result.profile, data.classIDs[episode.classIndex], episode.tier.rawValue,
                episode.severity.rawValue, episode.startSeconds, episode.endSeconds, utc(episode.startSeconds),
                utc(episode.endSeconds), episode.durationSeconds, Double(episode.peakConfidence), episode.alertCount,
                episode.suppressedCount, episode.activations.count, episode.peakDbfs.map { Double($0) },
                episode.meanDbfs.map { Double($0) }, episode.peakOverBackgroundDb.map { Double($0) },
            ])
            episodeIDs.append(db.lastInsertedRowID)
        }
        let alertStatement = try db.cachedStatement(sql: """
            INSERT INTO alerts (recording_id, profile, class_id, tier, kind, offset_s, utc, window_index, confidence, episode_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (alert, episodeIndex) in zip(result.alerts, result.alertEpisodes) {
            let offset = Self.alertOffsetSeconds(frame: alert.frame, durationSeconds: data.durationSeconds)
            try alertStatement.execute(arguments: [
                recordingID, result.profile, data.classIDs[alert.classIndex], result.episodes[episodeIndex].tier.rawValue,
                alert.kind.rawValue, offset, utc(offset), alert.frame, Double(alert.confidence), episodeIDs[episodeIndex],
            ])
        }
    }

    /// When an alert raised on window `frame` reaches the user: the end of that window (or of the file).
    public static func alertOffsetSeconds(frame: Int, durationSeconds: Double) -> Double {
        min(durationSeconds, AnalysisGrid.windowStartSeconds(frame) + AnalysisGrid.windowSeconds)
    }

    private static func jsonArray(_ values: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func isoNow(_ date: Date) -> String {
        UTCTimestamp.format(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// SQLite's verdict on a file that is something else (SQLITE_NOTADB).
    static func isNotADatabase(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_NOTADB
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error)" }
        return "\(error)"
    }
}
