import ArgumentParser
import Foundation
import SomniqFiles
import SomniqModel
import SomniqPipeline

@main
struct SomniqAnalyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "somniq-analyze",
        abstract: "Analyse overnight sleep recordings: what was heard, when, and how each sensitivity profile would have alerted.",
        discussion: """
            Start with 'somniq-analyze analyze NIGHT.wav', then 'somniq-analyze report last --output night.html'.

            Exit status: 0 all inputs analysed; 1 some inputs failed (each reported on stderr); \
            2 nothing could be done (model or database unusable); 64 usage error; 130 / 143 interrupted by SIGINT / \
            SIGTERM (rerun the same command to resume).
            """,
        version: toolVersion,
        // In the order a night is worked through, then a study's and the model's own commands.
        subcommands: [AnalyzeCommand.self, ReportCommand.self, CompareCommand.self, ExportCommand.self, ClipsCommand.self,
                      RecordingsCommand.self, RemoveCommand.self, TagCommand.self, TrendsCommand.self, FollowCommand.self],
        groupedSubcommands: [
            CommandGroup(name: "Cluster", subcommands: [MergeCommand.self]),
            CommandGroup(name: "Model", subcommands: [ClassesCommand.self, ProfilesCommand.self, ClassifyCommand.self, EvaluateCommand.self,
                                                      FitCommand.self, RegressCommand.self]),
        ])

    /// Runs the command as ArgumentParser would, then closes every database it opened: the last write is checkpointed
    /// into the database file and the -wal and -shm files go, so the .sqlite file alone holds everything.
    static let toolVersion = "0.1.0"

    /// `--version`: the tool's version and the default model's (what an analysis would be made with), found as `analyze`
    /// finds it.
    static func versionText() -> String {
        let model: String
        do {
            let location = try ModelBundle.defaultLocation()
            model = "default model \(try ModelBundle.load(path: location).versionTag) (\(location))"
        } catch {
            model = "no default model found (\(error))"
        }
        return "somniq-analyze \(toolVersion) (\(ProcessorSupport.buildDescription)); \(model)"
    }

    static func main() {
        // Before anything compiled for AVX2 runs (ProcessorSupport).
        if let problem = ProcessorSupport.problem() {
            FileHandle.standardError.write(Data("somniq-analyze: error: \(problem)\n".utf8))
            Foundation.exit(ExitStatus.nothingDone.rawValue)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.last == "--version", arguments.count == 1 || (arguments.count == 2 && !arguments[0].hasPrefix("-")) {
            print(versionText())
            Foundation.exit(0)
        }
        var failure: (any Error)?
        var running: String?
        do {
            var command = try parseAsRoot()
            running = type(of: command).configuration.commandName
            if running != FitCommand.configuration.commandName { MallocArenas.useOne() }
            try command.run()
        } catch {
            failure = error
        }
        StoreOpening.closeAll()
        guard let failure else { return }
        if running == nil, let hint = commandForgotten(arguments) {
            FileHandle.standardError.write(Data("Error: \(hint)\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        if let running, let mistake = failure as? ValidationError {
            // An argument found wrong while running (a recording or class the database does not hold): its message says
            // what to do, and the usage line ArgumentParser would add is the root's, not the command's.
            FileHandle.standardError.write(Data("Error: \(mistake.message)\nSee 'somniq-analyze \(running) --help'.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        exit(withError: failure)
    }

    /// Where the arguments begin with a recording or folder rather than a command (`somniq-analyze night.wav`, a new
    /// user's first try), the command that analyses them; ArgumentParser alone says "Unexpected argument".
    static func commandForgotten(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help",
              !configuration.subcommands.contains(where: { $0.configuration.commandName == first }),
              FileManager.default.fileExists(atPath: first) else { return nil }
        let command = (["somniq-analyze", "analyze"] + arguments.map(Formatting.shellQuoted)).joined(separator: " ")
        return "'\(Formatting.printable(first))' is a file or folder, not a command; to analyse it: \(command)\n"
            + "See 'somniq-analyze --help' for every command."
    }
}
