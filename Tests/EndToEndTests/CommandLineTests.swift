import Foundation
import GRDB
import Testing

let sampleNight = CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000.caf"

@Suite struct AnalyzeCommandTests {
    let scratch = Scratch()

    @Test func analysesTheSampleNightIntoTheDatabase() throws {
        let db = scratch.file("night.sqlite")
        let result = try CommandRunner.run(["analyze", sampleNight, "--db", db, "--profile", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        for profile in ["very-conservative", "conservative", "balanced", "sensitive", "very-sensitive"] {
            #expect(result.stdout.contains("  \(profile): "), "summary names \(profile)")
        }
        #expect(result.stdout.contains("start 2026-11-21T23:00:00.000Z (from file-name)"))
        #expect(result.stderr.contains("1 analysed, 0 skipped (already done), 0 failed of 1 recording;"))

        let queue = try DatabaseQueue(path: db)
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings WHERE status = 'complete'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM windows") == 480)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT profile) FROM profile_runs") == 5)
            let classes = try String.fetchAll(db, sql: "SELECT DISTINCT class_id FROM episodes WHERE profile = 'balanced' ORDER BY 1")
            #expect(classes == ["breathing", "cough", "door_slam", "gasp", "rain", "smoke_detector", "snoring", "speech"])
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
        }
    }

    @Test func runningTwiceKeepsOneCopy() throws {
        let db = scratch.file("twice.sqlite")
        for _ in 0..<2 { #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0) }
        let queue = try DatabaseQueue(path: db)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM recordings") } == 1)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM windows") } == 480)
    }

    @Test func aBadFileIsReportedAndTheOthersAreAnalysed() throws {
        let bad = scratch.file("notes.wav")
        try "not audio".write(toFile: bad, atomically: true, encoding: .utf8)
        let db = scratch.file("mixed.sqlite")
        let result = try CommandRunner.run(["analyze", bad, sampleNight, "--db", db])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(bad): error: not a readable audio file"))
        #expect(result.stdout.contains("sleep_recording_1795302000.caf"))
        let queue = try DatabaseQueue(path: db)
        let statuses = try queue.read { try String.fetchAll($0, sql: "SELECT status || ':' || file_name FROM recordings ORDER BY file_name") }
        #expect(statuses == ["failed:notes.wav", "complete:sleep_recording_1795302000.caf"])
    }

    @Test func exitStatusesMeanSomething() throws {
        let unknownProfile = try CommandRunner.run(["analyze", sampleNight, "--db", scratch.file("a.sqlite"), "--profile", "paranoid"])
        #expect(unknownProfile.status == 64)
        #expect(unknownProfile.stderr.contains("unknown profile 'paranoid'"))

        let badStart = try CommandRunner.run(["analyze", sampleNight, "--start", "yesterday"])
        #expect(badStart.status == 64)
        // A date that does not exist is a usage error, not rolled over to March 2 (#45).
        for (start, reason) in [("2026-02-30T00:00:00Z", "month 2 of 2026 has 28 days, not 30"), ("0000-01-01T00:00:00Z", "the year 0"),
                                ("2026-11-21T23:00:00+99:00", "the offset +99:00 is beyond any time zone")] {
            let impossible = try CommandRunner.run(["analyze", sampleNight, "--db", scratch.file("never.sqlite"), "--start", start])
            #expect(impossible.status == 64 && impossible.stderr.contains("--start \(start): \(reason)"), "\(impossible.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("never.sqlite")), "nothing analysed")
        // A start typed without a zone is the wall-clock time of --timezone's zone.
        let local = try CommandRunner.run(["analyze", sampleNight, "--db", scratch.file("local.sqlite"), "--start", "2026-11-21 23:14",
                                           "--timezone", "Europe/Berlin"])
        #expect(local.status == 0 && local.stdout.contains("start 2026-11-21T22:14:00.000Z (from explicit)"), "\(local.stdout)")

        let noModel = try CommandRunner.run(["analyze", sampleNight, "--db", scratch.file("b.sqlite"), "--model", scratch.file("none")])
        #expect(noModel.status == 2)
        #expect(noModel.stderr.contains("model not found"))

        let noDatabase = try CommandRunner.run(["analyze", sampleNight, "--db", "/nonexistent-folder/x.sqlite"])
        #expect(noDatabase.status == 2)
        #expect(noDatabase.stderr.contains("/nonexistent-folder/x.sqlite: error: there is no folder /nonexistent-folder to create "
                                           + "the database in"), "\(noDatabase.stderr)")

        let nothing = try CommandRunner.run(["analyze", scratch.path, "--db", scratch.file("c.sqlite")])
        #expect(nothing.status == 64)
        #expect(nothing.stderr.contains("no audio files found"))
    }

    /// A database that is not there is named with what the user likely meant: the default is looked for in the working
    /// directory (so a command run from elsewhere is told to name it), a path given is shown beside the databases its
    /// folder holds, and `compare` of a file is told it needs no database at all. Nothing is created.
    /// A new user's first try, the recording without the command: ArgumentParser said only "Unexpected argument".
    @Test func aRecordingWithoutTheCommandIsShownTheCommand() throws {
        let result = try CommandRunner.run([sampleNight, "--profile", "all"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("is a file or folder, not a command; to analyse it: somniq-analyze analyze \(sampleNight) --profile all"),
                "\(result.stderr)")
        // A word that is no file stays ArgumentParser's own error.
        let typo = try CommandRunner.run(["reprot"])
        #expect(typo.status == 64 && !typo.stderr.contains("not a command") && typo.stderr.contains("reprot"), "\(typo.stderr)")
    }

    @Test func aMissingDatabaseSaysWhereToLook() throws {
        try Data().write(to: URL(fileURLWithPath: scratch.file("study.sqlite")))
        let named = try CommandRunner.run(["recordings", "--db", scratch.file("studdy.sqlite")])
        #expect(named.status == 2)
        #expect(named.stderr.contains("studdy.sqlite: error: no such database; check the path (its folder holds \(scratch.file("study.sqlite")))"),
                "\(named.stderr)")

        let byDefault = try CommandRunner.run(["report", "1", "--output", "night.html"], directory: scratch.path)
        #expect(byDefault.status == 2)
        #expect(byDefault.stderr.contains("somniq.sqlite: error: no such database; it is the default, looked for in the working directory, "
                                          + "which holds study.sqlite; name yours with --db"), "\(byDefault.stderr)")

        let compare = try CommandRunner.run(["compare", sampleNight, "--db", scratch.file("none.sqlite")])
        #expect(compare.status == 2)
        #expect(compare.stderr.contains("to compare \(sampleNight) without a database, leave out --db"), "\(compare.stderr)")
        #expect(!compare.stderr.contains("or pass --db"))
        for name in ["studdy.sqlite", "somniq.sqlite", "none.sqlite", "night.html"] {
            #expect(!FileManager.default.fileExists(atPath: scratch.file(name)), "\(name) created")
        }
    }

    @Test func anExplicitStartWins() throws {
        let db = scratch.file("start.sqlite")
        let result = try CommandRunner.run(["analyze", sampleNight, "--db", db, "--start", "2026-01-02T03:04:05Z"])
        #expect(result.status == 0)
        let queue = try DatabaseQueue(path: db)
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT start_utc || ' ' || start_source FROM recordings") }
            == "2026-01-02T03:04:05.000Z explicit")
    }

    /// A night copied off a phone has a fresh modification time, but its name still says when it was recorded, in the
    /// recorder's local time: `--timezone` says whose.
    @Test func theDateInARecordersFileNameIsReadInTheGivenZone() throws {
        let night = scratch.file("Recording_20261130_231405.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        let db = scratch.file("named.sqlite")
        let result = try CommandRunner.run(["analyze", night, "--db", db, "--timezone", "europe/berlin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("start 2026-11-30T22:14:05.000Z (from file-name-local)"))
        let queue = try DatabaseQueue(path: db)
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT start_utc || ' ' || start_source FROM recordings") }
            == "2026-11-30T22:14:05.000Z file-name-local")

        let other = try CommandRunner.run(["analyze", night, "--db", scratch.file("tokyo.sqlite"), "--quiet"],
                                          environment: ["TZ": "Asia/Tokyo"])
        #expect(other.status == 0)
        #expect(try DatabaseQueue(path: scratch.file("tokyo.sqlite")).read {
            try String.fetchOne($0, sql: "SELECT start_utc FROM recordings") } == "2026-11-30T14:14:05.000Z", "without --timezone, $TZ")

        let city = try CommandRunner.run(["analyze", night, "--db", scratch.file("city.sqlite"), "--timezone", "Berlin"])
        #expect(city.status == 64)
        #expect(city.stderr.contains("did you mean Europe/Berlin?"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("city.sqlite")), "a usage error writes nothing")
    }

    /// A study analysed before its zone was given (on a node running on UTC, say) is put right by giving it: the nights
    /// whose start came from a name move, nothing is decoded again, and a start from the file's time stays.
    @Test func aTimeZoneGivenLaterRereadsTheStartsOfStoredNights() throws {
        let named = scratch.file("Recording_20261130_231405.caf")
        let unnamed = scratch.file("bedroom.caf")
        for copy in [named, unnamed] { try FileManager.default.copyItem(atPath: sampleNight, toPath: copy) }
        let db = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["analyze", named, "--db", db, "--quiet"], environment: ["TZ": "UTC"]).status == 0)
        #expect(try CommandRunner.run(["analyze", unnamed, "--db", scratch.file("unnamed.sqlite"), "--quiet"],
                                      environment: ["TZ": "UTC"]).status == 0)
        func stored(_ db: String) throws -> [String] {
            try DatabaseQueue(path: db).read {
                try String.fetchAll($0, sql: """
                    SELECT start_utc || ' ' || start_source FROM recordings
                    UNION ALL SELECT DISTINCT start_utc FROM episodes WHERE start_offset_s = (SELECT MIN(start_offset_s) FROM episodes)
                    """)
            }
        }
        #expect(try stored(db).first == "2026-11-30T23:14:05.000Z file-name-local")
        let unnamedBefore = try stored(scratch.file("unnamed.sqlite"))

        let again = try CommandRunner.run(["analyze", named, "--db", db, "--timezone", "Europe/Berlin"], environment: ["TZ": "UTC"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("start time read again in Europe/Berlin: 2026-11-30T22:14:05.000Z (was 2026-11-30T23:14:05.000Z)"),
                "\(again.stderr)")
        #expect(again.stderr.contains("0 analysed, 1 updated"), "nothing decoded again: \(again.stderr)")
        let moved = try stored(db)
        #expect(moved.first == "2026-11-30T22:14:05.000Z file-name-local")
        // The first episode's clock time moved with the start (its offset is 10 s into the night).
        #expect(moved.dropFirst().allSatisfy { $0.hasPrefix("2026-11-30T22:14:") }, "\(moved)")

        let twice = try CommandRunner.run(["analyze", named, "--db", db, "--timezone", "Europe/Berlin"], environment: ["TZ": "UTC"])
        #expect(!twice.stderr.contains("read again"), "the same zone again changes nothing: \(twice.stderr)")
        let fileTime = try CommandRunner.run(["analyze", unnamed, "--db", scratch.file("unnamed.sqlite"), "--timezone", "Asia/Tokyo"],
                                             environment: ["TZ": "UTC"])
        #expect(fileTime.status == 0)
        #expect(try stored(scratch.file("unnamed.sqlite")) == unnamedBefore, "a modification time is a moment in every zone")
    }

    /// A night named by its date alone and copied later is dated by the copy: the summary says so and how to date it.
    @Test func aNightNamedByItsDateAloneButDatedByACopyIsWarnedOf() throws {
        let night = scratch.file("night_2026_11_27.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_205_600)], ofItemAtPath: night)  // 2026-12-02T10:00Z
        let db = scratch.file("dated.sqlite")
        let result = try CommandRunner.run(["analyze", night, "--db", db], environment: ["TZ": "Europe/Berlin"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("\(night): warning: its name says 2026-11-27 but no time of day, so its start was taken from the "
                                       + "file's modification time, 2026-12-02 10:56 (Europe/Berlin), and it is stored as the night of "
                                       + "2026-12-01"), "\(result.stderr)")
        #expect(result.stderr.contains("--start 2026-11-27T23:00:00+01:00 with the same --db"), "\(result.stderr)")

        let listed = try CommandRunner.run(["recordings", "--db", db], environment: ["TZ": "Europe/Berlin"]).stdout
        #expect(listed.contains("2026-12-01  2026-12-02T09:56:00.000Z *") && listed.contains("* start taken from the file's modification time"),
                "\(listed)")

        // Named by its night, it is not found there: the error says which recording is named for it, and how to reach it.
        let asked = try CommandRunner.run(["tag", "2026-11-27", "--add", "mouth tape", "--db", db], environment: ["TZ": "Europe/Berlin"])
        #expect(asked.status == 64, "\(asked.stderr)")
        #expect(asked.stderr.contains("no recording began on the night of 2026-11-27 (from noon that day to noon the next, Europe/Berlin); "
                                      + "the one night stored is 2026-12-01 in \(db); \(night) (id 1) is named for that night, but its start "
                                      + "was taken from the file's modification time, which copying resets, so it is stored as the night of "
                                      + "2026-12-01: name it by its id, or give it its start"), "\(asked.stderr)")
        #expect(asked.stderr.contains("analyze \(night) --start 2026-11-27T23:00:00+01:00 --db \(db) (the time an example)"), "\(asked.stderr)")

        let dated = try CommandRunner.run(["analyze", night, "--db", db, "--start", "2026-11-27T23:00:00+01:00"])
        #expect(dated.status == 0)
        let tagged = try CommandRunner.run(["tag", "2026-11-27", "--add", "mouth tape", "--db", db], environment: ["TZ": "Europe/Berlin"])
        #expect(tagged.status == 0, "once dated, its night names it: \(tagged.stderr)")
        let relisted = try CommandRunner.run(["recordings", "--db", db], environment: ["TZ": "Europe/Berlin"]).stdout
        #expect(relisted.contains("2026-11-27  2026-11-27T22:00:00.000Z ") && !relisted.contains("*"), "\(relisted)")
        let csv = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"]).stdout
        let lines = csv.split(whereSeparator: \.isNewline)  // RFC 4180's CRLF
        #expect(lines.count == 2 && lines[0].hasPrefix("id,path,") && lines[0].hasSuffix(",tags,start_source,clipped,channels_cancel,channel")
                    && lines[1].hasSuffix(",explicit,0,0,"), "\(csv)")

        // Four digits after the date may be its time, or a take's number: the warning says so, and offers them.
        let taken = scratch.file("takes/REC_20261127_2314.caf")
        try FileManager.default.createDirectory(atPath: scratch.file("takes"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sampleNight, toPath: taken)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_205_600)], ofItemAtPath: taken)
        let take = try CommandRunner.run(["analyze", taken, "--db", scratch.file("take.sqlite")], environment: ["TZ": "Europe/Berlin"])
        #expect(take.stderr.contains("\(taken): warning: its name says 2026-11-27, then 2314, which may be a time of day (23:14) or "
                                     + "a take's number, so its start was taken from the file's modification time"), "\(take.stderr)")
        #expect(take.stderr.contains("--start 2026-11-27T23:14:00+01:00 with the same --db (if that is its time;"), "\(take.stderr)")

        // Its own night's modification time (it ended the morning after) is no copy: no warning.
        let kept = scratch.file("kept/night_2026_12_01.caf")
        try FileManager.default.createDirectory(atPath: scratch.file("kept"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sampleNight, toPath: kept)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_205_600)], ofItemAtPath: kept)
        let quiet = try CommandRunner.run(["analyze", kept, "--db", scratch.file("kept.sqlite")], environment: ["TZ": "Europe/Berlin"])
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("warning"), "\(quiet.stderr)")
    }
}

