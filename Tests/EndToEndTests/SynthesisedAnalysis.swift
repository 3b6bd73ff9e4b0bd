import GRDB
import Testing

extension CommandRunner {
    /// Writes `<name>.wav` in `scratch` with `somniq-synth` (`synthesis` are its subcommand and options, without
    /// `--output`), analyses it under every profile with the fitted default model into `<name>.sqlite`, expects both to
    /// succeed, and opens the database.
    static func synthesiseAndAnalyse(_ synthesis: [String], in scratch: Scratch, name: String) throws -> DatabaseQueue {
        let audio = scratch.file(name + ".wav"), database = scratch.file(name + ".sqlite")
        let made = try run(synthesis + ["--output", audio], product: "somniq-synth")
        #expect(made.status == 0, "\(made.stderr)")
        let running = try start(["analyze", audio, "--db", database, "--profile", "all", "--quiet"],
                                environment: ["SOMNIQ_MODEL": ""])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
        return try DatabaseQueue(path: database)
    }
}

extension DatabaseQueue {
    /// The alerts raised under `profiles`, counted per profile and class (columns profile, class_id, alerts): empty
    /// when there are none.
    func alerts(under profiles: [String]) throws -> [Row] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT profile, class_id, COUNT(*) AS alerts FROM alerts
                WHERE profile IN (\(profiles.map { _ in "?" }.joined(separator: ", "))) GROUP BY 1, 2
                """, arguments: StatementArguments(profiles))
        }
    }
}
