import CSV
import Foundation
import GRDB
import Testing

/// Hostile or odd inputs that once hung the tool or lost data.
@Suite struct HardeningTests {
    /// A FIFO named like a recording, given directly or found in a folder, is skipped with a message that says what
    /// it is; the run ends (it used to block forever on opening it) and the real recording beside it is analysed.
    @Test func aFifoIsSkippedNotWaitedOn() throws {
        let scratch = Scratch()
        let folder = scratch.file("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sampleNight, toPath: folder + "/night.caf")
        #expect(mkfifo(folder + "/x.wav", 0o644) == 0)
        let started = Date()
        let analysed = try CommandRunner.run(["analyze", folder, "--db", scratch.file("db.sqlite"), "--quiet"])
        #expect(analysed.status == 1, "one input failed: \(analysed.stderr)")
        #expect(analysed.stderr.contains("x.wav: error: is a FIFO (named pipe), not a regular file"), "\(analysed.stderr)")
        #expect(analysed.stderr.contains("1 analysed"), "\(analysed.stderr)")
        let classified = try CommandRunner.run(["classify", folder + "/x.wav"])
        #expect(classified.status == 2 && classified.stdout.isEmpty, "nothing classified is nothing done")
        #expect(classified.stderr.contains("not a regular file"), "\(classified.stderr)")
        #expect(classified.stderr.contains("the file could not be classified"), "\(classified.stderr)")
        #expect(Date().timeIntervalSince(started) < 120, "nothing waited on the FIFO")
    }

    /// `somniq-synth night --labels` naming a device or a named pipe writes to it in place: `--labels /dev/null` used
    /// to replace the system's /dev/null with a file (an atomic write renames a file over the path), as root.
    @Test func synthLabelsGoIntoAPipeInPlace() throws {
        let scratch = Scratch()
        let fifo = scratch.file("labels.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = Received()
        let reader = Thread { received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()) }
        reader.start()
        let night = ["night", "--output", scratch.file("night.wav"), "--labels"]
        let piped = try CommandRunner.run(night + [fifo], product: "somniq-synth")
        #expect(piped.status == 0, "\(piped.stderr)")
        let file = try CommandRunner.run(night + [scratch.file("labels.tsv")], product: "somniq-synth")
        #expect(file.status == 0, "\(file.stderr)")
        #expect(received.wait(seconds: 60) == FileManager.default.contents(atPath: scratch.file("labels.tsv")), "what the pipe carried")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
    }

    /// `export --output` naming a device or a named pipe, or a link to one, writes to it in place: `/dev/null` stays the
    /// system's device (it used to be replaced by a file holding the export, as root), a FIFO is written to and never read
    /// to decide (it used to hang), with `--force` too; `-` is standard output; a folder is refused.
    @Test func exportWritesToDevicesAndPipesInPlace() throws {
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        func kind(_ path: String) -> mode_t {
            var status = stat()
            return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
        }
        let export = ["export", "--db", db, "--format", "csv", "--profile", "balanced"]
        let toNull = try CommandRunner.run(export + ["--output", "/dev/null"])
        #expect(toNull.status == 0, "\(toNull.stderr)")
        #expect(kind("/dev/null") == S_IFCHR, "/dev/null is still a character device")
        let link = scratch.file("null-link.csv")
        #expect(symlink("/dev/null", link) == 0)
        #expect(try CommandRunner.run(export + ["--output", link]).status == 0)
        #expect(kind(link) == S_IFLNK, "the link is not replaced")

        let expected = try CommandRunner.run(export)
        #expect(expected.status == 0 && expected.stdout.hasPrefix("recording_id,"))
        let dash = try CommandRunner.run(export + ["--output", "-"])
        #expect(dash.status == 0 && dash.stdout == expected.stdout, "- is standard output")

        for force in [false, true] {
            let fifo = scratch.file("pipe-\(force).csv")
            #expect(mkfifo(fifo, 0o644) == 0)
            let received = Received()
            let reader = Thread { received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()) }
            reader.start()
            let result = try CommandRunner.run(export + ["--output", fifo] + (force ? ["--force"] : []))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(received.wait(seconds: 60).map { String(decoding: $0, as: UTF8.self) } == expected.stdout, "what the pipe carried")
            #expect(kind(fifo) == S_IFIFO, "the FIFO is still a FIFO")
        }

        let folder = scratch.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let refused = try CommandRunner.run(export + ["--output", folder])
        #expect(refused.status == 2 && refused.stderr.contains("\(folder): error: this is a folder"), "\(refused.stderr)")
    }