@Suite struct ClassifyAndListingTests {
    @Test func classifyPrintsJSONWithASummary() throws {
        let result = try CommandRunner.run(["classify", sampleNight, "--format", "json"])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let file = (json["files"] as! [[String: Any]])[0]
        #expect((file["windows"] as! [Any]).count == 480)
        let summary = file["summary"] as! [String: Any]
        let seconds = summary["secondsPerClass"] as! [String: Double]
        #expect(abs(seconds.values.reduce(0, +) - 240) < 1e-6, "each window's hop adds up to the recording's length")
        #expect(seconds["rain"]! > seconds["smoke_detector"]!, "rain is on top the longest")
        #expect(summary["dominantClass"] as? String == "smoke_detector",
                "the clip rule reads the windows within 10 dB of the loudest: the night's alarm, not the rain under it")
    }

    /// A model with a clip calibration (`fit --clip-calibration`): `classify` chooses through it, the alerts do not.
    /// Here the cough's is set so low that a cough is never chosen: `classify` hears no cough where the shipped model
    /// hears the night's coughs on top, while `analyze` with the same model still raises the cough episode.
    @Test func classifyChoosesThroughTheClipCalibrationAndTheAlertsDoNot() throws {
        let scratch = Scratch()
        let shipped = CommandRunner.root + "/models/default"
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: shipped + "/model.json"))) as! [String: Any]
        var classes = object["classes"] as! [[String: Any]]
        let cough = try #require(classes.firstIndex { $0["id"] as? String == "cough" })
        var score = classes[cough]["score"] as! [String: Any]
        score["clipCalibration"] = ["slope": 1.0, "intercept": -40.0]
        classes[cough]["score"] = score
        object["classes"] = classes
        let model = try scratch.modelFolder("model", model: JSONSerialization.data(withJSONObject: object), profiles: shipped)

        func coughWindows(_ model: String) throws -> Int {
            let result = try CommandRunner.run(["classify", sampleNight, "--format", "json", "--model", model])
            let file = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]]
            return (file[0]["windows"] as! [[String: Any]]).filter { $0["topClass"] as? String == "cough" }.count
        }
        #expect(try coughWindows(shipped) >= 2, "the control: the shipped model hears the night's coughs")
        #expect(try coughWindows(model) == 0)
        let database = scratch.file("night.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", database, "--profile", "balanced", "--model", model, "--quiet"]).status == 0)
        let episodes = try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM episodes WHERE class_id = 'cough'") }
        #expect((episodes ?? 0) > 0, "the alerts read the calibration fitted for them")
    }

    @Test func classifyCSVHasAHeaderAndOneRowPerWindow() throws {
        let result = try CommandRunner.run(["classify", sampleNight, "--format", "csv"])
        let lines = result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines[0] == "record,file,window,start_s,end_s,class,confidence,seconds")
        #expect(lines.filter { $0.hasPrefix("window,") }.count == 480)
        #expect(lines.filter { $0.hasPrefix("dominant,") }.count == 1)
    }

    /// The table has no columns for every feature or confidence: asking for them there is refused, not ignored.
    @Test func classifyRefusesFeaturesOrConfidencesInTheTable() throws {
        for flag in ["--features", "--confidences"] {
            let result = try CommandRunner.run(["classify", sampleNight, flag])
            #expect(result.status == 64 && result.stdout.isEmpty, "\(flag): \(result.stderr)")
            #expect(result.stderr.contains("\(flag) is printed with --format json or csv, not in the table"), "\(result.stderr)")
        }
    }

    @Test func classifyIsDeterministic() throws {
        let first = try CommandRunner.run(["classify", sampleNight, "--format", "csv", "--features"])
        let second = try CommandRunner.run(["classify", sampleNight, "--format", "csv", "--features"])
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.count > 100_000)
    }

    @Test func listsProfilesAndClasses() throws {
        let profiles = try CommandRunner.run(["profiles", "--format", "json"])
        let object = try JSONSerialization.jsonObject(with: Data(profiles.stdout.utf8)) as! [String: Any]
        #expect(object["defaultProfile"] as? String == "balanced")
        #expect((object["profiles"] as! [Any]).count == 5)
        let classes = try CommandRunner.run(["classes"])
        #expect(classes.status == 0)
        #expect(classes.stdout.contains("smoke_detector  critical"))
        // Each fitted class with how well it is heard, from the model's card (models/default/quality.tsv).
        let fitted = try CommandRunner.run(["classes", "--model", CommandRunner.root + "/models/default"])
        let sneeze = try #require(fitted.stdout.split(separator: "\n").first { $0.hasPrefix("sneeze ") })
        #expect(sneeze.contains("86 (3)") && sneeze.contains("0.581 / 0.291") && sneeze.contains("0.263 / 0.116"), "\(sneeze)")
        let wind = try #require(fitted.stdout.split(separator: "\n").first { $0.hasPrefix("wind ") })
        #expect(wind.contains("— / 0.000"), "no clip was called wind: \(wind)")
        let json = try CommandRunner.run(["classes", "--format", "json", "--model", CommandRunner.root + "/models/default"])
        let listed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let entries = listed["classes"] as! [[String: Any]]
        let snoring = try #require(entries.first { $0["id"] as? String == "snoring" }?["heldOut"] as? [String: Any])
        #expect(snoring["clips"] as? Int == 394 && snoring["newSourceRecall"] as? Double == 0.52)
        #expect(entries.first { $0["id"] as? String == "gasp" }?["heldOut"] == nil, "the hand-written gasp has no card")
        let handWritten = try CommandRunner.run(["classes", "--model", CommandRunner.root + "/models/rules"])
        #expect(!handWritten.stdout.contains("heard: P / R"), "the hand-written rules have no card")
        let rules = try CommandRunner.run(["profiles", "--rules"])
        #expect(rules.stdout.contains("rules under very-sensitive"))
    }

    @Test func everyCommandHasHelp() throws {
        for command in ["analyze", "classify", "profiles", "classes"] {
            let help = try CommandRunner.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("USAGE: somniq-analyze \(command)"))
        }
    }
}

