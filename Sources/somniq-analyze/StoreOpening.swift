import Foundation
import SomniqPipeline
import SomniqStore

/// Opens the database for a command, or reports why not on stderr and exits with status 2; closes what it opened
/// when the command is done.
enum StoreOpening {
    nonisolated(unsafe) private static var opened: [AnalysisStore] = []
    private static let lock = NSLock()

    /// - Parameters:
    ///   - existing: the database must already exist; the command only reads results, so the schema is never changed.
    ///   - adoptForeign: add our tables to a database of another application (`analyze --adopt-database`).
    /// Opens the database at `path`; `existing`: it must exist, and is only read unless `writes` says otherwise.
    /// `ifMissing`: what else the user can do when it does not exist, said instead of the usual hint.
    static func open(_ path: String, existing: Bool = false, writes: Bool? = nil, adoptForeign: Bool = false,
                     ifMissing: String? = nil) throws -> AnalysisStore {
        if existing, !FileManager.default.fileExists(atPath: path) {
            Terminal.error("\(path): error: no such database; " + (ifMissing ?? missingHint(path)))
            throw ExitStatus.nothingDone
        }
        do {
            let store = try AnalysisStore(path: path, upgrade: writes ?? !existing, adoptForeign: adoptForeign)
            lock.withLock { opened.append(store) }
            return store
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
    }

    /// Where the user may have meant to point: the default is looked for in the working directory, so a command run
    /// elsewhere is told to name the database; a path given is checked beside the databases its folder holds.
    static func missingHint(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let nearby = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [])
            .filter { ["sqlite", "sqlite3", "db"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { Formatting.printable(folder.isEmpty ? $0 : (folder as NSString).appendingPathComponent($0)) }
        let listed = nearby.prefix(3).joined(separator: ", ") + (nearby.count > 3 ? ", ..." : "")
        if path == AnalysisStore.defaultPath {
            return "it is the default, looked for in the working directory" + (nearby.isEmpty ? "" : ", which holds \(listed)")
                + "; name yours with --db, or analyse recordings first ('somniq-analyze analyze NIGHT.wav' stores them there)"
        }
        return "check the path" + (nearby.isEmpty ? "" : " (its folder holds \(listed))")
            + ", or analyse recordings into it first ('somniq-analyze analyze NIGHT.wav --db \(Formatting.shellQuoted(path))')"
    }

    /// Closes `store`, a database this command created, and removes it (with its write-ahead log and shared-memory
    /// file): for a command that ends having written nothing into it, so that no empty database is left behind.
    static func discardCreated(_ store: AnalysisStore) {
        lock.withLock { opened.removeAll { $0 === store } }
        _ = try? store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
    }

    /// Checkpoints and closes every database opened, saying so when another process keeps one from being one file.
    static func closeAll() {
        let stores = lock.withLock { defer { opened = [] }; return opened }
        for store in stores {
            do {
                if try !store.close() {
                    Terminal.error("\(store.path): note: another process has the database open; its last changes stay in "
                                   + "\(store.path)-wal until that process closes it (copy the database only then)")
                }
            } catch {
                // A checkpoint cut short (a full disk) may have written part of the log into the file: the file and its
                // log are whole together, the file alone is not.
                guard FileManager.default.fileExists(atPath: store.path + "-wal") else {
                    Terminal.error(error.description)
                    continue
                }
                let reason = if case .writeFailed(_, let reason) = error { reason } else { error.description }
                Terminal.error("\(store.path): error: the write-ahead log could not be folded into the file (\(reason)); its latest "
                               + "changes are in \(store.path)-wal, and the file alone may read as damaged: keep \(store.path)-wal "
                               + "(and -shm) beside it, never copy or move the file without them; free space, then run the same "
                               + "command again, which folds the log into the file")
            }
        }
    }
}
