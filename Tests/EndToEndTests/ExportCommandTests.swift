import CSV
import Foundation
import GRDB
import SomniqEvaluation
import Testing

/// A database holding the sample night under every profile, made once for the export tests.
enum AnalysedNight {
    static let database: String = {
        let path = ProcessFixtures.removedAtExit(NSTemporaryDirectory() + "somniq-export-\(ProcessInfo.processInfo.processIdentifier).sqlite")
        if !FileManager.default.fileExists(atPath: path) {
            _ = try? CommandRunner.run(["analyze", sampleNight, "--db", path, "--profile", "all", "--quiet"])
        }
        return path
    }()
}

@Suite struct ExportCommandTests {
    let db = AnalysedNight.database

    func export(_ arguments: [String]) throws -> CommandResult {
        let result = try CommandRunner.run(["export", "--db", db] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    @Test(arguments: ["episodes", "alerts", "detections", "windows", "nights"])
    func jsonFollowsItsSchema(what: String) throws {
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/fixtures/schema/export-v1.schema.json")))
        let output = try export(["--what", what, "--format", "json"])
        let value = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
        let errors = JSONSchemaValidator(root: schema as! [String: Any]).validate(value)
        #expect(errors.isEmpty, "\(errors.prefix(5))")
        let recordings = (value as! [String: Any])["recordings"] as! [[String: Any]]
        #expect(recordings.count == 1)
        #expect((recordings[0][what] as! [Any]).isEmpty == false)
        // The validator itself rejects what the schema forbids.
        var broken = value as! [String: Any]
        broken["schemaVersion"] = 2
        #expect(!JSONSchemaValidator(root: schema as! [String: Any]).validate(broken).isEmpty)
    }

    /// A recording's identity is exported as `contentHash` (XXH3-128, 32 hex digits); one stored with SHA-256 before
    /// gives it under `contentSha256` too, as schema 1 always named it. Both follow the schema.
    @Test func theIdentityIsExportedUnderItsNamesForEitherKind() throws {
        let scratch = Scratch()
        let copy = scratch.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/fixtures/schema/export-v1.schema.json")))
        func exported() throws -> [String: Any] {
            let output = try CommandRunner.run(["export", "--db", copy, "--what", "episodes", "--format", "json"])
            #expect(output.status == 0, "\(output.stderr)")
            let value = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
            let errors = JSONSchemaValidator(root: schema as! [String: Any]).validate(value)
            #expect(errors.isEmpty, "\(errors.prefix(5))")
            return ((value as! [String: Any])["recordings"] as! [[String: Any]])[0]
        }
        let fresh = try exported()
        #expect((fresh["contentHash"] as? String)?.count == 32 && fresh["contentSha256"] == nil, "\(fresh.keys.sorted())")
        let older = String(repeating: "0123456789abcdef", count: 4)
        let queue = try DatabaseQueue(path: copy)
        try queue.write { try $0.execute(sql: "UPDATE recordings SET content_hash = ?", arguments: [older]) }
        try queue.close()
        let stored = try exported()
        #expect(stored["contentHash"] as? String == older && stored["contentSha256"] as? String == older)
    }

    @Test func dcaseScoresPerfectlyAgainstItself() throws {
        let scratch = Scratch()
        let table = scratch.file("balanced.tsv")
        _ = try export(["--what", "episodes", "--profile", "balanced", "--format", "dcase", "--output", table])
        let events = try DCASETable.parse(contentsOf: table)
        #expect(events.count == 8)
        let scored = try CommandRunner.run(["evaluate", sampleNight, "--labels", table, "--profile", "balanced", "--format", "json"])
        let json = try JSONSerialization.jsonObject(with: Data(scored.stdout.utf8)) as! [String: Any]
        let balanced = (json["profiles"] as! [[String: Any]])[0]
        for metric in ["eventBased", "segmentBased"] {
            let overall = (balanced[metric] as! [String: Any])["overall"] as! [String: Any]
            #expect(overall["f1"] as? Double == 1, "\(metric)")
        }
    }

    /// One row per night, in CSV and JSON alike: the stored night summary (rounded for reading), the episodes by tier
    /// under the profile asked for (balanced by default), the evening the night began in the zone asked for.
    @Test func nightsAreOneRowEachWithTheStoredFigures() throws {
        let stored = try DatabaseCheck(db).queue.read { db in  // with a busy timeout: other tests read this database at once
            try Row.fetchOne(db, sql: """
                SELECT s.snore_score, s.snores, s.snoring_minutes, s.loud_minutes + s.very_loud_minutes + s.light_minutes + s.quiet_minutes,
                       s.breaths_per_minute, r.start_utc,
                       (SELECT COUNT(*) FROM episodes e WHERE e.recording_id = r.id AND e.profile = 'balanced' AND e.tier = 'high'),
                       (SELECT COUNT(*) FROM episodes e WHERE e.recording_id = r.id AND e.profile = 'very-sensitive' AND e.tier = 'low')
                FROM night_summaries s JOIN recordings r ON r.id = s.recording_id
                """)!
        }
        let score: Double = stored[0], snores: Int = stored[1], minutes: Double = stored[2], banded: Double = stored[3]
        #expect(snores > 0 && score > 0 && abs(banded - minutes) < 1e-9, "the sample night has a snoring bout")
        let csv = try export(["--what", "nights", "--format", "csv", "--timezone", "Pacific/Kiritimati"]).stdout
        let reader = try CSVReader(string: csv, hasHeaderRow: true)
        var rows: [[String: String]] = []
        while reader.next() != nil { rows.append(Dictionary(uniqueKeysWithValues: zip(reader.headerRow!, reader.currentRow!))) }
        try #require(rows.count == 1)
        let row = rows[0]
        #expect(abs(Double(row["snore_score"]!)! - score) <= 0.05)
        #expect(Int(row["snores"]!) == snores)
        #expect(abs(Double(row["snoring_minutes"]!)! - minutes) <= 0.005)
        #expect(abs(Double(row["breaths_per_minute"]!)! - (stored[4] as Double)) <= 0.05)
        #expect(row["profile"] == "balanced" && Int(row["high_episodes"]!) == stored[6] as Int)
        // The sample night starts at 23:00 UTC (the file name): 13:00 the next day at UTC+14, so its evening is that day.
        let start: String = stored[5]
        #expect(start.hasPrefix("2026-11-21T23:00"), "\(start)")
        #expect(row["night_of"] == "2026-11-22")
        #expect(try export(["--what", "nights", "--format", "csv", "--timezone", "UTC"]).stdout.contains(",2026-11-21,"))

        let json = try JSONSerialization.jsonObject(with: Data(try export([
            "--what", "nights", "--format", "json", "--profile", "very-sensitive", "--timezone", "UTC",
        ]).stdout.utf8)) as! [String: Any]
        let night = ((json["recordings"] as! [[String: Any]])[0]["nights"] as! [[String: Any]])[0]
        #expect(night["profile"] as? String == "very-sensitive")
        #expect((night["episodesByTier"] as! [String: Int])["low"] == stored[7] as Int)
        #expect(night["snores"] as? Int == snores && night["nightOf"] as? String == "2026-11-21")
        #expect(abs((night["snoringMinutes"] as! Double) - minutes) <= 0.005)

        let raven = try CommandRunner.run(["export", "--db", db, "--what", "nights", "--format", "raven"])
        #expect(raven.status != 0 && raven.stderr.contains("raven cannot hold nights"), "\(raven.stderr)")
    }

    @Test func csvParsesBackToTheSameRows() throws {
        let csv = try export(["--what", "episodes", "--format", "csv"]).stdout
        #expect(csv.contains("\r\n"), "RFC 4180 line ends")
        let reader = try CSVReader(string: csv, hasHeaderRow: true)
        #expect(reader.headerRow?.first == "recording_id")
        var rows: [[String: String]] = []
        while reader.next() != nil {
            rows.append(Dictionary(uniqueKeysWithValues: zip(reader.headerRow!, reader.currentRow!)))
        }
        let json = try JSONSerialization.jsonObject(with: Data(try export(["--what", "episodes", "--format", "json"]).stdout.utf8)) as! [String: Any]
        let episodes = ((json["recordings"] as! [[String: Any]])[0]["episodes"] as! [[String: Any]])
        #expect(rows.count == episodes.count)
        for (row, episode) in zip(rows, episodes) {
            #expect(row["class"] == episode["class"] as? String)
            #expect(row["start_utc"] == episode["startUtc"] as? String)
            // JSONSerialization on Linux may round the last digit of a parsed double; CSV keeps the shortest exact form.
            #expect(abs(Double(row["start_offset_s"]!)! - (episode["startOffsetSeconds"] as! Double)) < 1e-12)
            #expect(abs(Double(row["peak_confidence"]!)! - (episode["peakConfidence"] as! Double)) < 1e-12)
            #expect(Int(row["alert_count"]!) == episode["alertCount"] as? Int)
        }
    }

    /// Times are written to the millisecond and confidences and levels with the digits their float holds: not
    /// `57.861000000000004` and `0.9434031248092651`.
    @Test(arguments: ["episodes", "alerts", "events", "windows"])
    func numbersCarryTheDigitsTheyHave(what: String) throws {
        let csv = try CommandRunner.run(["export", "--db", AnalysedNight.database, "--what", what, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let reader = try CSVReader(string: csv.stdout, hasHeaderRow: true)
        let header = try #require(reader.headerRow)
        var checked = 0
        while let row = reader.next() {
            for (name, cell) in zip(header, row) where !cell.isEmpty {
                if name.hasSuffix("_s") {
                    let decimals = cell.split(separator: ".").dropFirst().first?.count ?? 0
                    #expect(decimals <= 3 && Double(cell) != nil, "\(name) = \(cell)")
                    checked += 1
                } else if cell.contains("."), Double(cell) != nil {
                    // Confidences, levels: a float's shortest form has at most 9 significant digits.
                    let mantissa = cell.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber).drop { $0 == "0" }
                    #expect(mantissa.count <= 9 && Float(cell) != nil, "\(name) = \(cell)")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
        let json = try CommandRunner.run(["export", "--db", AnalysedNight.database, "--what", what, "--format", "json"])
        // More than 9 significant digits: 57.861000000000004, 0.9434031248092651.
        let noise = json.stdout.range(of: #"0\.0*[1-9][0-9]{9,}|[1-9][0-9]*\.[0-9]{9,}"#, options: .regularExpression)
        #expect(noise == nil, "float noise in the JSON: \(noise.map { String(json.stdout[$0]) } ?? "")")
    }

    @Test func audacityLabelsLoadBackToTheMillisecond() throws {
        let labels = try export(["--what", "episodes", "--profile", "balanced", "--format", "audacity"]).stdout
        let events = try AudacityLabels.parse(labels, file: "night")
        let csv = try export(["--what", "episodes", "--profile", "balanced", "--format", "csv"]).stdout
        let reader = try CSVReader(string: csv, hasHeaderRow: true)
        var index = 0
        while let row = reader.next() {
            let start = Double(row[6])!, end = Double(row[7])!
            #expect(abs(events[index].onset - start) < 0.0005)
            #expect(abs(events[index].offset - end) < 0.0005)
            #expect(events[index].label == row[3])
            index += 1
        }
        #expect(index == events.count)
    }

    @Test func ravenHasItsColumns() throws {
        let raven = try export(["--what", "alerts", "--profile", "balanced", "--format", "raven"]).stdout
        let lines = raven.split(separator: "\n")
        #expect(lines[0].hasPrefix("Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)"))
        #expect(lines.count == 12, "a header and the 11 balanced alerts")
        #expect(lines[1].hasPrefix("1\tSpectrogram 1\t1\t"))
    }

    /// Each Raven selection carries the band its sound occupies, measured from its windows: the sample night's smoke
    /// alarm (a 3,150 Hz tone) in the octave holding its tone, its snoring and speech below 2 kHz, every band within
    /// 0 Hz to the recording's Nyquist frequency (8 kHz).
    @Test func ravenSelectionsCarryTheirSoundsBand() throws {
        let raven = try export(["--what", "episodes", "--profile", "balanced", "--format", "raven"]).stdout
        let rows = raven.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        try #require(!rows.isEmpty)
        var bands: [String: (Double, Double)] = [:]
        for row in rows {
            let low = try #require(Double(row[5])), high = try #require(Double(row[6]))
            #expect(low >= 0 && low < high && high <= 8000, "\(row)")
            bands[row[7]] = (low, high)
        }
        let alarm = try #require(bands["smoke_detector"]), snoring = try #require(bands["snoring"])
        #expect(alarm.0 <= 3150 && alarm.1 >= 3150 && alarm.0 >= 2000, "smoke alarm \(alarm)")
        #expect(snoring.1 <= 2000 && snoring.0 <= 250, "snoring \(snoring)")
        #expect(bands.values.contains { $0 != (0, 8000) } && Set(bands.values.map { "\($0)" }).count > 1, "not one band for all")
    }

    /// Several recordings in one export: every window of each, in order, as CSV and JSON; the same bytes to stdout and
    /// to a file; a file that cannot be written is an error that leaves nothing behind.
    @Test func exportsStreamEveryWindowOfEveryRecording() throws {
        let scratch = Scratch()
        let nights = try Nights.copies(into: scratch.file("in"), count: 3)
        let db = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["analyze"] + nights + ["--db", db, "--quiet"]).status == 0)
        let counts = try DatabaseQueue(path: db).read { db in
            try Row.fetchAll(db, sql: "SELECT id, window_count FROM recordings ORDER BY id").map { ($0[0] as Int64, $0[1] as Int) }
        }
        #expect(counts.count == 3)

        let csv = try CommandRunner.run(["export", "--db", db, "--what", "windows", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let reader = try CSVReader(string: csv.stdout, hasHeaderRow: true)
        let header = try #require(reader.headerRow)
        #expect(header.contains("snoring") && header.contains("silence"), "a column per class")
        var rows: [(Int64, Int)] = []
        while let row = reader.next() {
            #expect(row.count == header.count)
            rows.append((Int64(row[0])!, Int(row[2])!))
        }
        #expect(rows.count == counts.reduce(0) { $0 + $1.1 })
        for (id, windows) in counts {
            #expect(rows.filter { $0.0 == id }.map(\.1) == Array(0..<windows), "recording \(id): every window, in order")
        }

        let json = try CommandRunner.run(["export", "--db", db, "--what", "windows", "--format", "json"])
        let value = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let recordings = value["recordings"] as! [[String: Any]]
        #expect(recordings.map { ($0["windows"] as! [Any]).count } == counts.map(\.1))
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/fixtures/schema/export-v1.schema.json")))
        #expect(JSONSchemaValidator(root: schema as! [String: Any]).validate(value).isEmpty)

        let file = scratch.file("windows.json")
        #expect(try CommandRunner.run(["export", "--db", db, "--what", "windows", "--format", "json", "--output", file]).status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == json.stdout, "the same bytes to a file as to stdout")

        let nowhere = try CommandRunner.run(["export", "--db", db, "--what", "windows", "--format", "csv", "--output",
                                             scratch.file("missing/windows.csv")])
        #expect(nowhere.status == 2 && nowhere.stderr.contains("missing/windows.csv: error: cannot write"), "\(nowhere.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("missing")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains("partial") }.isEmpty)
    }

    /// A typo in a profile or class is a usage error naming the choices (it used to print an empty table and exit 0).
    @Test func typosAreUsageErrorsNamingTheChoices() throws {
        let scratch = Scratch()
        let typo = try CommandRunner.run(["export", "--db", db, "--profile", "mediums", "--format", "csv"])
        #expect(typo.status == 64 && typo.stdout.isEmpty, "\(typo.stderr)")
        #expect(typo.stderr.contains("unknown profile 'mediums'") && typo.stderr.contains("balanced, conservative, sensitive"),
                "\(typo.stderr)")
        let clips = try CommandRunner.run(["clips", "--db", db, "--class", "snorring", "--output", scratch.file("clips")])
        #expect(clips.status == 64, "\(clips.stderr)")
        #expect(clips.stderr.contains("unknown class 'snorring'") && clips.stderr.contains("snoring"), "\(clips.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("clips")), "nothing created")
        let profile = try CommandRunner.run(["clips", "--db", db, "--profile", "Balanced", "--output", scratch.file("clips")])
        #expect(profile.status == 64 && profile.stderr.contains("unknown profile 'Balanced'"), "\(profile.stderr)")
    }

    /// `compare ID` reads ./somniq.sqlite when no --db is given, as export and clips do.
    @Test func compareFindsTheDefaultDatabase() throws {
        let scratch = Scratch()
        #expect(try CommandRunner.run(["analyze", sampleNight, "--quiet"], directory: scratch.path).status == 0)
        let compared = try CommandRunner.run(["compare", "1", "--format", "json"], directory: scratch.path)
        #expect(compared.status == 0, "\(compared.stderr)")
        #expect(compared.stdout.contains("sleep_recording_1795302000.caf"))
        let missing = try CommandRunner.run(["compare", "7"], directory: scratch.path)
        #expect(missing.status == 64 && missing.stderr.contains("no recording 7 in somniq.sqlite"), "\(missing.stderr)")
    }

    /// Found as a new user would: `export --output episodes.csv` was "Missing expected argument '--format'". A name
    /// ending in .csv or .json now says the format; one that does not (a .txt is Audacity's or Raven's) still needs it.
    @Test func theOutputsNameSaysTheFormatWhereItCan() throws {
        let scratch = Scratch()
        for format in ["csv", "json"] {
            let named = scratch.file("episodes.\(format.uppercased())")
            _ = try export(["--what", "episodes", "--output", named])
            let given = try export(["--what", "episodes", "--format", format])
            #expect(try String(contentsOfFile: named, encoding: .utf8) == given.stdout, "\(format)")
            #expect(given.stdout.count > 100, "episodes were exported")
        }
        let labels = scratch.file("labels.txt")
        let unsaid = try CommandRunner.run(["export", "--db", db, "--output", labels])
        #expect(unsaid.status == 64 && unsaid.stderr.contains("give --format (json, csv, audacity, raven, dcase): the name '\(labels)' "
                                                              + "does not say which"), "\(unsaid.stderr)")
        #expect(!FileManager.default.fileExists(atPath: labels))
        let toStdout = try CommandRunner.run(["export", "--db", db])
        #expect(toStdout.status == 64 && toStdout.stdout.isEmpty && toStdout.stderr.contains("give --format: json, csv, audacity"),
                "\(toStdout.stderr)")
        // Given, --format wins over the name.
        let csvNamedJSON = scratch.file("episodes.json")
        _ = try export(["--what", "episodes", "--format", "csv", "--output", csvNamedJSON])
        #expect(try String(contentsOfFile: csvNamedJSON, encoding: .utf8) == (try export(["--what", "episodes", "--format", "csv"])).stdout)
    }

    @Test func badRequestsAreUsageErrors() throws {
        #expect(try CommandRunner.run(["export", "--db", db, "--what", "windows", "--format", "dcase"]).status == 64)
        #expect(try CommandRunner.run(["export", "--db", db, "--recording", "999", "--format", "csv"]).status == 64)
        #expect(try CommandRunner.run(["export", "--db", "/nonexistent/x.sqlite", "--format", "csv"]).status == 2)
        let zone = try CommandRunner.run(["export", "--db", db, "--what", "nights", "--format", "csv", "--timezone", "Mars/Olympus"])
        #expect(zone.status == 64 && zone.stderr.contains("unknown time zone 'Mars/Olympus'"), "\(zone.stderr)")
        #expect(try CommandRunner.run(["export", "--db", db, "--what", "nights", "--format", "dcase"]).status == 64)
    }

    /// Found as a new user would: `report last` and `tag 1` take their recordings as arguments, but `export last`
    /// and `export episodes` were both "Unexpected argument". Export (and clips) now take recordings as arguments too,
    /// the same as `--recording`, and a word that names what to export is pointed to `--what`.
    @Test func recordingsAreArgumentsAsReportTakesThem() throws {
        let named = try export(["last", "--format", "csv"])
        #expect(named.stdout == (try export(["--recording", "last", "--format", "csv"])).stdout)
        #expect(named.stdout == (try export(["1", "--format", "csv"])).stdout)
        #expect(named.stdout.split(whereSeparator: \.isNewline).count > 2, "a header and rows (RFC 4180: CRLF): \(named.stdout)")
        let what = try CommandRunner.run(["export", "--db", db, "episodes", "--format", "csv"])
        #expect(what.status == 64 && what.stderr.contains("'episodes' is what to export, not a recording: --what episodes"),
                "\(what.stderr)")
        let unknown = try CommandRunner.run(["export", "--db", db, "nosuch", "--format", "csv"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no analysed recording 'nosuch'") && unknown.stderr.contains("recordings --db"),
                "\(unknown.stderr)")
        // Clips: the same, and a misnamed recording leaves no empty folder behind.
        let folder = NSTemporaryDirectory() + "somniq-clips-args-\(ProcessInfo.processInfo.processIdentifier)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let alerts = try CommandRunner.run(["clips", "--db", db, "alerts", "--output", folder])
        #expect(alerts.status == 64 && alerts.stderr.contains("'alerts' is what to cut, not a recording: --what alerts"), "\(alerts.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder))
        let cut = try CommandRunner.run(["clips", "--db", db, "last", "--class", "gasp", "--output", folder])
        #expect(cut.status == 0 && cut.stderr.contains("wrote "), "\(cut.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/index.csv"))
    }

    /// Found as a new user would: `--timezone utc` and `europe/berlin` were refused (tz names are case-sensitive, and
    /// the message itself suggested "UTC"), and a city alone was told only to use a tz database name.
    @Test func aTimeZoneIsReadWhateverItsCaseAndACityIsPointedToItsName() throws {
        func nights(_ zone: String) throws -> CommandResult {
            try CommandRunner.run(["export", "--db", db, "--what", "nights", "--format", "csv", "--timezone", zone])
        }
        let berlin = try nights("Europe/Berlin"), utc = try nights("UTC")
        #expect(berlin.status == 0 && utc.status == 0, "\(berlin.stderr) \(utc.stderr)")
        #expect(try nights("europe/berlin").stdout == berlin.stdout)
        #expect(try nights("utc").stdout == utc.stdout)
        let city = try nights("Berlin")
        #expect(city.status == 64 && city.stderr.contains("unknown time zone 'Berlin'; did you mean Europe/Berlin?"),
                "\(city.stderr)")
        let spaced = try nights("new york")
        #expect(spaced.status == 64 && spaced.stderr.contains("did you mean America/New_York?"), "\(spaced.stderr)")
    }
}