    /// What a reader thread got, handed over once.
    final class Received: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data: Data?
        func set(_ value: Data) { data = value; done.signal() }
        func wait(seconds: Double) -> Data? { done.wait(timeout: .now() + seconds) == .success ? data : nil }
    }

    /// `export --output` never writes over the database it reads (by name, relative path or link), nor over a recording,
    /// and replaces a file that is not an earlier export only with --force.
    @Test func exportNeverOverwritesTheDatabaseOrARecording() throws {
        let scratch = Scratch()
        let night = scratch.file("night.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)
        func rows() throws -> [Int] {
            let queue = try DatabaseQueue(path: db)
            defer { try? queue.close() }
            return try queue.read { db in
                try ["recordings", "windows", "episodes", "alerts", "sound_events"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
                    + [try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" ? 1 : 0]
            }
        }
        let databaseBefore = try rows()
        let audioBefore = try Data(contentsOf: URL(fileURLWithPath: night))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.csv"), withDestinationPath: db)
        for target in [db, "./db.sqlite", scratch.file("link.csv"), db + "-wal"] {
            let result = try CommandRunner.run(["export", "--db", db, "--format", "csv", "--output", target], directory: scratch.path)
            #expect(result.status == 2, "\(target): \(result.stderr)")
            #expect(result.stderr.contains("this is the database being read"), "\(target): \(result.stderr)")
        }
        let onAudio = try CommandRunner.run(["export", "--db", db, "--format", "dcase", "--output", night])
        #expect(onAudio.status == 2 && onAudio.stderr.contains("this is an analysed recording"), "\(onAudio.stderr)")
        #expect(try rows() == databaseBefore, "the database is whole, every row still there")
        #expect(try Data(contentsOf: URL(fileURLWithPath: night)) == audioBefore, "the recording is untouched")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))

        // Someone else's file needs --force; an earlier export of ours is simply replaced.
        let notes = scratch.file("notes.csv")
        try "my notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["export", "--db", db, "--format", "csv", "--output", notes])
        #expect(refused.status == 2 && refused.stderr.contains("pass --force"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
        #expect(try CommandRunner.run(["export", "--db", db, "--format", "csv", "--output", notes, "--force"]).status == 0)
        #expect(try CommandRunner.run(["export", "--db", db, "--format", "csv", "--output", notes]).status == 0, "ours now")
        #expect(try String(contentsOfFile: notes, encoding: .utf8).hasPrefix("recording_id,"))
    }

    /// Two recordings that start at the same moment (same file name, two folders) give clips with different names:
    /// none overwrites another, the count is what was written, and cutting again into the same folder writes the same
    /// clips again (they are the tool's own, known by their header) while a stranger's file of a clip's name is kept.
    @Test func clipsOfRecordingsStartingTogetherNeverOverwriteEachOther() throws {
        let scratch = Scratch()
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: true)
        }
        // The same start time (from the name), different audio: the sample night, and half a minute of smoke alarm.
        try FileManager.default.copyItem(atPath: sampleNight, toPath: scratch.file("a/sleep_recording_1795302000.caf"))
        let alarm = try CommandRunner.run(["signal", "alarm", "--seconds", "30", "--output",
                                           scratch.file("b/sleep_recording_1795302000.wav")], product: "somniq-synth")
        #expect(alarm.status == 0, "\(alarm.stderr)")
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", scratch.file("a"), scratch.file("b"), "--db", db, "--profile", "very-sensitive",
                                       "--model", CommandRunner.root + "/models/rules", "--quiet"]).status == 0)
        let out = scratch.file("clips")
        let first = try CommandRunner.run(["clips", "--db", db, "--profile", "very-sensitive", "--output", out])
        #expect(first.status == 0, "\(first.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".wav") }
        #expect(first.stderr.contains("wrote \(files.count) clips"), "\(first.stderr) against \(files.count) files")
        #expect(Set(files.map { $0.components(separatedBy: "_")[1] }).count == 2, "clips of both recordings: \(files)")
        let bytes = try files.map { try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)) }
        // A file of the user's under the name of a clip is kept, and the clip takes the next name.
        let stranger = out + "/" + files[0]
        try FileManager.default.removeItem(atPath: stranger)
        try Data("the user's own notes".utf8).write(to: URL(fileURLWithPath: stranger))
        let second = try CommandRunner.run(["clips", "--db", db, "--profile", "very-sensitive", "--output", out])
        #expect(second.status == 0)
        let again = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".wav") }
        #expect(again.count == files.count + 1, "the second run wrote its own clips again and one copy (~2) beside the stranger")
        #expect(try String(contentsOfFile: stranger, encoding: .utf8) == "the user's own notes")
        let moved = (files[0] as NSString).deletingPathExtension + "~2.wav"
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + moved)) == bytes[0])
        for (file, earlier) in zip(files, bytes).dropFirst() {
            #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + file)) == earlier, "\(file) written again, byte for byte")
        }
    }

    /// Labels from someone's annotation file reach evaluate's CSV: a cell a spreadsheet would run as a formula is
    /// written with a leading quote, and the rows still parse (read back by CSV.swift).
    @Test func csvCellsThatLookLikeFormulasAreNeutralised() throws {
        let scratch = Scratch()
        let labels = scratch.file("labels.tsv")
        let file = (sampleNight as NSString).lastPathComponent
        try "\(file)\t10.0\t20.0\t=HYPERLINK(\"http://x\",\"y\")\n\(file)\t30.0\t40.0\t-cmd|' /C calc'!A0\n\(file)\t50.0\t60.0\t@SUM(1)\n"
            .write(toFile: labels, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["evaluate", sampleNight, "--labels", labels, "--profile", "balanced", "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try CSVReader(string: result.stdout, hasHeaderRow: true)
        var seen = Set<String>()
        while let row = reader.next() {
            for cell in row where cell.contains("HYPERLINK") || cell.contains("cmd|") || cell.contains("SUM(") {
                #expect(cell.hasPrefix("'"), "\(cell)")
                seen.insert(String(cell.dropFirst()))
            }
        }
        #expect(seen == ["=HYPERLINK(\"http://x\",\"y\")", "-cmd|' /C calc'!A0", "@SUM(1)"])
    }

    /// A model whose class id is a path (or a formula) is refused when loaded, naming the file and field, so the id
    /// can never become a clip path outside --output or a cell in a report.
    @Test func aModelWithAPathForAClassIdIsRefused() throws {
        let scratch = Scratch()
        let model = scratch.file("model")
        try FileManager.default.copyItem(atPath: CommandRunner.root + "/models/rules", toPath: model)
        let json = model + "/model.json"
        let text = try String(contentsOfFile: json, encoding: .utf8)
        try text.replacingOccurrences(of: "\"id\": \"snoring\"", with: "\"id\": \"../../escaped\"")
            .write(toFile: json, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["analyze", sampleNight, "--db", scratch.file("db.sqlite"), "--model", model, "--quiet"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(json) && result.stderr.contains("not a plain identifier"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("db.sqlite")) || result.stdout.isEmpty)
    }

    /// A file name with a line break (or a terminal escape) cannot forge a line: errors and reports print it escaped,
    /// one file on one line.
    @Test func namesWithLineBreaksPrintOnOneLine() throws {
        let scratch = Scratch()
        let bad = scratch.file("bad\nfake.wav: ok\u{1B}[31m.wav")
        try "not audio at all".write(toFile: bad, atomically: true, encoding: .utf8)
        let good = scratch.file("good\nforged line.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: good)
        let result = try CommandRunner.run(["classify", bad, good, "--model", CommandRunner.root + "/models/rules"])
        #expect(result.status == 1, "\(result.stderr)")
        let errorLines = result.stderr.split(separator: "\n").filter { $0.contains("error") }
        #expect(errorLines.count == 1, "\(result.stderr)")
        #expect(errorLines.first?.contains("bad\\nfake.wav: ok\\u{1B}[31m.wav: error:") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}[31m"))
        #expect(result.stdout.contains("good\\nforged line.caf: "), "\(result.stdout.prefix(300))")
        #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("forged line") })
    }

    /// `--db` naming another application's SQLite file: every command refuses it, changing nothing (it used to gain our
    /// tables and WAL mode even from export); `analyze --adopt-database` is the way to share a file on purpose.
    @Test func anotherApplicationsDatabaseIsRefusedByEveryCommand() throws {
        let scratch = Scratch()
        let db = scratch.file("photos.sqlite")
        let queue = try DatabaseQueue(path: db)
        try queue.write { try $0.execute(sql: "CREATE TABLE photos (name TEXT); INSERT INTO photos VALUES ('beach.jpg')") }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for arguments in [["analyze", sampleNight, "--quiet"], ["export", "--format", "csv"], ["compare", "1"], ["clips", "--output", scratch.file("clips")],
                          ["recordings"], ["tag", "1", "--add", "x"], ["remove", "1"]] {
            let result = try CommandRunner.run(arguments + ["--db", db])
            #expect(result.status == 2, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("photos.sqlite: error: not a somniq-analyze database (it holds other tables: photos)"),
                    "\(arguments[0]): \(result.stderr)")
            // The way to share the file is named as the command that takes it (only `analyze` does).
            #expect(result.stderr.contains("'somniq-analyze analyze FILE --db \(db) --adopt-database'"), "\(arguments[0]): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("photos") } == ["photos.sqlite"])
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet", "--adopt-database"]).status == 0)
        #expect(try CommandRunner.run(["export", "--db", db, "--format", "csv"]).status == 0)
    }

    /// An empty SQLite file as --db (`sqlite3 e.sqlite` leaves one): every command that only reads says it is empty,
    /// with exit status 2, where they said "database read failed: no such table: recordings" (or profile_runs, or
    /// night_tags) with status 1, prefixed "Error:" twice.
    @Test func anEmptyDatabaseIsSaidToBeEmpty() throws {
        let scratch = Scratch()
        let db = scratch.file("e.sqlite")
        #expect(FileManager.default.createFile(atPath: db, contents: Data()))
        for arguments in [["recordings"], ["report", "--output", scratch.file("r.html")], ["export", "--format", "csv"], ["trends"],
                          ["compare", "1"], ["clips", "--output", scratch.file("clips")]] {
            let result = try CommandRunner.run(arguments + ["--db", db])
            #expect(result.status == 2, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("\(db): error: an empty database, with no analyses to read (nothing was changed)"),
                    "\(arguments[0]): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)).isEmpty)
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0, "a command that writes takes it as new")
        #expect(try CommandRunner.run(["recordings", "--db", db]).status == 0)
    }

    /// A recording cut short in place after it was analysed: the new attempt fails and is recorded, and the good
    /// analysis stays, findable by its path (it used to be deleted, leaving only the failure).
    @Test func aFailedReanalysisKeepsTheGoodAnalysis() throws {
        let scratch = Scratch()
        let night = try Nights.copies(into: scratch.file("in"), count: 1)[0]
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)
        let handle = try #require(FileHandle(forWritingAtPath: night))
        try handle.truncate(atOffset: try handle.seekToEnd() / 2)
        try handle.close()
        for extra in [[], ["--reanalyze"]] {
            let again = try CommandRunner.run(["analyze", night, "--db", db] + extra)
            #expect(again.status == 1, "\(again.stderr)")
            #expect(again.stderr.contains("truncated") && again.stderr.contains("(the earlier analysis of this file is kept)"), "\(again.stderr)")
            let exported = try CommandRunner.run(["export", "--db", db, "--recording", night, "--what", "windows", "--format", "csv"])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stdout.split(whereSeparator: \.isNewline).count > 400, "every window of the four-minute night is still there")
        }
        let statuses = try DatabaseQueue(path: db).read { try String.fetchAll($0, sql: "SELECT status FROM recordings ORDER BY id") }
        #expect(statuses == ["complete", "failed"])
    }

    /// The sample night (`night.caf`) analysed into `db.sqlite` in `scratch`, beside a folder `locked` of mode 555.
    private func analysedNightBesideALockedFolder(_ scratch: Scratch) throws -> (db: String, locked: String) {
        let db = scratch.file("db.sqlite"), locked = scratch.file("locked")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: scratch.file("night.caf"))
        #expect(try CommandRunner.run(["analyze", scratch.file("night.caf"), "--db", db, "--quiet"]).status == 0)
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
        return (db, locked)
    }

    /// `clips --output` naming a folder that exists but cannot be written: one plain message and exit 2, before any
    /// cutting (it used to print a raw NSCocoaErrorDomain error and ask whether the recording had moved).
    @Test func clipsIntoAFolderThatCannotBeWrittenSaysSo() throws {
        let scratch = Scratch()
        let fileManager = FileManager.default
        let (db, locked) = try analysedNightBesideALockedFolder(scratch)
        // As root every folder is writable; run as nobody so that permissions mean something.
        let asRoot = getuid() == 0
        if asRoot {
            try fileManager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: scratch.path)
            try fileManager.setAttributes([.posixPermissions: 0o666], ofItemAtPath: db)
        }
        let result = try CommandRunner.run(["clips", "--db", db, "--output", locked], asUser: asRoot ? 65534 : nil)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(locked): error: cannot write into this folder: Permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("moved"), "\(result.stderr)")
        #expect(try fileManager.contentsOfDirectory(atPath: locked).isEmpty)
    }

    /// A database the user may not write (its file, or a new one in a folder that is not theirs): what stands in the
    /// way, and that the commands which only read still work; it was "cannot open the database: attempt to write a
    /// readonly database" or "unable to open database file", SQLite's words.
    @Test func aDatabaseTheUserMayNotWriteSaysWhy() throws {
        let scratch = Scratch()
        let fileManager = FileManager.default
        let (db, locked) = try analysedNightBesideALockedFolder(scratch)
        try fileManager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        // As root every file is writable; run as nobody so that permissions mean something.
        let asRoot = getuid() == 0
        if asRoot {
            try fileManager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: scratch.path)
            try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: scratch.file("night.caf"))
        }
        let user: UInt32? = asRoot ? 65534 : nil
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let file = try CommandRunner.run(["analyze", scratch.file("night.caf"), "--db", db, "--profile", "all"], asUser: user)
        #expect(file.status == 2, "\(file.stderr)")
        #expect(file.stderr.contains("\(db): error: cannot write the database: its permissions do not let you write it; nothing "
                                     + "was changed. Commands that only read it (recordings, report, export, clips) work where it is"),
                "\(file.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        let read = try CommandRunner.run(["recordings", "--db", db], asUser: user)
        #expect(read.status == 0 && read.stdout.contains("night.caf"), "\(read.stderr)")

        let new = locked + "/new.sqlite"
        let folder = try CommandRunner.run(["analyze", scratch.file("night.caf"), "--db", new], asUser: user)
        #expect(folder.status == 2, "\(folder.stderr)")
        #expect(folder.stderr.contains("\(new): error: cannot create the database: the folder \(locked) does not let you write in "
                                       + "it (SQLite keeps its log beside the database); nothing was created"), "\(folder.stderr)")
        #expect(try fileManager.contentsOfDirectory(atPath: locked).isEmpty)
    }

    /// Two files with the same audio (a copy beside the original): one analysis, and both files stay findable, each
    /// with its own name (the copy used to take the original's row, which then could not be exported by its path).
    @Test func everyFileHoldingTheAudioStaysFindable() throws {
        let scratch = Scratch()
        let first = scratch.file("night.caf"), copy = scratch.file("copy of night.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: first)
        try FileManager.default.copyItem(atPath: sampleNight, toPath: copy)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", first, "--db", db, "--quiet"]).status == 0)
        let second = try CommandRunner.run(["analyze", copy, "--db", db])
        #expect(second.status == 0 && second.stderr.contains("0 analysed, 0 skipped (already done), 1 skipped (the same audio as "
                                                             + "another file stored)"), "\(second.stderr)")
        #expect(second.stderr.contains("\(copy): skipped: same audio as \(first), already analysed"), "\(second.stderr)")
        var exported: [String] = []
        for path in [first, copy] {
            let result = try CommandRunner.run(["export", "--db", db, "--recording", path, "--format", "csv"])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            exported.append(result.stdout)
        }
        #expect(exported[0] == exported[1] && exported[0].contains("snoring"), "one analysis, found by either path")
        let (paths, locations) = try DatabaseQueue(path: db).read { db in
            (try String.fetchAll(db, sql: "SELECT path FROM recordings"),
             try String.fetchAll(db, sql: "SELECT path FROM recording_locations ORDER BY path"))
        }
        #expect(paths == [first], "the recording keeps its first file")
        #expect(locations == [copy, first].sorted())
        // A rerun skips both files without decoding.
        let rerun = try CommandRunner.run(["analyze", first, copy, "--db", db])
        #expect(rerun.stderr.contains("0 analysed, 2 skipped"), "\(rerun.stderr)")
    }

    /// A file whose name is not valid UTF-8 (Latin-1 bytes from an old recorder, say), found in a folder or named on
    /// the command line: refused with a message that says so, rather than "no such file".
    @Test func aNameThatIsNotUTF8IsNamedAsSuch() throws {
        let scratch = Scratch()
        let folder = scratch.file("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let audio = try Data(contentsOf: URL(fileURLWithPath: sampleNight))
        let raw: [UInt8] = Array((folder + "/nuit ").utf8) + [0xE9, 0x74, 0xE9] + Array(".caf".utf8) + [0]  // "nuit été" in Latin-1
        let descriptor = raw.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                                                            O_WRONLY | O_CREAT, 0o644) }
        try #require(descriptor >= 0)
        _ = audio.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let result = try CommandRunner.run(["classify", folder])
        #expect(result.status != 0)
        #expect(result.stderr.contains("the file name is not valid UTF-8") && result.stderr.contains("rename"), "\(result.stderr)")
        #expect(!result.stderr.contains("no such file"), "\(result.stderr)")
    }
}

