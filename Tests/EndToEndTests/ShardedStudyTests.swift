import Foundation
import GRDB
import Testing

/// A fixture study (the two synthesised nights, every format's sine, the bad inputs) in a manifest, analysed once
/// whole and again in shards, each shard its own process, then merged.
enum FixtureStudy {
    static let files: [String] = {
        let fixtures: String = CommandRunner.root + "/fixtures"
        var files: [String] = [fixtures + "/nights/apnea-night_8k.caf", fixtures + "/nights/rainy-night_16k.flac"]
        for folder in ["formats", "bad"] {
            let names: [String] = (try? FileManager.default.contentsOfDirectory(atPath: fixtures + "/" + folder)) ?? []
            for name in names.sorted() where !name.hasSuffix(".tsv") && !name.hasPrefix(".") {
                files.append(fixtures + "/" + folder + "/" + name)
            }
        }
        return files
    }()

    /// The manifest (absolute paths, one a line) and the unsharded study's database, made once in a folder of this
    /// test process.
    static let folder: String = {
        let path = ProcessFixtures.removedAtExit(NSTemporaryDirectory() + "somniq-study-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    static let manifest: String = {
        let path = folder + "/study.txt"
        try! (files.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()
    static let whole: String = {
        let db = folder + "/whole.sqlite"
        _ = try? CommandRunner.run(["analyze", "--manifest", manifest, "--db", db, "--profile", "all", "--quiet"])
        return db
    }()

    /// Every row of every results table, each as text with the recording named by its path (and an alert's episode
    /// by its class, profile and start) instead of ids, and without `analyzed_at`: sorted, so two databases holding the
    /// same results compare equal whatever their ids and insertion order.
    static func dump(_ path: String) throws -> [String: [String]] {
        try DatabaseQueue(path: path).read { db in
            var tables: [String: [String]] = [:]
            func rows(_ sql: String, dropping: Set<String>) throws -> [String] {
                try Row.fetchAll(db, sql: sql).map { row in
                    row.columnNames.filter { !dropping.contains($0) }.map { name in "\(name)=\(row[name] as DatabaseValue)" }
                        .joined(separator: "|")
                }.sorted()
            }
            tables["recordings"] = try rows("SELECT * FROM recordings", dropping: ["id", "analyzed_at"])
            for table in ["windows", "detections", "profile_runs", "sound_events", "bouts", "recording_envelopes", "recording_locations",
                          "episodes"] {
                tables[table] = try rows("SELECT r.path AS recording, t.* FROM \(table) t JOIN recordings r ON r.id = t.recording_id",
                                         dropping: ["id", "recording_id"])
            }
            tables["alerts"] = try rows("""
                SELECT r.path AS recording, e.class_id AS episode_class, e.profile AS episode_profile, e.start_offset_s AS episode_start, a.*
                FROM alerts a JOIN recordings r ON r.id = a.recording_id JOIN episodes e ON e.id = a.episode_id
                """, dropping: ["id", "recording_id", "episode_id"])
            return tables
        }
    }

    static func recordingCount(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings") ?? 0 }
    }
}

@Suite(.serialized) struct ShardedStudyTests {
    /// Runs every shard of `count` at once, each its own process, into `folder`; returns their databases.
    func runShards(_ count: Int, in folder: String, environment: [String: String] = [:]) throws -> [String] {
        let databases = (1...count).map { folder + "/shard-\($0)-of-\(count).sqlite" }
        let running = try (1...count).map { k in
            try CommandRunner.start(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "\(k)/\(count)", "--db", databases[k - 1],
                                     "--profile", "all", "--jobs", "1", "--quiet"], environment: environment)
        }
        for (k, process) in running.enumerated() {
            process.waitUntilExit()
            #expect([0, 1].contains(process.terminationStatus), "shard \(k + 1)/\(count): \(process.stderr)")
            #expect(process.stderr.contains("shard \(k + 1)/\(count): "), "the share is said: \(process.stderr)")
        }
        return databases
    }

    @Test(arguments: [1, 2, 3, 7])
    func shardedAndMergedIsTheUnshardedStudy(count: Int) throws {
        let whole = try FixtureStudy.dump(FixtureStudy.whole)
        #expect(whole["recordings"]?.count == FixtureStudy.files.count)
        #expect((whole["episodes"]?.count ?? 0) > 0 && (whole["sound_events"]?.count ?? 0) > 0)
        let scratch = Scratch()
        let shards = try runShards(count, in: scratch.path)
        // The shares are disjoint and cover the study.
        #expect(try shards.reduce(0) { $0 + (try FixtureStudy.recordingCount($1)) } == FixtureStudy.files.count)
        let study = scratch.file("study.sqlite")
        let merged = try CommandRunner.run(["merge"] + shards + ["--into", study])
        #expect(merged.status == 0, "\(merged.stderr)")
        // Each line counts its recordings and failed files in words that agree with the number ("1 recording added",
        // "1 failed file recorded"; the 7 shards hold both).
        for match in merged.stderr.matches(of: /[:,] (\d+) (recordings? added|failed files? recorded)/) {
            #expect((match.1 == "1") == !match.2.contains("s "), "\(match.0)")
        }
        #expect(merged.stderr.matches(of: /: (\d+) recordings? added/).count == count + 1, "a line a shard and the total: \(merged.stderr)")
        let result = try FixtureStudy.dump(study)
        for table in whole.keys.sorted() {
            #expect(result[table] == whole[table], "\(table) after merging \(count) shards: \(result[table]?.count ?? 0) rows, unsharded \(whole[table]?.count ?? 0)")
        }
        // Merging the shards again adds nothing.
        let again = try CommandRunner.run(["merge"] + shards + ["--into", study])
        #expect(again.status == 0 && again.stderr.contains(": 0 recordings added"), "\(again.stderr)")
        #expect(try FixtureStudy.dump(study) == result)
    }

    /// SIGINT or SIGTERM during a merge: the summary says what was merged, the study is left one whole file (no -wal or
    /// -shm), and running the same command again merges the rest.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] as [(Int32, Int32)])
    func anInterruptedMergeSaysWhatItDidAndLeavesOneFile(signal: Int32, status: Int32) throws {
        let scratch = Scratch()
        let shards = try runShards(7, in: scratch.path)
        let study = scratch.file("study.sqlite")
        let process = try CommandRunner.start(["merge"] + shards + ["--into", study])
        #expect(process.pause(once: { DatabaseCheck.storedRecordings(at: study) > 0 }), "stopped midway")
        process.send(signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == status, "\(process.stderr)")
        #expect(process.stderr.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM"): merged "), "\(process.stderr)")
        #expect(process.stderr.contains("run the same command again"))
        #expect(!FileManager.default.fileExists(atPath: study + "-wal") && !FileManager.default.fileExists(atPath: study + "-shm"))
        #expect(try DatabaseCheck(study).integrity() == "ok")
        #expect(try FixtureStudy.recordingCount(study) < FixtureStudy.files.count, "it stopped before the end")
        let resumed = try CommandRunner.run(["merge"] + shards + ["--into", study])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try FixtureStudy.dump(study) == (try FixtureStudy.dump(FixtureStudy.whole)))
    }

    @Test func aShardKilledMidwayAndRunAgainMergesTheSame() throws {
        let scratch = Scratch()
        let first = scratch.file("shard-1-of-2.sqlite")
        let arguments = ["analyze", "--manifest", FixtureStudy.manifest, "--shard", "1/2", "--db", first, "--profile", "all", "--jobs", "1",
                         "--quiet"]
        let victim = try CommandRunner.start(arguments)
        // Killed (SIGKILL: no chance to tidy up) once at least one recording is stored and before the share is done.
        let killedMidway = victim.pause(once: { DatabaseCheck.storedRecordings(at: first) >= 1 })
        victim.send(SIGKILL)
        victim.waitUntilExit()
        #expect(killedMidway, "the shard was still running when killed")
        let rerun = try CommandRunner.run(arguments)
        #expect([0, 1].contains(rerun.status), "\(rerun.stderr)")
        let second = try runShards(2, in: scratch.path).last!
        let study = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["merge", first, second, "--into", study]).status == 0)
        #expect(try FixtureStudy.dump(study) == (try FixtureStudy.dump(FixtureStudy.whole)))
    }

    @Test func shardsOfAnotherModelAreRefused() throws {
        let scratch = Scratch()
        let rules = try runShards(2, in: scratch.path)
        let other = scratch.file("other-model.sqlite")
        let running = try CommandRunner.start(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "2/2", "--db", other,
                                               "--profile", "all", "--quiet"],
                                              environment: ["SOMNIQ_MODEL": CommandRunner.root + "/models/default"])
        running.waitUntilExit()
        let study = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["merge", rules[0], "--into", study]).status == 0)
        let before = try FixtureStudy.dump(study)
        let refused = try CommandRunner.run(["merge", other, "--into", study])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("not merged: analysed with default@"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-mixed-models"))
        #expect(try FixtureStudy.dump(study) == before, "nothing of a refused shard is written")
        let forced = try CommandRunner.run(["merge", other, "--into", study, "--allow-mixed-models"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try FixtureStudy.recordingCount(study) > (try FixtureStudy.recordingCount(rules[0])))
    }

    /// A merge that merges nothing into a study it would create (a shard path mistyped, a file that is no database)
    /// leaves no empty study behind, which would read as a merge that ran; one into an existing study leaves it be.
    @Test func aMergeOfNothingCreatesNoStudy() throws {
        let scratch = Scratch()
        let notADatabase = scratch.file("notes.sqlite")
        try "not a database\n".write(toFile: notADatabase, atomically: true, encoding: .utf8)
        let study = scratch.file("study.sqlite")
        let merged = try CommandRunner.run(["merge", scratch.file("missing.sqlite"), notADatabase, "--into", study])
        #expect(merged.status == 1, "\(merged.stderr)")
        #expect(merged.stderr.contains("merged 0 of 2 shards") && merged.stderr.contains("not created, as no shard was merged"),
                "\(merged.stderr)")
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: study + suffix), "\(suffix)") }
        #expect(try String(contentsOfFile: notADatabase, encoding: .utf8) == "not a database\n")

        let existing = scratch.file("existing.sqlite")
        #expect(try CommandRunner.run(["merge", try runShards(1, in: scratch.path)[0], "--into", existing]).status == 0)
        let before = try FixtureStudy.dump(existing)
        let nothing = try CommandRunner.run(["merge", scratch.file("missing.sqlite"), "--into", existing])
        #expect(nothing.status == 1 && !nothing.stderr.contains("not created"), "\(nothing.stderr)")
        #expect(try FixtureStudy.dump(existing) == before)
    }

    @Test func theShardComesFromTheJobEngine() throws {
        let scratch = Scratch()
        // A Slurm array --array=1-3: task 2 is the second share of three.
        let slurm = try CommandRunner.start(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "auto", "--db", scratch.file("s.sqlite"),
                                             "--quiet"],
                                            environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"])
        slurm.waitUntilExit()
        #expect(slurm.stderr.contains("shard 2/3: "), "\(slurm.stderr)")
        let kubernetes = try CommandRunner.start(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "auto", "--shard-count", "7",
                                                  "--db", scratch.file("k.sqlite"), "--quiet"], environment: ["JOB_COMPLETION_INDEX": "0"])
        kubernetes.waitUntilExit()
        #expect(kubernetes.stderr.contains("shard 1/7: "), "\(kubernetes.stderr)")
        let neither = try CommandRunner.run(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "auto", "--db", scratch.file("n.sqlite")])
        #expect(neither.status == 64 && neither.stderr.contains("neither SLURM_ARRAY_TASK_ID"), "\(neither.stderr)")
        let bad = try CommandRunner.run(["analyze", "--manifest", FixtureStudy.manifest, "--shard", "4/3", "--db", scratch.file("n.sqlite")])
        #expect(bad.status == 64)
    }
}
