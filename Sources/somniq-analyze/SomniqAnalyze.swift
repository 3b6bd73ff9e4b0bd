import ArgumentParser
import Foundation

@main
struct SomniqAnalyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "somniq-analyze",
        abstract: "Analyse overnight sleep recordings: what was heard, when, and how each sensitivity profile would have alerted.",
        discussion: """
            Exit status: 0 all inputs analysed; 1 some inputs failed (each reported on stderr); \
            2 nothing could be done (model or database unusable); 64 usage error.
            """,
        version: "0.1.0",
        subcommands: [AnalyzeCommand.self, ClassifyCommand.self, CompareCommand.self, EvaluateCommand.self, ExportCommand.self, FitCommand.self, RegressCommand.self,
                      ProfilesCommand.self, RecordingsCommand.self,
                      ClassesCommand.self, ClipsCommand.self, ReportCommand.self, MergeCommand.self])

    /// Runs the command as ArgumentParser would, then closes every database it opened: the last write is checkpointed
    /// into the database file and the -wal and -shm files go, so the .sqlite file alone holds everything.
    static func main() {
        var failure: (any Error)?
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            failure = error
        }
        StoreOpening.closeAll()
        if let failure { exit(withError: failure) }
    }
}
