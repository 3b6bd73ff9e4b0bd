import Foundation
import Testing

/// What a new user tripped over (#46), each through the executable.
@Suite struct FirstReadTests {
    @Test func versionNamesTheDefaultModel() throws {
        let model = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/models/default/model.json")))
            as! [String: Any]
        let version = try #require(model["version"] as? String)
        for arguments in [["--version"], ["analyze", "--version"]] {
            let running = try CommandRunner.start(arguments, environment: ["SOMNIQ_MODEL": CommandRunner.root + "/models/default"])
            running.waitUntilExit()
            let run = (status: running.terminationStatus, stdout: running.stdout)
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("somniq-analyze 0.1.0 (built for "), "\(run.stdout)")
            #expect(run.stdout.contains("); default model default@\(version)+profiles@"), "\(run.stdout)")
        }
    }

    @Test func aRecordingWhoseAnalysisFailedIsSaidSoByCompareReportExportAndClips() throws {
        let scratch = Scratch()
        let bad = scratch.file("notes.wav")
        try "not audio".write(toFile: bad, atomically: true, encoding: .utf8)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", bad, "--db", db]).status == 1)
        let compared = try CommandRunner.run(["compare", "1", "--db", db])
        #expect(compared.status == 2)
        #expect(compared.stderr.contains("recording 1 (notes.wav): error: its analysis failed ("), "\(compared.stderr)")
        #expect(!compared.stderr.contains("no recording 1"))
        let reported = try CommandRunner.run(["report", "1", "--db", db, "--output", scratch.file("night.html")])
        #expect(reported.status == 2, "nothing written")
        #expect(reported.stderr.contains("recording 1: error: notes.wav: its analysis failed ("), "the id once, the reason said: \(reported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("night.html")))
        // A database of failed files alone knows no profile: said as no night, not as an unknown profile among none.
        for command in [["export", "--format", "csv", "--what", "episodes", "--profile", "balanced"], ["clips", "--output", scratch.file("clips")]] {
            let run = try CommandRunner.run(command + ["--db", db])
            #expect(run.status == 2, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("error: no analysed night (1 recording whose analysis failed;"), "\(command[0]): \(run.stderr)")
            #expect(!run.stderr.contains("unknown profile"), "\(run.stderr)")
        }
    }

    /// A manifest's `start` column is honoured per row (an empty cell leaves the file's own start), and a start that is
    /// no date is a usage error naming its line, not dropped.
    @Test func aManifestsStartColumnGivesEachRecordingItsStart() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("in"), withIntermediateDirectories: true)
        let night = "/fixtures/nights/apnea-night_8k.caf", other = "/fixtures/nights/rainy-night_16k.flac"
        try FileManager.default.copyItem(atPath: CommandRunner.root + night, toPath: scratch.file("in/a.caf"))
        try FileManager.default.copyItem(atPath: CommandRunner.root + other, toPath: scratch.file("in/b.flac"))
        let manifest = scratch.file("in/study.tsv")
        try "path\tstart\na.caf\t2026-03-04T22:15:00+01:00\nb.flac\t\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let db = scratch.file("db.sqlite")
        let run = try CommandRunner.run(["analyze", "--manifest", manifest, "--db", db, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"])
        let rows = listed.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let a = try #require(rows.first { $0.count > 2 && $0[1].hasSuffix("a.caf") })
        let b = try #require(rows.first { $0.count > 2 && $0[1].hasSuffix("b.flac") })
        #expect(a[2] == "2026-03-04T21:15:00.000Z", "the manifest's start, in UTC: \(a)")
        #expect(b[2] != "2026-03-04T21:15:00.000Z", "an empty cell leaves the file's own start: \(b)")
        // The night it belongs to, dated in local time as the report dates nights: 21:15 UTC is 11:15 in Honolulu, a
        // start before noon, so the night of the 3rd there.
        for (zone, night) in [("UTC", "2026-03-04"), ("Pacific/Honolulu", "2026-03-03")] {
            let zoned = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"], environment: ["TZ": zone])
            let row = zoned.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .first { $0.count > 3 && $0[1].hasSuffix("a.caf") }
            #expect(row.map { String($0[3]) } == night, "\(zone): \(zoned.stdout)")
        }

        try "path\tstart\na.caf\t2026-02-30T22:00:00Z\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let bad = try CommandRunner.run(["analyze", "--manifest", manifest, "--db", scratch.file("other.sqlite")])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("study.tsv:2: error: start 2026-02-30T22:00:00Z:"), "\(bad.stderr)")
        let both = try CommandRunner.run(["analyze", "--manifest", manifest, "--start", "2026-03-04T22:00:00Z", "--db", scratch.file("o.sqlite")])
        #expect(both.status == 64)
    }

    /// evaluate's class average says which classes each of its columns covers, where they differ (an F1 of 0.99 beside
    /// a recall of 0.62 read as a contradiction), in the table and the JSON.
    @Test func theClassAverageSaysWhichClassesItCovers() throws {
        let night = CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000"
        // The night's labels and a siren nothing hears (no sound plays then): a class with a reference and no detection.
        let scratch = Scratch()
        let labels = scratch.file("labels.tsv")
        try (try String(contentsOfFile: night + ".tsv", encoding: .utf8) + "sleep_recording_1795302000.caf\t2.000\t4.000\tsiren\n")
            .write(toFile: labels, atomically: true, encoding: .utf8)
        let table = try CommandRunner.run(["evaluate", night + ".caf", "--labels", labels, "--profile", "balanced",
                                           "--model", CommandRunner.root + "/models/rules"])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(whereSeparator: \.isNewline).filter { $0.contains("class average:") }
        #expect(!lines.isEmpty, "\(table.stdout)")
        for line in lines {
            #expect(line.contains("R, ER over") && line.contains("F1, P over"), "\(line)")
        }
        let json = try CommandRunner.run(["evaluate", night + ".caf", "--labels", labels, "--profile", "balanced",
                                          "--model", CommandRunner.root + "/models/rules", "--format", "json"])
        #expect(json.stdout.contains("\"f1Classes\"") && json.stdout.contains("\"recallClasses\""))
    }

    /// A field recorder's WAV that names its start only in its iXML (after the audio) is stored with that start.
    @Test func aRecordersIXMLStartIsTheRecordingsStart() throws {
        let scratch = Scratch()
        let path = scratch.file("ZOOM0001.WAV")
        #expect(try CommandRunner.run(["signal", "sine", "--seconds", "20", "--output", path], product: "somniq-synth").status == 0)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let xml = Array("<BWFXML><BEXT><BWF_ORIGINATION_DATE>2026-03-04</BWF_ORIGINATION_DATE><BWF_ORIGINATION_TIME>22:15:07</BWF_ORIGINATION_TIME></BEXT></BWFXML>".utf8)
        bytes += Array("iXML".utf8) + withUnsafeBytes(of: UInt32(xml.count).littleEndian) { Array($0) } + xml + (xml.count % 2 == 1 ? [0] : [])
        bytes.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(bytes.count - 8).littleEndian) { Array($0) })
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", path, "--db", db, "--quiet"]).status == 0)
        let listed = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"])
        #expect(listed.stdout.contains(",2026-03-04T22:15:07.000Z,"), "\(listed.stdout)")
    }
}
