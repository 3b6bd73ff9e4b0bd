import ArgumentParser

/// The documented exit statuses (64, usage, is ArgumentParser's own for validation errors).
enum ExitStatus {
    static let someInputsFailed = ExitCode(1)
    static let nothingDone = ExitCode(2)
}