/// Names that would act rather than show (#45 item 16): a recording named with ESC, a right-to-left override, a tab,
/// a carriage return and a line break shows them as what they are in the report's title and body, and a file name
/// a spreadsheet would take for a formula starts its DCASE row with a `'`, which the tool reads back off.
@Suite struct HiddenCharacterTests {
    @Test func aReportShowsControlCharactersAndBidiOverridesAsWhatTheyAre() throws {
        let scratch = Scratch()
        let name = "=night\u{1B}[31m\u{202E}vaw.exe\tx\ry\nz.caf"
        let recording = scratch.file(name)
        try FileManager.default.copyItem(atPath: sampleNight, toPath: recording)
        let db = scratch.file("db.sqlite")
        let analysed = try CommandRunner.run(["analyze", recording, "--db", db, "--quiet", "--start", "2026-11-21T23:00:00Z"])
        #expect(analysed.status == 0, "\(analysed.stderr)")
        let page = scratch.file("night.html")
        let report = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--timezone", "UTC", "--output", page])
        #expect(report.status == 0, "\(report.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        for hidden in ["\u{1B}", "\u{202E}", "\t", "\r"] {
            #expect(!html.contains(hidden), "the page holds \(hidden.unicodeScalars.first!.value) raw")
        }
        #expect(html.contains("=night\u{241B}[31m[U+202E]vaw.exe\u{2409}x\u{240D}y\u{240A}z.caf"), "shown as what it is")
        let title = try #require(html.range(of: "<title>").map { html[$0.upperBound...].prefix { $0 != "<" } })
        #expect(!title.contains("\n") && title.contains("\u{241B}"), "the page's title: \(title)")