@Suite struct DefaultModelLookupTests {
    @Test func withoutAModelTheFittedDefaultIsUsed() throws {
        // Every other end-to-end test pins the hand-written model; this one clears that and lets the lookup run.
        let running = try CommandRunner.start(["classes", "--format", "json"], environment: ["SOMNIQ_MODEL": ""])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
        #expect(running.stdout.contains("\"model\" : \"default\""), "\(running.stdout.suffix(300))")
    }

    @Test func theFittedDefaultRaisesTheSampleNightsSmokeAlarmAndNothingCriticalElse() throws {
        // The default is fitted on real clips; of the synthetic night's sounds, the smoke alarm is the one a
        // sleeper must never miss, and a critical alert at any other time would wake them for nothing.
        let scratch = Scratch()
        let db = scratch.file("default.sqlite")
        let running = try CommandRunner.start(["analyze", sampleNight, "--db", db, "--quiet"], environment: ["SOMNIQ_MODEL": ""])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
        let queue = try DatabaseQueue(path: db)
        try queue.read { db in
            #expect(try String.fetchOne(db, sql: "SELECT model_name || ' ' || model_version FROM recordings") == "default 3.7.1")
            // The scripted gasp (88 s, a hand-written class) and the smoke alarm (150–166 s): nothing else.
            let critical = try Row.fetchAll(db, sql: """
                SELECT class_id, start_offset_s, end_offset_s FROM episodes WHERE profile = 'balanced' AND tier = 'critical'
                ORDER BY start_offset_s
                """)
            #expect(critical.map { $0["class_id"] as String } == ["gasp", "smoke_detector"], "\(critical)")
            let alarm = critical.last
            let start: Double = alarm?["start_offset_s"] ?? 0, end: Double = alarm?["end_offset_s"] ?? 0
            #expect(start >= 148 && start <= 152 && end >= 160 && end <= 168, "the alarm sounds 150–166 s: \(start)–\(end)")
        }
    }
}

