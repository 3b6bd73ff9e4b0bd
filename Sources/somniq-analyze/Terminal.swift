import Foundation

/// stdout carries data; stderr carries progress, warnings and errors.
enum Terminal {
    static let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    }

    /// A progress line that rewrites itself, shown only when stderr is a terminal.
    static func progress(_ message: String) {
        guard stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(message)".utf8))
    }

    static func clearProgress() {
        guard stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