        let dcase = scratch.file("events.tsv")
        let exported = try CommandRunner.run(["export", "--db", db, "--format", "dcase", "--profile", "balanced", "--output", dcase])
        #expect(exported.status == 0, "\(exported.stderr)")
        let rows = try String(contentsOfFile: dcase, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix("'=night") }, "neutralised: \(rows.prefix(2))")
        // The tool reads its own table back: the events score perfectly against themselves, under the file's real name.
        let scored = try CommandRunner.run(["evaluate", recording, "--labels", dcase, "--profile", "balanced", "--format", "csv"])
        #expect(scored.status == 0, "\(scored.stderr)")
        #expect(scored.stdout.contains("balanced,event,overall,micro,1,1,1,0,"), "\(scored.stdout.prefix(600))")
    }
}

/// A model of more classes than the documented limit (`ClassifierModel.maximumClasses`, 256) is refused when it is
/// loaded, saying so (#45 item 17: 20,000 valid classes took 138 s over a 4-minute night); the limit itself loads.
@Suite struct ClassLimitTests {
    func model(classes: Int, in scratch: Scratch) throws -> String {
        let rules = CommandRunner.root + "/models/rules"
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rules + "/model.json"))) as! [String: Any]
        var definitions = json["classes"] as! [[String: Any]]
        let silence = definitions.first { $0["id"] as? String == "silence" }!
        for index in definitions.count..<classes {
            var copy = silence
            copy["id"] = "quiet_\(index)"
            definitions.append(copy)
        }
        json["classes"] = definitions
        return try scratch.modelFolder("model-\(classes)", model: JSONSerialization.data(withJSONObject: json), profiles: rules)
    }

    @Test func aModelOfMoreClassesThanTheLimitIsRefused() throws {
        let scratch = Scratch()
        let tooMany = try CommandRunner.run(["classes", "--model", try model(classes: 257, in: scratch)])
        #expect(tooMany.status != 0)
        #expect(tooMany.stderr.contains("a model has at most 256 classes, this one 257"), "\(tooMany.stderr)")
        let limit = try CommandRunner.run(["classes", "--model", try model(classes: 256, in: scratch)])
        #expect(limit.status == 0, "\(limit.stderr)")
    }
}

