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
        #expect(classified.status != 0)
        #expect(classified.stderr.contains("not a regular file"), "\(classified.stderr)")
        #expect(Date().timeIntervalSince(started) < 120, "nothing waited on the FIFO")
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
    /// none overwrites another, the count is what was written, and cutting again into the same folder adds copies
    /// rather than replacing.
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
        let second = try CommandRunner.run(["clips", "--db", db, "--profile", "very-sensitive", "--output", out])
        #expect(second.status == 0)
        let again = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".wav") }
        #expect(again.count == 2 * files.count, "the second run added copies (~2) and replaced nothing")
    }
}
