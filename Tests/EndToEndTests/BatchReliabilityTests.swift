import Foundation
import GRDB
import SomniqAudio
import Testing

/// Distinct synthetic nights (8 kHz, four minutes, different seeds), made once and shared by the tests.
enum Nights {
    static let folder: String = {
        let path = ProcessFixtures.removedAtExit(NSTemporaryDirectory() + "somniq-nights-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for seed in 1...6 {
            let file = path + "/night-\(seed).wav"
            if FileManager.default.fileExists(atPath: file) { continue }
            _ = try? CommandRunner.run(["night", "--sample-rate", "8000", "--seed", String(seed), "--output", file,
                                        "--labels", path + "/night-\(seed).tsv"], product: "somniq-synth")
        }
        return path
    }()

    static func copies(into folder: String, count: Int = 6) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try (1...count).map { seed in
            let target = folder + "/night-\(seed).wav"
            try FileManager.default.copyItem(atPath: Nights.folder + "/night-\(seed).wav", toPath: target)
            return target
        }
    }
}

/// What a database holds, for checks after a batch.
struct DatabaseCheck {
    let queue: DatabaseQueue

    init(_ path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        // A command closing the same database (its last connection checkpoints the log) holds it for a moment: wait,
        // as the tool's own readers do, rather than fail the check with "database is locked".
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Whole recordings stored in the database at `path` so far, looked at with a connection closed at once, as a
    /// user's would be; 0 while it cannot be read yet (opening reads the schema, which fails while an analysis is
    /// creating it).
    static func storedRecordings(at path: String) -> Int {
        guard FileManager.default.fileExists(atPath: path), let queue = try? DatabaseQueue(path: path) else { return 0 }
        defer { try? queue.close() }
        return (try? queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM recordings WHERE status = 'complete'") }) ?? 0
    }

    func integrity() throws -> String { try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "" } }

    /// Whether the database has its tables yet: a run killed in its first moments may leave the file created and the
    /// schema not (each migration commits on its own; the next run makes what is missing).
    func hasSchema() throws -> Bool {
        try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'recordings'") ?? 0 } > 0
    }

    func completePaths() throws -> [String] {
        try queue.read { try String.fetchAll($0, sql: "SELECT path FROM recordings WHERE status = 'complete' ORDER BY path") }
    }

    /// Recordings whose stored windows do not number their window count: half-written analyses.
    func incomplete() throws -> Int {
        try queue.read {
            try Int.fetchOne($0, sql: """
                SELECT COUNT(*) FROM recordings r WHERE status = 'complete'
                AND window_count <> (SELECT COUNT(*) FROM windows w WHERE w.recording_id = r.id)
                """) ?? -1
        }
    }

    func failures() throws -> [String: String] {
        try queue.read {
            Dictionary(uniqueKeysWithValues: try Row.fetchAll($0, sql: "SELECT file_name, error_code FROM recordings WHERE status = 'failed'")
                .map { ($0["file_name"] as String, $0["error_code"] as String) })
        }
    }

    func count(_ sql: String) throws -> Int { try queue.read { try Int.fetchOne($0, sql: sql) ?? -1 } }
}

@Suite(.serialized) struct BatchReliabilityTests {
    @Test func badInputNeverStopsABatch() throws {
        let scratch = Scratch()
        let folder = scratch.file("study")
        let good = try Nights.copies(into: folder, count: 2)
        let fileManager = FileManager.default
        for name in try fileManager.contentsOfDirectory(atPath: CommandRunner.root + "/fixtures/bad") where !name.hasPrefix(".") {
            try fileManager.copyItem(atPath: CommandRunner.root + "/fixtures/bad/" + name, toPath: folder + "/" + name)
        }
        try fileManager.createDirectory(atPath: folder + "/x.wav", withIntermediateDirectories: true)
        try fileManager.createSymbolicLink(atPath: folder + "/broken.wav", withDestinationPath: folder + "/gone.wav")
        try fileManager.copyItem(atPath: good[0], toPath: folder + "/locked.wav")
        try fileManager.setAttributes([.posixPermissions: 0o000], ofItemAtPath: folder + "/locked.wav")
        // As root every file is readable; run as nobody so that permissions mean something.
        let asRoot = getuid() == 0
        if asRoot {
            for path in [scratch.path, folder, folder + "/x.wav"] { try fileManager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
        }
        let db = scratch.file("study.sqlite")
        // --strict: the files cut short (truncated, lying header) are refused too (by default they are analysed as
        // far as they go, CutShortTests).
        let result = try CommandRunner.run(["analyze", folder, "--db", db, "--jobs", "2", "--strict"], asUser: asRoot ? 65534 : nil)
        #expect(result.status == 1, "\(result.stderr)")
        let check = try DatabaseCheck(db)
        #expect(try check.integrity() == "ok")
        #expect(try check.completePaths() == good.sorted())
        let failures = try check.failures()
        #expect(failures == [
            "broken.wav": "broken-link", "header-only.wav": "empty", "inf-samples.caf": "non-finite-samples",
            "lying-header.wav": "truncated", "locked.wav": "permission-denied", "nan-samples.wav": "non-finite-samples",
            "not-audio.wav": "not-audio", "rate-1hz.wav": "unsupported-sample-rate", "truncated.wav": "truncated",
            "x.wav": "is-directory", "zero-length.wav": "empty",
        ])
        #expect(try check.count("SELECT COUNT(*) FROM windows w JOIN recordings r ON r.id = w.recording_id WHERE r.status = 'failed'") == 0)
        for name in failures.keys { #expect(result.stderr.contains("\(folder)/\(name): error: "), "\(name)") }
        #expect(result.stderr.contains("2 analysed, 0 skipped (already done), 11 failed of 13 recordings"))
    }