/// The commands that only read (#45 items 6-8) open the database read-only: they never wait on a writer, never change
/// a byte of the file, and leave nothing beside it, also when its owner made it read-only.
@Suite struct ReadOnlyCommandTests {
    func digest(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func readers(_ db: String, scratch: Scratch) -> [[String]] {
        [["recordings", "--db", db],
         ["export", "--db", db, "--format", "csv", "--output", "-"],
         ["compare", "1", "--db", db],
         ["report", "1", "--db", db, "--no-audio", "--timezone", "UTC", "--output", scratch.file("night-\(UUID().uuidString).html")]]
    }

    @Test func readingLeavesTheFileByteForByteAndNothingBesideIt() throws {
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        let before = try digest(db)
        for command in readers(db, scratch: scratch) {
            let result = try CommandRunner.run(command)
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            #expect(try digest(db) == before, "\(command[0]) changed the database")
            #expect(!FileManager.default.fileExists(atPath: db + "-wal") && !FileManager.default.fileExists(atPath: db + "-shm"),
                    "\(command[0]) left a -wal or -shm beside it")
        }
    }

    @Test func aReaderDoesNotWaitOnAWriter() throws {
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        let writer = try DatabasePool(path: db)
        try writer.writeWithoutTransaction { connection in
            try connection.execute(sql: "BEGIN IMMEDIATE")
            try connection.execute(sql: "CREATE TABLE scratch_pad (x)")
            let started = Date()
            let listed = try CommandRunner.run(["recordings", "--db", db])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("sleep_recording_1795302000.caf"))
            #expect(Date().timeIntervalSince(started) < 10, "the reader did not wait for the writer's transaction")
            try connection.execute(sql: "ROLLBACK")
        }
        try writer.close()
    }

    @Test func aDatabaseMadeReadOnlyByItsOwnerIsReadAndStaysWritableOnceAllowed() throws {
        guard getuid() != 0 else { return }  // root writes through any permission: nothing to check
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        #expect(chmod(db, 0o444) == 0)
        for _ in 0..<2 {
            let listed = try CommandRunner.run(["recordings", "--db", db])
            #expect(listed.status == 0, "\(listed.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: db + "-shm"), "no read-only -shm left to stop a later writer")
        #expect(chmod(db, 0o644) == 0)
        let night = scratch.file("other.caf")
        try FileManager.default.copyItem(atPath: CommandRunner.root + "/fixtures/nights/apnea-night_8k.caf", toPath: night)
        let analysed = try CommandRunner.run(["analyze", night, "--db", db, "--quiet"])
        #expect(analysed.status == 0, "\(analysed.stderr)")
    }
}
