import Foundation
@testable import SomniqPipeline
import Testing

/// `follow --on-alert` (#48): the user's command receives every alert once, in order, in its environment, and a
/// command that fails or hangs never stops the next.
@Suite struct AlertCommandTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    /// A script in a fresh folder that appends `$SOMNIQ_CLASS $SOMNIQ_TIER $1` to `log`, then behaves as `tail`.
    func script(_ folder: String, tail: String = "") throws -> String {
        let path = (folder as NSString).appendingPathComponent("on-alert.sh")
        try """
        #!/bin/sh
        echo "$SOMNIQ_CLASS $SOMNIQ_TIER $1" >> "\((folder as NSString).appendingPathComponent("log"))"
        \(tail)
        """.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "somniq-on-alert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func log(_ folder: String) -> [String] {
        ((try? String(contentsOfFile: (folder as NSString).appendingPathComponent("log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    @Test func everyAlertReachesTheCommandOnceInOrder() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = Lines()
        let command = try AlertCommand(command: "\(try script(folder)) 'first word'", report: reports.append)
        for (index, tier) in ["critical", "low", "medium"].enumerated() {
            command.submit(["SOMNIQ_CLASS": "class\(index)", "SOMNIQ_TIER": tier])
        }
        command.finish()
        #expect(log(folder) == ["class0 critical first word", "class1 low first word", "class2 medium first word"])
        #expect(reports.all.isEmpty)
    }

    @Test func aFailingOrHangingCommandIsReportedAndTheNextStillRuns() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = Lines()
        // The second alert's command hangs, the third's fails.
        let tail = """
        case "$SOMNIQ_CLASS" in hang) sleep 30 ;; fail) exit 3 ;; esac
        """
        let command = try AlertCommand(command: try script(folder, tail: tail), timeoutSeconds: 0.5, report: reports.append)
        let started = Date()
        for name in ["one", "hang", "fail", "four"] { command.submit(["SOMNIQ_CLASS": name, "SOMNIQ_TIER": "high"]) }
        command.finish()
        #expect(Date().timeIntervalSince(started) < 10, "the hanging command was stopped, not waited for")
        #expect(log(folder) == ["one high ", "hang high ", "fail high ", "four high "])
        #expect(reports.all.count == 2, "\(reports.all)")
        #expect(reports.all.first?.contains("for the hang alert ran longer than 0.5 s and was stopped") == true)
        #expect(reports.all.last?.contains("for the fail alert exited with status 3") == true)
    }

    @Test func whatWasHeardNeverBecomesPartOfACommand() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let command = try AlertCommand(command: try script(folder), report: { _ in })
        let planted = (folder as NSString).appendingPathComponent("planted")
        command.submit(["SOMNIQ_CLASS": "$(touch \(planted)); `touch \(planted)`", "SOMNIQ_TIER": "low"])
        command.finish()
        #expect(!FileManager.default.fileExists(atPath: planted))
        #expect(log(folder) == ["$(touch \(planted)); `touch \(planted)` low "])
    }

    @Test func theCommandLineIsSplitAsAShellWouldWithoutExpandingAnything() throws {
        #expect(try AlertCommand.words(#"notify-send  "Somniq: alert" 'it''s $HOME' a\ b "q\"x\\$y""#)
                == ["notify-send", "Somniq: alert", "its $HOME", "a b", #"q"x\$y"#])
        #expect(throws: AlertCommand.Failure.unbalancedQuote("say 'hi")) { try AlertCommand.words("say 'hi") }
        #expect(throws: AlertCommand.Failure.empty) { try AlertCommand(command: "   ", report: { _ in }) }
        #expect(throws: AlertCommand.Failure.notFound("no-such-program-here")) {
            try AlertCommand(command: "no-such-program-here --now", report: { _ in })
        }
        #expect(try AlertCommand(command: "sh -c true", report: { _ in }).executable.hasSuffix("/sh"))
    }
}
