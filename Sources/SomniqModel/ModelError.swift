/// Why a model or profile file was rejected. Messages name the file and the offending field.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(path: String, searched: [String])
    case unreadable(path: String, reason: String)
    case invalidJSON(path: String, reason: String)
    case invalid(path: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let path, let searched):
            let places = searched.isEmpty ? "" : " (looked in: \(searched.joined(separator: ", ")))"
            return "\(path): error: model not found\(places); pass --model PATH to a model folder such as models/default"
        case .unreadable(let path, let reason):
            return "\(path): error: cannot read model file: \(reason)"
        case .invalidJSON(let path, let reason):
            return "\(path): error: not valid model JSON: \(reason)"
        case .invalid(let path, let field, let reason):
            return "\(path): error: \(field): \(reason)"
        }
    }
}
