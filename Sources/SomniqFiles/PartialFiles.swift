import Foundation

/// Files written whole or not at all. Each is written under a hidden name beside its destination,
/// `.<name>.somniq-partial-<pid>`, created exclusively and never through a symbolic link, and renamed into place once
/// complete: a rename replaces a link planted at the destination, never the file it points to, and a reader never sees
/// half a file. The partial files of this process are remembered, so that a command interrupted by a signal removes
/// them (`removeAllOfThisProcess`); those an earlier process left when killed outright are removed by the next run
/// that writes the same destination (`removeStale`).
public enum PartialFiles {
    private static let lock = NSLock()
    /// What sets the tool's partial files apart from anyone else's, so that removing stale ones never takes a user's.
    static let marker = ".somniq-partial-"
    nonisolated(unsafe) private static var inFlight: Set<String> = []

    /// The partial file of `destination` for this process.
    public static func path(for destination: String) -> String {
        let url = URL(fileURLWithPath: destination)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent)\(marker)\(getpid())").path
    }

    /// Creates the partial file of `destination` (removing one of this process left by an earlier attempt) and returns
    /// its descriptor and path; `errno`'s reason when it cannot.
    public static func create(for destination: String) -> Result<(descriptor: Int32, partial: String), PartialFileError> {
        let partial = path(for: destination)
        unlink(partial)
        // Remembered before it exists: a signal between its creation and its remembering would leave it behind (seen
        // in `OutputOwnershipTests`, whose export was stopped the moment the file appeared).
        lock.withLock { _ = inFlight.insert(partial) }
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            lock.withLock { _ = inFlight.remove(partial) }
            return .failure(PartialFileError(reason: reason))
        }
        return .success((descriptor, partial))
    }

    /// Puts a complete partial file in place.
    public static func commit(_ partial: String, to destination: String) -> Result<Void, PartialFileError> {
        defer { lock.withLock { _ = inFlight.remove(partial) } }
        guard rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            return .failure(PartialFileError(reason: reason))
        }
        return .success(())
    }

    /// Drops a partial file: the destination stays as it was.
    public static func abandon(_ partial: String) {
        unlink(partial)
        lock.withLock { _ = inFlight.remove(partial) }
    }

    /// Remembers a scratch file or folder of this process (outside the destination's folder) to remove if it is
    /// interrupted; `forget` once it is removed in the normal course.
    public static func remember(_ scratch: String) { lock.withLock { _ = inFlight.insert(scratch) } }
    public static func forget(_ scratch: String) { lock.withLock { _ = inFlight.remove(scratch) } }

    /// Removes every partial and scratch file of this process: for a signal handler about to exit.
    public static func removeAllOfThisProcess() {
        let paths = lock.withLock { () -> Set<String> in
            defer { inFlight.removeAll() }
            return inFlight
        }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Removes the partial files of `destination` that processes no longer running left (killed before they could
    /// clean up); those of a running process are its own.
    public static func removeStale(besides destination: String) {
        let url = URL(fileURLWithPath: destination)
        removeStale(inFolder: url.deletingLastPathComponent().path, named: url.lastPathComponent)
    }

    /// Removes the partial files in `folder` (of any destination, or of the one `named`) that processes no longer running
    /// left.
    public static func removeStale(inFolder folder: String, named: String? = nil) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(".") {
            guard let marker = name.range(of: Self.marker, options: .backwards),
                  named.map({ name[name.index(after: name.startIndex)..<marker.lowerBound] == $0 }) ?? true,
                  let pid = Int32(name[marker.upperBound...]), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }
}

/// Why a partial file could not be made or put in place: the system's reason.
public struct PartialFileError: Error, Equatable, Sendable {
    public var reason: String
}