/// What a new user reads first (#46): each default said once, and only the formats a command takes.
@Suite struct HelpTextTests {
    static let commands = ["analyze", "classify", "compare", "evaluate", "export", "fit", "regress", "profiles", "recordings",
                           "classes", "clips", "report", "merge", "follow"]

    @Test(arguments: commands) func eachDefaultIsSaidOnce(command: String) throws {
        let help = try CommandRunner.run([command, "--help"])
        #expect(help.status == 0)
        // ArgumentParser adds "(default: X)" itself: a help text that says it too prints it twice.
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
        #expect(text.range(of: #"\(default: ([^)]*)\)\.? \(default: \1\)"#, options: .regularExpression) == nil, "\(command): \(help.stdout)")
    }

    /// The overview lists a night's commands first, in the order a night is worked through, then the cluster's and
    /// the model's; none is left out of it, and every exit status is named.
    @Test func theOverviewListsEveryCommandOnce() throws {
        let help = try CommandRunner.run(["--help"])
        #expect(help.status == 0)
        let listed = help.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first, word.first?.isLowercase == true else { return nil }
            return String(word)
        }
        #expect(listed == ["analyze", "report", "compare", "export", "clips", "recordings", "remove", "tag", "trends", "follow",
                           "merge", "classes", "profiles", "classify", "evaluate", "fit", "regress"], "\(help.stdout)")
        #expect(Set(listed).isSuperset(of: Self.commands + ["remove", "tag", "trends"]))
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
        for status in ["0 all inputs analysed", "1 some inputs failed", "64 usage error", "130 / 143 interrupted"] {
            #expect(text.contains(status), "\(status)")
        }
    }

    @Test func fitListsTheFormatsItTakes() throws {
        let help = try CommandRunner.run(["fit", "--help"])
        #expect(help.stdout.contains("(values: table, json;"), "\(help.stdout)")
        let csv = try CommandRunner.run(["fit", "--clips", sampleNight, "--cross-validate", "2", "--format", "csv"])
        #expect(csv.status == 64 && csv.stderr.contains("table") && csv.stderr.contains("json"), "\(csv.stderr)")
    }
}
