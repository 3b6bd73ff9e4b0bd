/// Why the database could not be opened or written.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    case readFailed(path: String, reason: String)
    case notFound(path: String, what: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "\(path): error: cannot open the database: \(reason); check the path, its folder's permissions and free space"
        case .writeFailed(let path, let reason):
            "\(path): error: database write failed, nothing of this recording was stored: \(reason)"
        case .readFailed(let path, let reason):
            "\(path): error: database read failed: \(reason)"
        case .notFound(let path, let what):
            "\(path): error: \(what) not found in the database"
        }
    }
}