    @Test func rerunsSkipWhatIsDoneAndRecogniseMovedFiles() throws {
        let scratch = Scratch()
        let files = try Nights.copies(into: scratch.file("in"), count: 3)
        let db = scratch.file("db.sqlite")
        let first = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db])
        #expect(first.status == 0)
        #expect(first.stderr.contains("3 analysed, 0 skipped"))
        let second = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db])
        #expect(second.status == 0)
        #expect(second.stderr.contains("0 analysed, 3 skipped (already done)"))
        #expect(second.stdout.isEmpty, "nothing new to report")

        // More profiles: computed from the stored confidences, no decoding.
        let all = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--profile", "all"])
        #expect(all.stderr.contains("0 analysed, 3 updated (profiles added or start time set), 0 skipped")
            && all.stderr.contains("0.00 h of audio decoded"), "\(all.stderr)")
        for file in files {
            #expect(all.stderr.contains("\(file): profiles added: very-conservative, conservative, sensitive, very-sensitive"), "\(all.stderr)")
        }
        let check = try DatabaseCheck(db)
        #expect(try check.count("SELECT COUNT(*) FROM profile_runs") == 15)

        // A renamed file is the same recording.
        let renamed = scratch.file("in/renamed.wav")
        try FileManager.default.moveItem(atPath: files[0], toPath: renamed)
        let moved = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--profile", "all"])
        #expect(moved.status == 0)
        #expect(moved.stderr.contains("0 analysed, 3 skipped (already done), 0 failed"), "\(moved.stderr)")
        #expect(moved.stderr.contains("\(renamed): skipped: moved from \(files[0]), already analysed (its night now points here)"),
                "\(moved.stderr)")
        #expect(try check.count("SELECT COUNT(*) FROM recordings") == 3)
        #expect(try check.completePaths().contains(renamed))

        // --reanalyze decodes again but still keeps one copy.
        let again = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--reanalyze"])
        #expect(again.stderr.contains("3 analysed, 0 skipped"))
        #expect(try check.count("SELECT COUNT(*) FROM recordings") == 3)
        #expect(try check.incomplete() == 0)
    }

    /// A night stored before the audio's identity was XXH3-128 carries SHA-256 of its samples. Moved, it is still the
    /// same night: hashed once more the old way, it takes the new identity, its tags with it, and is not stored twice.
    @Test func aNightStoredUnderSHA256IsFoundByItsAudioAndTakesTheNewIdentity() throws {
        let scratch = Scratch()
        let files = try Nights.copies(into: scratch.file("in"), count: 2)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--quiet"]).status == 0)
        let older = try #require(try AudioFileReader.contentHash(of: files[0], kind: .sha256))
        let queue = try DatabaseQueue(path: db)
        let newer = try #require(try queue.read {
            try String.fetchOne($0, sql: "SELECT content_hash FROM recordings WHERE path = ?", arguments: [files[0]])
        })
        #expect(newer.count == 32 && older.count == 64)
        try queue.write { db in
            try db.execute(sql: "UPDATE recordings SET content_hash = ? WHERE path = ?", arguments: [older, files[0]])
            try db.execute(sql: "INSERT INTO night_tags (content_hash, tag) VALUES (?, 'mouthguard')", arguments: [older])
        }
        try queue.close()

        let renamed = scratch.file("in/renamed.wav")
        try FileManager.default.moveItem(atPath: files[0], toPath: renamed)
        let moved = try CommandRunner.run(["analyze", renamed, "--db", db])
        #expect(moved.status == 0 && moved.stderr.contains("skipped: moved from \(files[0]), already analysed"), "\(moved.stderr)")
        let check = try DatabaseCheck(db)
        #expect(try check.count("SELECT COUNT(*) FROM recordings") == 2)
        let identity = try check.queue.read { db in
            try String.fetchOne(db, sql: "SELECT content_hash FROM recordings WHERE path = ?", arguments: [renamed])
        }
        let tagged = try check.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT content_hash, tag FROM night_tags").map { "\($0[0] as String) \($0[1] as String)" }
        }
        #expect(identity == newer && tagged == ["\(newer) mouthguard"], "\(String(describing: identity)) \(tagged)")
        let tags = try CommandRunner.run(["tag", renamed, "--db", db])
        #expect(tags.stdout.contains("mouthguard"), "\(tags.stdout)\(tags.stderr)")
    }

    /// Two `--reanalyze` runs of the same files at once, with different profiles: whichever stores last keeps the other's
    /// profiles (computed from its own analysis), so neither run's profiles are lost; a rerun alone keeps the earlier
    /// profiles too (in 2 of 4 trials one run's profiles used to be lost).
    @Test func concurrentReanalysesKeepEachOthersProfiles() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"), count: 3)
        for trial in 0..<4 {
            let db = scratch.file("db-\(trial).sqlite")
            #expect(try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--quiet"]).status == 0)
            let runs = try ["sensitive", "conservative"].map { profile in
                try CommandRunner.start(["analyze", scratch.file("in"), "--db", db, "--reanalyze", "--profile", profile, "--quiet"])
            }
            for run in runs {
                run.waitUntilExit()
                #expect(run.terminationStatus == 0, "\(run.stderr)")
            }
            let check = try DatabaseCheck(db)
            #expect(try check.count("SELECT COUNT(*) FROM recordings") == 3)
            #expect(try check.count("""
                SELECT COUNT(*) FROM (SELECT recording_id FROM profile_runs GROUP BY recording_id
                HAVING group_concat(profile) LIKE '%balanced%' AND group_concat(profile) LIKE '%sensitive%'
                AND group_concat(profile) LIKE '%conservative%' AND COUNT(*) = 3)
                """) == 3, "trial \(trial): every recording keeps balanced, sensitive and conservative")
        }
    }

    @Test func parallelJobsStoreWhatOneJobStores() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"), count: 4)
        func summary(_ jobs: Int) throws -> [String] {
            let db = scratch.file("jobs\(jobs).sqlite")
            let result = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--jobs", String(jobs), "--profile", "all", "--quiet"])
            #expect(result.status == 0)
            return try DatabaseCheck(db).queue.read {
                try String.fetchAll($0, sql: """
                    SELECT r.file_name || ' ' || e.profile || ' ' || e.class_id || ' ' || e.start_offset_s || ' ' || e.end_offset_s
                    FROM episodes e JOIN recordings r ON r.id = e.recording_id ORDER BY 1
                    """)
            }
        }
        let one = try summary(1)
        #expect(!one.isEmpty)
        #expect(try summary(2) == one)
    }

    /// SIGKILL at twenty moments of a batch; every time the database must be whole, and a final run completes it.
    /// The moments are spread over the time the whole batch takes on this build (timed first, into another
    /// database), capped at two seconds: inside the batch in a release build, where it takes about a second, and
    /// within its first two seconds in a debug build, where it takes far longer.
    @Test func survivesBeingKilled() throws {
        let scratch = Scratch()
        let files = try Nights.copies(into: scratch.file("in"))
        let db = scratch.file("db.sqlite")
        let arguments = ["analyze", scratch.file("in"), "--jobs", "2", "--quiet", "--profile", "all"]
        let started = Date()
        #expect(try CommandRunner.run(arguments + ["--db", scratch.file("timing.sqlite")]).status == 0)
        let whole = Date().timeIntervalSince(started)
        var generator = UInt64(20_261_122)
        for round in 0..<20 {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let delay = 0.02 + Double(generator >> 40) / Double(1 << 24) * min(whole, 2)
            let process = try CommandRunner.start(arguments + ["--db", db])
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let check = try DatabaseCheck(db)
            #expect(try check.integrity() == "ok", "round \(round)")
            // Killed before its tables were made: nothing stored to check (the final run below makes them).
            guard try check.hasSchema() else { continue }
            #expect(try check.incomplete() == 0, "round \(round): a half-written recording")
            #expect(try check.count("SELECT COUNT(*) FROM recordings WHERE status = 'complete' AND id NOT IN (SELECT recording_id FROM profile_runs)") == 0)
        }
        let finish = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--jobs", "2", "--profile", "all"])
        #expect(finish.status == 0)
        let check = try DatabaseCheck(db)
        #expect(try check.completePaths() == files.sorted())
        #expect(try check.count("SELECT COUNT(*) FROM recordings") == files.count, "each recording exactly once")
        #expect(try check.count("SELECT COUNT(*) FROM profile_runs") == files.count * 5)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] as [(Int32, Int32)])
    func stopsCleanlyOnSignals(signal: Int32, status: Int32) throws {
        let scratch = Scratch()
        let files = try Nights.copies(into: scratch.file("in"))
        let db = scratch.file("db.sqlite")
        let process = try CommandRunner.start(["analyze", scratch.file("in"), "--db", db, "--jobs", "1", "--quiet"])
        #expect(process.pause(once: { DatabaseCheck.storedRecordings(at: db) > 0 }), "stopped midway")
        process.send(signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == status)
        let stderr = process.stderr
        #expect(stderr.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(stderr)")
        #expect(stderr.contains("Run the same command again"))
        let check = try DatabaseCheck(db)
        #expect(try check.integrity() == "ok")
        #expect(try check.incomplete() == 0)
        #expect(try check.completePaths().count < files.count, "it stopped before the end")
        let resume = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db])
        #expect(resume.status == 0)
        #expect(try check.completePaths() == files.sorted())
    }

    @Test func twoRunsShareADatabase() throws {
        let scratch = Scratch()
        let files = try Nights.copies(into: scratch.file("in"))
        let db = scratch.file("db.sqlite")
        // Overlapping inputs: both see every file, one of them in the opposite order.
        let first = try CommandRunner.start(["analyze", scratch.file("in"), "--db", db, "--jobs", "1", "--profile", "all"])
        let second = try CommandRunner.start(["analyze"] + files.reversed() + ["--db", db, "--jobs", "1", "--profile", "all"])
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0, "\(first.stderr)")
        #expect(second.terminationStatus == 0, "\(second.stderr)")
        for process in [first, second] { #expect(!process.stderr.contains("locked"), "\(process.stderr)") }
        let check = try DatabaseCheck(db)
        #expect(try check.count("SELECT COUNT(*) FROM recordings") == files.count)
        #expect(try check.count("SELECT COUNT(*) FROM profile_runs") == files.count * 5)
        #expect(try check.integrity() == "ok")
    }

    @Test func twoProcessesCreatingOneDatabaseBothSucceed() throws {
        // Both race through creating the file, switching it to WAL and every migration; this once failed with
        // "duplicate column name" a few times in a hundred. Twelve fresh databases make a regression likely to show.
        let scratch = Scratch()
        let clip = scratch.file("clip.wav")
        #expect(try CommandRunner.run(["signal", "snore", "--seconds", "1", "--output", clip], product: "somniq-synth").status == 0)
        for round in 0..<12 {
            let db = scratch.file("fresh-\(round).sqlite")
            let first = try CommandRunner.start(["analyze", clip, "--db", db, "--quiet"])
            let second = try CommandRunner.start(["analyze", clip, "--db", db, "--quiet"])
            first.waitUntilExit()
            second.waitUntilExit()
            #expect(first.terminationStatus == 0, "round \(round): \(first.stderr)")
            #expect(second.terminationStatus == 0, "round \(round): \(second.stderr)")
            #expect(try DatabaseCheck(db).count("SELECT COUNT(*) FROM recordings") == 1)
        }
    }

    @Test func oddButValidFilesWork() throws {
        let scratch = Scratch()
        let made: [(String, [String])] = [
            ("eight-channels.caf", ["signal", "speech", "--channels", "8", "--container", "caf", "--seconds", "5"]),
            ("hires-192k.wav", ["signal", "alarm", "--sample-rate", "192000", "--seconds", "3", "--encoding", "pcm24"]),
            ("short-0.3s.wav", ["signal", "cough", "--seconds", "0.3"]),
            ("two-hours-silence.flac", ["signal", "silence", "--seconds", "7200", "--sample-rate", "8000", "--container", "flac"]),
        ]
        for (name, arguments) in made {
            let result = try CommandRunner.run(arguments + ["--output", scratch.file(name)], product: "somniq-synth")
            #expect(result.status == 0, "\(name)")
        }
        let db = scratch.file("db.sqlite")
        let result = try CommandRunner.run(["analyze"] + made.map { scratch.file($0.0) } + ["--db", db, "--profile", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        let check = try DatabaseCheck(db)
        #expect(try check.completePaths().count == 4)
        #expect(try check.count("SELECT window_count FROM recordings WHERE file_name = 'two-hours-silence.flac'") == 14_400)
        #expect(try check.count("SELECT COUNT(*) FROM alerts a JOIN recordings r ON r.id = a.recording_id WHERE r.file_name = 'two-hours-silence.flac'") == 0)
        #expect(try check.count("SELECT window_count FROM recordings WHERE file_name = 'short-0.3s.wav'") == 1)
    }
}

/// Whether this process may mount a small tmpfs (root on this machine and CI): how a full disk is made for real.
let canMountTmpfs: Bool = {
    guard getuid() == 0 else { return false }
    let probe = NSTemporaryDirectory() + "somniq-mount-probe-\(ProcessInfo.processInfo.processIdentifier)"
    try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: probe) }
    guard shell("/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe) == 0 else { return false }
    return shell("/bin/umount", probe) == 0
}()

@discardableResult
func shell(_ executable: String, _ arguments: String...) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
}

@Suite(.serialized, .enabled(if: canMountTmpfs, "needs root to mount a small tmpfs")) struct FullDiskTests {
    @Test func aFullDiskOrReadOnlyDatabaseStopsCleanlyAndLosesNothing() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"))
        let disk = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(shell("/bin/mount", "-t", "tmpfs", "-o", "size=900k", "tmpfs", disk) == 0)
        defer { shell("/bin/umount", disk) }
        let db = disk + "/db.sqlite"

        let full = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--jobs", "1", "--quiet"])
        #expect(full.status == 2, "\(full.stderr)")
        #expect(full.stderr.contains("full"), "\(full.stderr)")
        #expect(full.stderr.contains("what was stored before is intact. Free space on its disk (or make it writable), then run "
                                     + "the same command again"), "\(full.stderr)")
        // If the last checkpoint could not finish, the log holds rows the file alone lacks: the message says to keep it.
        #expect(!FileManager.default.fileExists(atPath: db + "-wal")
                    || full.stderr.contains("its latest changes are in \(db)-wal"), "\(full.stderr)")
        let stored: [String]
        do {  // the check's connection closes at the end of this scope, so the disk can be remounted
            let check = try DatabaseCheck(db)
            #expect(try check.integrity() == "ok")
            #expect(try check.incomplete() == 0)
            stored = try check.completePaths()
        }
        #expect(!stored.isEmpty && stored.count < 6, "some recordings fit before the disk filled: \(stored.count)")

        #expect(shell("/bin/mount", "-o", "remount,ro", disk) == 0)
        let readOnly = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--quiet"])
        #expect(readOnly.status == 2, "\(readOnly.stderr)")
        #expect(readOnly.stderr.contains("\(db): error: cannot write the database: the disk it is on is mounted read-only; nothing "
                                         + "was changed"), "\(readOnly.stderr)")
        #expect(try DatabaseCheck(db).completePaths() == stored, "nothing lost")
        let listed = try CommandRunner.run(["recordings", "--db", db])
        #expect(listed.status == 0 && listed.stdout.contains("\(stored.count) complete"), "\(listed.stdout)\(listed.stderr)")
        let new = try CommandRunner.run(["analyze", scratch.file("in"), "--db", disk + "/new.sqlite", "--quiet"])
        #expect(new.status == 2 && new.stderr.contains("\(disk)/new.sqlite: error: cannot create the database: the disk it is on "
                                                       + "is mounted read-only; nothing was created"), "\(new.stderr)")
    }

    /// A database copied with its write-ahead log (as the tool says to copy it) onto read-only media: the commands that
    /// only read it read the log too. They read the file alone (SQLite's `immutable`): an earlier state of the study
    /// without a word, or "database disk image is malformed" after a checkpoint cut short.
    @Test func aDatabaseWithItsLogOnReadOnlyMediaIsReadWhole() throws {
        let scratch = Scratch()
        let night = scratch.file("night.caf"), db = scratch.file("db.sqlite")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)
        let disk = scratch.file("disk"), copy = scratch.file("disk/db.sqlite")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(shell("/bin/mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", disk) == 0)
        defer { shell("/bin/umount", disk) }
        do {
            // A reader holding its snapshot keeps the tag in the log: the tool's checkpoint cannot fold it into the file.
            let reader = try DatabaseQueue(path: db)
            try reader.inDatabase { connection in
                try connection.execute(sql: "BEGIN")
                #expect(try Int.fetchOne(connection, sql: "SELECT count(*) FROM recordings") == 1)
                let tagged = try CommandRunner.run(["tag", "1", "--add", "mouthguard", "--db", db])
                #expect(tagged.status == 0, "\(tagged.stderr)")
                for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + suffix) }
                try connection.execute(sql: "ROLLBACK")
            }
        }
        let logSize = try FileManager.default.attributesOfItem(atPath: copy + "-wal")[.size] as? NSNumber
        #expect((logSize?.intValue ?? 0) > 0, "the tag is in the copied log")
        #expect(shell("/bin/mount", "-o", "remount,ro", disk) == 0)
        let listed = try CommandRunner.run(["recordings", "--db", copy])
        #expect(listed.status == 0 && listed.stdout.contains("mouthguard"), "\(listed.stdout)\(listed.stderr)")

        // Without its -shm, the log cannot be read on read-only media: said, rather than the file alone read.
        #expect(shell("/bin/mount", "-o", "remount,rw", disk) == 0)
        try FileManager.default.removeItem(atPath: copy + "-shm")
        #expect(shell("/bin/mount", "-o", "remount,ro", disk) == 0)
        let unread = try CommandRunner.run(["recordings", "--db", copy])
        #expect(unread.status == 2 && unread.stdout.isEmpty, "\(unread.stdout)")
        #expect(unread.stderr.contains("\(copy): error: its write-ahead log \(copy)-wal holds changes not yet in the file"),
                "\(unread.stderr)")
    }

    /// A small tmpfs mounted at `mount` holding a copy of `file` under its own name, then remounted read-only; the
    /// caller unmounts it.
    func readOnlyCopy(of file: String, at mount: String) throws -> String {
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        #expect(shell("/bin/mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount) == 0)
        try FileManager.default.copyItem(atPath: file, toPath: mount + "/" + (file as NSString).lastPathComponent)
        #expect(shell("/bin/mount", "-o", "remount,ro", mount) == 0)
        return mount
    }

    /// A shard on a read-only mount (as one returned from a cluster's scratch, or another user's) is merged: it is read
    /// read-only, and never written (it used to be refused, and the error blamed the study database).
    @Test func aShardOnReadOnlyMediaIsMerged() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"), count: 2)
        let original = scratch.file("shard.sqlite")
        #expect(try CommandRunner.run(["analyze", scratch.file("in"), "--db", original, "--quiet"]).status == 0)
        let mount = try readOnlyCopy(of: original, at: scratch.file("returned"))
        defer { shell("/bin/umount", mount) }
        let shard = mount + "/shard.sqlite"
        let study = scratch.file("study.sqlite")
        let merged = try CommandRunner.run(["merge", shard, "--into", study])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try DatabaseCheck(study).completePaths().count == 2, "\(merged.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mount) == ["shard.sqlite"])
    }

    /// A study archive on read-only media: every command that only reads works there, and says what it says on a
    /// writable copy.
    @Test func theReadingCommandsWorkOnReadOnlyMedia() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"), count: 2)
        let original = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["analyze", scratch.file("in"), "--db", original, "--profile", "all", "--quiet"]).status == 0)
        let archive = try readOnlyCopy(of: original, at: scratch.file("archive"))
        defer { shell("/bin/umount", archive) }
        let db = archive + "/study.sqlite"

        let reads: [[String]] = [
            ["export", "--format", "csv", "--what", "episodes"], ["export", "--format", "json", "--what", "windows", "--recording", "1"],
            ["compare", "2"], ["recordings"], ["recordings", "--format", "json"],
        ]
        for arguments in reads {
            let onArchive = try CommandRunner.run(arguments + ["--db", db])
            let onCopy = try CommandRunner.run(arguments + ["--db", original])
            #expect(onArchive.status == 0, "\(arguments): \(onArchive.stderr)")
            #expect(!onArchive.stdout.isEmpty && onArchive.stdout == onCopy.stdout.replacingOccurrences(of: original, with: db),
                    "\(arguments)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: archive) == ["study.sqlite"])
    }
}
