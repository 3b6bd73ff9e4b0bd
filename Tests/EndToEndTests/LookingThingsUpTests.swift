import CSV
import Foundation
import GRDB
import Testing

/// What a new user reaches for: the list of stored recordings, per-episode levels and minutes per class in SQL, and
/// tables that cannot say which profile a row belongs to.
@Suite struct LookingThingsUpTests {
    let db = AnalysedNight.database

    @Test func recordingsListsWhatTheDatabaseHolds() throws {
        let scratch = Scratch()
        let study = scratch.file("study.sqlite")
        let night = try Nights.copies(into: scratch.file("in"), count: 1)[0]
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: scratch.file("in/notes.wav")))
        #expect(try CommandRunner.run(["analyze", scratch.file("in"), "--db", study, "--jobs", "1", "--quiet"]).status == 1)
        #expect(try CommandRunner.run(["analyze", night, "--db", study, "--profile", "sensitive", "--quiet"]).status == 0)

        let table = try CommandRunner.run(["recordings", "--db", study])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.hasPrefix("1 ") && $0.contains("4:00.0") && $0.contains("complete") && $0.contains("rules@")
            && $0.contains("balanced ") && $0.contains("sensitive ") && $0.hasSuffix(night) }, "\(table.stdout)")
        #expect(lines.contains { $0.hasPrefix("2 ") && $0.contains("failed: not-audio") && $0.hasSuffix("notes.wav") }, "\(table.stdout)")
        #expect(lines.contains { $0.hasPrefix("2: ") && $0.contains("not a readable audio file") }, "\(table.stdout)")
        #expect(lines.last == "2 recordings: 1 complete, 1 failed")
        #expect(lines.dropLast().last?.contains("'somniq-analyze remove --failed' removes them all") == true, "\(table.stdout)")

        let json = try CommandRunner.run(["recordings", "--db", study, "--format", "json"])
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        let profiles = (entries.first?["profiles"] as? [[String: Any]])?.compactMap { $0["profile"] as? String }
        #expect(profiles == ["balanced", "sensitive"])
        let episodes = try DatabaseCheck(study).count("SELECT episode_count FROM profile_runs WHERE recording_id = 1 AND profile = 'sensitive'")
        #expect((entries.first?["profiles"] as? [[String: Any]])?.last?["episodes"] as? Int == episodes)

        let csv = try CommandRunner.run(["recordings", "--db", study, "--format", "csv"])
        let reader = try CSVReader(string: csv.stdout, hasHeaderRow: true)
        var rows: [[String: String]] = []
        while reader.next() != nil {
            var row: [String: String] = [:]
            for name in reader.headerRow ?? [] { row[name] = reader[name] }
            rows.append(row)
        }
        #expect(rows.map { $0["status"] } == ["complete", "failed"])
        #expect(rows.first?["episodes"] == "balanced=\(try DatabaseCheck(study).count("SELECT episode_count FROM profile_runs WHERE recording_id = 1 AND profile = 'balanced'")) sensitive=\(episodes)")
        #expect(rows.last?["error_code"] == "not-audio")

        // An id that is not there points at this list.
        let missing = try CommandRunner.run(["export", "--db", study, "--recording", "9", "--format", "csv"])
        #expect(missing.status == 64 && missing.stderr.contains("somniq-analyze recordings --db \(study)"), "\(missing.stderr)")
    }

    /// Every episode knows its peak and mean level and how far it stood over the room, and minutes per class are a view:
    /// the ready queries of docs/database.md work as written.
    @Test func levelsAndMinutesAreOneQueryAway() throws {
        let check = try DatabaseCheck(db)
        #expect(try check.count("SELECT COUNT(*) FROM episodes WHERE mean_dbfs IS NULL OR peak_over_background_db IS NULL") == 0)
        #expect(try check.count("SELECT COUNT(*) FROM episodes WHERE mean_dbfs > peak_dbfs + 0.001") == 0, "a mean never exceeds the peak")
        #expect(try check.count("SELECT COUNT(*) FROM episodes WHERE peak_over_background_db < 0") == 0)
        // The smoke alarm of the sample night (150-164.5 s) stands far over the room.
        #expect(try check.count("SELECT COUNT(*) FROM episodes WHERE class_id = 'smoke_detector' AND profile = 'balanced' AND peak_over_background_db > 20") == 1)
        let minutes = try check.queue.read { try Double.fetchOne($0, sql: "SELECT SUM(minutes) FROM class_minutes WHERE recording_id = 1") ?? 0 }
        let windows = try check.count("SELECT window_count FROM recordings WHERE id = 1")
        #expect(abs(minutes - Double(windows) * 0.5 / 60) < 1e-9)
        // Each ready query of docs/database.md runs.
        let readme = try String(contentsOfFile: CommandRunner.root + "/docs/database.md", encoding: .utf8)
        let queries = readme.components(separatedBy: "```sql\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(queries.count >= 3)
        for query in queries {
            #expect(throws: Never.self) { try check.queue.read { _ = try Row.fetchAll($0, sql: query) } }
        }
    }

    /// A path that names nothing is a typo: a usage error naming it, before anything is analysed or stored.
    @Test func aPathThatNamesNothingIsAUsageError() throws {
        let scratch = Scratch()
        for command in [["analyze", "--db", scratch.file("db.sqlite")], ["classify"], ["evaluate", "--labels", CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000.tsv"]] {
            let result = try CommandRunner.run(command + [sampleNight, scratch.file("nigth.wav")])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("no such file or folder: \(scratch.file("nigth.wav")); check the path"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("db.sqlite")))
        // So is a profile that does not exist, naming the ones that do.
        let labels = CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000.tsv"
        for command in [["analyze", "--db", scratch.file("db.sqlite")], ["evaluate", "--labels", labels]] {
            let typo = try CommandRunner.run(command + [sampleNight, "--profile", "mediums"])
            #expect(typo.status == 64 && typo.stderr.contains("unknown profile 'mediums'")
                && typo.stderr.contains("very-conservative, conservative, balanced, sensitive, very-sensitive"), "\(command): \(typo.stderr)")
        }
    }

    /// DCASE tables and Audacity labels have no profile column: from a database of several profiles they need one.
    @Test(arguments: ["dcase", "audacity"])
    func tablesWithoutAProfileColumnNeedAProfile(format: String) throws {
        let refused = try CommandRunner.run(["export", "--db", db, "--format", format])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--format \(format) has no profile column") && refused.stderr.contains("pass --profile NAME")
            && refused.stderr.contains("balanced, conservative, sensitive, very-conservative, very-sensitive"), "\(refused.stderr)")
        let chosen = try CommandRunner.run(["export", "--db", db, "--format", format, "--profile", "balanced"])
        #expect(chosen.status == 0 && chosen.stdout.split(separator: "\n").count > 3)
        // Snores and coughs belong to no profile.
        #expect(try CommandRunner.run(["export", "--db", db, "--format", format, "--what", "events"]).status == 0)
    }
}
