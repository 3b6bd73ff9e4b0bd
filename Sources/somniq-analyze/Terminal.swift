import Foundation
import SomniqPipeline
import SomniqStore

/// stdout carries data; stderr carries progress, warnings and errors. Writes are serialised, so lines from
/// the batch's worker threads and its progress ticker never interleave.
enum Terminal {
    static let stderrIsTerminal = isatty(STDERR_FILENO) == 1
    private static let lock = NSLock()
    nonisolated(unsafe) private static var progressShown = false

    static func output(_ text: String) {
        lock.withLock {
            clearLocked()
            write(.standardOutput, text)
        }
    }

    /// Writes `text` to stdout as `output` does, where SIGPIPE is ignored (`follow`, which must not die with what reads
    /// its alerts): `false` once stdout is closed (the program reading it ended) or cannot be written.
    static func outputIfOpen(_ text: String) -> Bool {
        lock.withLock {
            clearLocked()
            return write(.standardOutput, text)
        }
    }

    /// Writes `text` without trapping: where SIGPIPE is ignored (`follow`), a closed stdout or stderr makes the write fail
    /// (EPIPE), which `FileHandle.write(_:)` turns into a crash; elsewhere SIGPIPE ends the process first, as usual.
    /// Whether it was written.
    @discardableResult
    private static func write(_ handle: FileHandle, _ text: String) -> Bool {
        (try? handle.write(contentsOf: Data(text.utf8))) != nil
    }

    /// One line on stderr: control characters in it (a line break in a file name) are escaped, so a name cannot
    /// forge another line.
    static func error(_ message: String) {
        let line = Formatting.printable(message.hasSuffix("\n") ? String(message.dropLast()) : message) + "\n"
        lock.withLock {
            clearLocked()
            write(.standardError, line)
        }
    }

    /// The warning for a recording cut short (analysed as far as its audio went), if it was.
    static func warnIfCutShort(_ data: RecordingData) {
        if let warning = CutShort.warning(data) { error("\(data.path): warning: \(warning)") }
    }

    /// A progress line that rewrites itself, shown only when stderr is a terminal.
    static func progress(_ message: String) {
        guard stderrIsTerminal else { return }
        lock.withLock {
            write(.standardError, "\r\u{1B}[2K\(Formatting.printable(message))")
            progressShown = true
        }
    }

    static func clearProgress() {
        lock.withLock { clearLocked() }
    }

    private static func clearLocked() {
        guard stderrIsTerminal, progressShown else { return }
        write(.standardError, "\r\u{1B}[2K")
        progressShown = false
    }
}
