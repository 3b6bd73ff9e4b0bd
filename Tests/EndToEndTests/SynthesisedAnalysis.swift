import GRDB
import Testing

extension CommandRunner {
    /// Writes `audio` with `somniq-synth` (`synthesis` are its subcommand and options, without `--output`), analyses it
    /// under every profile with the fitted default model into `database`, expects both to succeed, and opens the
    /// database.
    static func synthesiseAndAnalyse(_ synthesis: [String], audio: String, database: String) throws -> DatabaseQueue {
        let made = try run(synthesis + ["--output", audio], product: "somniq-synth")
        #expect(made.status == 0, "\(made.stderr)")
        let running = try start(["analyze", audio, "--db", database, "--profile", "all", "--quiet"],
                                environment: ["SOMNIQ_MODEL": ""])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
        return try DatabaseQueue(path: database)
    }
}
