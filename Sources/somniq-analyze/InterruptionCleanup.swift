import Foundation
import SomniqFiles

/// For a command that writes files (export, report, clips): SIGINT or SIGTERM removes the partial files it is writing
/// (`PartialFiles`), says so, and exits 130 or 143, so an interruption leaves the earlier outputs as they were and nothing
/// half-written beside them.
final class InterruptionCleanup: Sendable {
    private let catcher: SignalCatcher

    init() {
        catcher = SignalCatcher(signals: [SIGINT, SIGTERM]) { number in
            PartialFiles.removeAllOfThisProcess()
            Terminal.clearProgress()
            Terminal.error("interrupted by \(number == SIGINT ? "SIGINT" : "SIGTERM"); the files being written were removed, "
                           + "earlier ones are as they were")
            exit(128 + number)
        }
    }

    func stop() { catcher.stop() }
}
