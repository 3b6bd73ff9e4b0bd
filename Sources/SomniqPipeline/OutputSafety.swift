import Foundation
import SomniqReports

/// Where a command may write its output: never over the database it reads (or that database's -wal, -shm or
/// journal), never over a recording, and over an existing file only if it is an earlier output of the same kind
/// (or when told to, `--force`). Paths are compared after resolving links and relative parts, and existing files
/// by identity (device and inode), so neither `./db.sqlite`, a symbolic link nor a hard link slips through. A
/// character device (`/dev/null`, a terminal) or a named pipe, or a link to one, is written in place: never read to
/// decide, never replaced by a file.
public enum OutputSafety {
    /// How an allowed output is written.
    public enum Destination: Equatable, Sendable {
        /// A regular file (or none yet): written beside it and renamed into place when whole.
        case file
        /// A character device or named pipe: written in place.
        case stream
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case database(output: String, database: String)
        case recording(output: String, recording: String)
        /// The file exists and is not an earlier output of this kind (`what`: "export of this kind", "report page", ...).
        case notOurs(output: String, what: String)
        case notAFile(output: String, kind: String)

        public var description: String {
            switch self {
            case .database(let output, let database):
                "\(output): error: this is the database being read (\(database)) or one of its files; writing there would destroy "
                    + "it. Choose another --output"
            case .recording(let output, let recording):
                "\(output): error: this is an analysed recording (\(recording)); writing there would replace its audio. "
                    + "Choose another --output"
            case .notOurs(let output, let what):
                "\(output): error: the file exists and is not an earlier \(what); pass --force to replace it, or "
                    + "choose another --output"
            case .notAFile(let output, let kind):
                "\(output): error: this is \(kind), not a file to write; choose a file's path (export also takes - for "
                    + "standard output)"
            }
        }
    }

    /// Checks that `output` may be written.
    /// - Parameters:
    ///   - database: the database the command reads.
    ///   - recordings: the recordings the database knows.
    ///   - isOurs: whether an existing file's first bytes look like an earlier output of this command.
    @discardableResult
    public static func check(_ output: String, database: String?, recordings: [String], force: Bool,
                             what: String = "export of this kind", isOurs: (Data) -> Bool) throws(Refusal) -> Destination {
        var status = stat()
        if stat(output, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFCHR, S_IFIFO: return .stream
            case S_IFDIR: throw .notAFile(output: output, kind: "a folder")
            case S_IFBLK: throw .notAFile(output: output, kind: "a block device (a disk)")
            default: throw .notAFile(output: output, kind: "a socket")
            }
        }
        let target = resolved(output)
        let targetIdentity = identity(of: output)
        if let database {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let protected = database + suffix
                if resolved(protected) == target || (targetIdentity != nil && identity(of: protected) == targetIdentity) {
                    throw .database(output: output, database: database)
                }
            }
        }
        for recording in recordings where resolved(recording) == target
            || (targetIdentity != nil && identity(of: recording) == targetIdentity) {
            throw .recording(output: output, recording: recording)
        }
        guard !force, FileManager.default.fileExists(atPath: output) else { return .file }
        let head = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: output)))
            .flatMap { handle in defer { try? handle.close() }; return try? handle.read(upToCount: 512) } ?? Data()
        guard head.isEmpty || isOurs(head) else { throw .notOurs(output: output, what: what) }
        return .file
    }

    /// The path with links and relative parts resolved; for a file that does not exist yet, its folder's.
    static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
    }

    /// Device and inode of an existing file (links followed).
    static func identity(of path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}

extension Exporter.Format {
    /// Whether `head` (a file's first bytes) looks like what this format writes.
    public func looksLikeOurs(_ head: Data) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        switch self {
        case .json: return text.hasPrefix("{") && text.contains("\"schemaVersion\"")
        case .csv: return text.hasPrefix("recording_id,")
        case .dcase: return text.hasPrefix("filename\tonset\toffset\tevent_label")
        case .raven: return text.hasPrefix("Selection\tView\tChannel")
        case .audacity: return text.range(of: "^[0-9]+(\\.[0-9]+)?\t[0-9]+(\\.[0-9]+)?\t", options: .regularExpression) != nil
        }
    }
}
