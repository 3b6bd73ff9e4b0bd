import Foundation

/// Why the database could not be opened or written.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    /// The path names a folder, not a database file.
    case isFolder(path: String)
    /// A new database's folder does not exist (or is a file).
    case noFolder(path: String, folder: String)
    /// The file is no SQLite database (a recording or a text file given as the database, say).
    case notADatabase(path: String)
    /// The file system keeps a writing command from the database: a read-only disk, or permissions.
    case cannotWrite(path: String, block: WriteBlock, isNew: Bool)
    /// A write-ahead log with changes not yet in the file, beside a database that only a read-only open can reach and
    /// that has no shared-memory file (`-shm`) beside it, which SQLite needs to read the log and cannot make there.
    case unreadableLog(path: String)
    case writeFailed(path: String, reason: String)
    case readFailed(path: String, reason: String)
    case notFound(path: String, what: String)
    /// A non-empty SQLite database of another application.
    case notOurs(path: String, tables: [String])
    /// Written by a newer version of the tool (schema steps this version does not know).
    case newerVersion(path: String, steps: [String])
    /// Written by an earlier version, opened by a command that only reads (which never changes the schema).
    case olderVersion(path: String, missing: [String])
    /// An SQLite database with no tables (an empty file, or one just created), opened by a command that only reads.
    case noAnalyses(path: String)

    /// What keeps a database from being written (`AnalysisStore.writeBlock`).
    public enum WriteBlock: Equatable, Sendable {
        /// The file system it is on is mounted read-only.
        case readOnlyMedia
        /// The file's permissions do not let this user write it.
        case fileNotWritable
        /// The folder does not let this user write in it (SQLite needs to, for its log beside the database).
        case folderNotWritable(String)
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "\(path): error: cannot open the database: \(reason); check the path, its folder's permissions and free space"
        case .isFolder(let path):
            "\(path): error: is a folder, not a database; name a database file (e.g. "
                + "\((path as NSString).appendingPathComponent(AnalysisStore.defaultPath)), created if new)"
        case .noFolder(let path, let folder):
            "\(path): error: there is no folder \(folder) to create the database in (nothing was created); create that "
                + "folder first, or name a database in a folder that exists"
        case .notADatabase(let path):
            "\(path): error: not an SQLite database (nothing was changed); name the database file, or a new one to create"
        case .cannotWrite(let path, let block, let isNew):
            Self.cannotWrite(path: path, block: block, isNew: isNew)
        case .unreadableLog(let path):
            "\(path): error: its write-ahead log \(path)-wal holds changes not yet in the file, and SQLite cannot read it here "
                + "without the shared-memory file \(path)-shm beside it, which it cannot make where it may not write; nothing "
                + "was read. Copy the database with its -wal to a folder you can write, and read the copy"
        case .writeFailed(let path, let reason):
            "\(path): error: database write failed, nothing of this recording was stored: \(reason)"
        case .readFailed(let path, let reason):
            "\(path): error: database read failed: \(reason)"
        case .notFound(let path, let what):
            "\(path): error: \(what) not found in the database"
        case .notOurs(let path, let tables):
            "\(path): error: not a somniq-analyze database (it holds other tables: \(tables.prefix(5).joined(separator: ", "))"
                + "\(tables.count > 5 ? ", ..." : "")); nothing was changed. Choose another --db, or, to keep analyses in it beside its own tables, "
                + "analyse into it with 'somniq-analyze analyze FILE --db \(path) --adopt-database'"
        case .newerVersion(let path, let steps):
            "\(path): error: written by a newer version of somniq-analyze (schema \(steps.joined(separator: ", ")), which this version "
                + "does not know); nothing was changed. Use that version or a newer one"
        case .olderVersion(let path, let missing):
            "\(path): error: written by an earlier version of somniq-analyze (schema without \(missing.joined(separator: ", "))); "
                + "this command only reads and does not upgrade it. Run 'somniq-analyze analyze' with this --db once (it upgrades "
                + "the schema first), then retry"
        case .noAnalyses(let path):
            "\(path): error: an empty database, with no analyses to read (nothing was changed); analyse recordings into it "
                + "first ('somniq-analyze analyze NIGHT.wav --db \(path)'), or name the database they were stored in"
        }
    }

    private static func cannotWrite(path: String, block: WriteBlock, isNew: Bool) -> String {
        let why = switch block {
        case .readOnlyMedia: "the disk it is on is mounted read-only"
        case .fileNotWritable: "its permissions do not let you write it"
        case .folderNotWritable(let folder):
            "the folder \(folder) does not let you write in it (SQLite keeps its log beside the database)"
        }
        let remedy = block == .readOnlyMedia ? "remount the disk read-write" : "ask its owner for write permission"
        if isNew {
            return "\(path): error: cannot create the database: \(why); nothing was created. Name a --db in a folder you can write"
        }
        return "\(path): error: cannot write the database: \(why); nothing was changed. Commands that only read it "
            + "(recordings, report, export, clips) work where it is; to analyse into it, \(remedy), or copy it (with any "
            + "-wal file beside it) to a folder you can write and name the copy with --db"
    }
}
