import Foundation
import SomniqStore

/// Opens the database for a command, or reports why not on stderr and exits with status 2.
enum StoreOpening {
    /// - Parameter existing: the database must already exist (commands that only read results).
    static func open(_ path: String, existing: Bool = false) throws -> AnalysisStore {
        if existing, !FileManager.default.fileExists(atPath: path) {
            Terminal.error("\(path): error: no such database; analyse recordings into it first, or pass --db")
            throw ExitStatus.nothingDone
        }
        do {
            return try AnalysisStore(path: path)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
    }
}
