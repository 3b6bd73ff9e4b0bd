import Foundation

/// The user's command, run once for each alert as it is raised (`follow --on-alert`): to sound a buzzer, send a
/// message, switch on a light. It is executed directly, never through a shell: the command line is the user's, split
/// into words here (quotes as a shell reads them), and the alert reaches it in its environment only (`SOMNIQ_CLASS`,
/// `SOMNIQ_TIER`, ...), so nothing heard can ever become part of a command.
///
/// Commands run one at a time, in the order of the alerts, on a thread of their own: a slow one delays the next
/// command, never the analysis. One that runs longer than `timeoutSeconds` is stopped (SIGTERM, then SIGKILL a second
/// later, with whatever it started); one that fails or is stopped is reported and the next alert's command runs as
/// usual. Its standard output goes to standard error (standard output carries the alerts), its standard input is empty.
public final class AlertCommand: @unchecked Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case empty
        case unbalancedQuote(String)
        case notFound(String)

        public var description: String {
            switch self {
            case .empty: "--on-alert: the command is empty; give a program and its arguments, e.g. --on-alert 'notify-send Alert'"
            case .unbalancedQuote(let command): "--on-alert: a quote in \"\(command)\" is not closed"
            case .notFound(let program): "--on-alert: no program \"\(program)\" (not a path to an executable, nor on PATH)"
            }
        }
    }

    public let arguments: [String]
    public let executable: String
    public let timeoutSeconds: Double
    private let report: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var pending: [[String: String]] = []
    private var running = false
    private var worker: Thread?

    /// `report` receives a line for each command that failed or was stopped.
    public init(command: String, timeoutSeconds: Double = 10, environment: [String: String] = ProcessInfo.processInfo.environment,
                report: @escaping @Sendable (String) -> Void) throws(Failure) {
        let words = try Self.words(command)
        guard let program = words.first else { throw .empty }
        guard let executable = Self.resolve(program, path: environment["PATH"] ?? "/usr/bin:/bin") else { throw .notFound(program) }
        arguments = Array(words.dropFirst())
        self.executable = executable
        self.timeoutSeconds = timeoutSeconds
        self.report = report
    }

    /// Queues the command for an alert described by `alert` (added to the environment it runs in).
    public func submit(_ alert: [String: String]) {
        condition.lock()
        pending.append(alert)
        if worker == nil {
            // The worker holds the runner until `finish` lets it go.
            let thread = Thread { self.work() }
            worker = thread
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Waits until every queued command has run (each at most `timeoutSeconds` and a second), and ends the worker.
    public func finish() {
        condition.lock()
        while !pending.isEmpty || running { condition.wait() }
        finishing = true
        condition.broadcast()
        while worker != nil { condition.wait() }
        finishing = false
        condition.unlock()
    }

    private var finishing = false

    private func work() {
        while true {
            condition.lock()
            while pending.isEmpty, !finishing { condition.wait() }
            if pending.isEmpty {
                worker = nil
                condition.broadcast()
                condition.unlock()
                return
            }
            let alert = pending.removeFirst()
            running = true
            condition.unlock()
            run(alert)
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private func run(_ alert: [String: String]) {
        let name = ([executable] + arguments).joined(separator: " ")
        let what = alert["SOMNIQ_CLASS"].map { " for the \($0) alert" } ?? ""
        let environment = ProcessInfo.processInfo.environment.merging(alert) { _, new in new }.map { "\($0.key)=\($0.value)" }
        guard let pid = Self.spawn(executable, arguments: [executable] + arguments, environment: environment) else {
            report("--on-alert: could not run \(name)\(what): \(String(cString: strerror(errno)))")
            return
        }
        // Polled, so that the command is stopped on time; it leads a process group of its own, so that stopping it
        // stops what it started too (a shell's `sleep`).
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var exited = false
        while !exited, Date() < deadline {
            exited = waitpid(pid, &status, WNOHANG) == pid
            if !exited { usleep(10_000) }
        }
        if !exited {
            kill(-pid, SIGTERM)
            let grace = Date().addingTimeInterval(1)
            while !exited, Date() < grace {
                exited = waitpid(pid, &status, WNOHANG) == pid
                if !exited { usleep(10_000) }
            }
            if !exited {
                kill(-pid, SIGKILL)
                waitpid(pid, &status, 0)
            }
            report("--on-alert: \(name)\(what) ran longer than \(Formatting.fixed(timeoutSeconds, 1)) s and was stopped")
            return
        }
        let signal = status & 0x7F, code = (status >> 8) & 0xFF
        if signal != 0 {
            report("--on-alert: \(name)\(what) was killed by signal \(signal)")
        } else if code != 0 {
            report("--on-alert: \(name)\(what) exited with status \(code)")
        }
    }

    /// Starts `path` with `arguments` (its own name first) and `environment`, in a process group of its own, its
    /// standard input empty and its standard output on standard error. The child's pid, or `nil` (errno says why).
    private static func spawn(_ path: String, arguments: [String], environment: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The signals `follow` ignores (SIGINT and SIGTERM, caught on a dispatch source; SIGPIPE) are the command's to
        // handle as any program does: an ignored signal stays ignored across exec, and a shell cannot even trap it.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
        let argv = cStrings(arguments), envp = cStrings(environment)
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        var result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        // A script just written may still be open for writing in a child another thread started meanwhile (it
        // inherited the descriptor until it runs its own program): executing it fails with ETXTBSY for that moment.
        var tries = 1
        while result == ETXTBSY, tries < 100 {
            usleep(10_000)
            result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            tries += 1
        }
        guard result == 0 else {
            errno = result
            return nil
        }
        return pid
    }

    /// The words of a command line as a POSIX shell splits them: blanks separate; single quotes keep everything
    /// literally; double quotes keep blanks, a backslash escaping `"`, `\`, `$` and a backquote; a backslash outside
    /// quotes keeps the next character. Nothing is expanded.
    static func words(_ command: String) throws(Failure) -> [String] {
        var words: [String] = [], word = "", inWord = false
        var characters = Array(command)[...]
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'":
                inWord = true
                guard let close = characters.firstIndex(of: "'") else { throw .unbalancedQuote(command) }
                word += String(characters[..<close])
                characters = characters[(close + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let next = characters.popFirst() {
                    if next == "\"" { closed = true; break }
                    if next == "\\", let escaped = characters.first, "\"\\$`".contains(escaped) {
                        word.append(escaped)
                        characters = characters.dropFirst()
                    } else {
                        word.append(next)
                    }
                }
                guard closed else { throw .unbalancedQuote(command) }
            case "\\":
                inWord = true
                if let next = characters.popFirst() { word.append(next) }
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// `program` as a path to an executable: itself when it names a path, else the first match on `path`.
    static func resolve(_ program: String, path: String) -> String? {
        let manager = FileManager.default
        if program.contains("/") { return manager.isExecutableFile(atPath: program) ? program : nil }
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = (String(directory) as NSString).appendingPathComponent(program)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               manager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
