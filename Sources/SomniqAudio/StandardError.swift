import Foundation

/// Standard error held off for a moment, for a library that writes there directly what is no news to the user
/// (libmpg123's complaint about the frame after a seek, whose samples are thrown away).
enum StandardError {
    private static let lock = NSLock()

    /// Runs `body` with file descriptor 2 on /dev/null, then puts it back. Process-wide: what another thread writes to
    /// stderr meanwhile is lost too, so keep `body` short (a seek and a few frames decoded); two at once take turns.
    static func silenced<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        fflush(nil)
        let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard saved >= 0, null >= 0, dup2(null, STDERR_FILENO) >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return try body()
        }
        close(null)
        defer {
            fflush(nil)
            dup2(saved, STDERR_FILENO)
            close(saved)
        }
        return try body()
    }
}
