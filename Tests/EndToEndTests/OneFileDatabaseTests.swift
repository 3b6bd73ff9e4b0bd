import Foundation
import GRDB
import Testing

/// When a command that writes is done, the database file alone holds everything: no -wal or -shm beside it, and a
/// copy of the .sqlite file by itself reads every table.
@Suite struct OneFileDatabaseTests {
    static let tables = ["recordings", "windows", "detections", "profile_runs", "episodes", "alerts", "recording_envelopes",
                         "sound_events", "bouts"]

    /// Copies `db` alone (as a user mailing it would) and counts every table's rows in the copy.
    func rowsInACopyOf(_ db: String, scratch: Scratch) throws -> [String: Int] {
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "a -wal file is left beside \(db)")
        #expect(!FileManager.default.fileExists(atPath: db + "-shm"), "a -shm file is left beside \(db)")
        let copy = scratch.file("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        let queue = try DatabaseQueue(path: copy)
        return try queue.read { db in
            try Dictionary(uniqueKeysWithValues: Self.tables.map { ($0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1) })
        }
    }

    @Test func afterAnalyzeCompareExportAndClipsTheFileAloneHoldsEveryRow() throws {
        let scratch = Scratch()
        let db = scratch.file("night.sqlite")
        let analysed = try CommandRunner.run(["analyze", sampleNight, "--db", db, "--profile", "all", "--quiet"])
        #expect(analysed.status == 0, "\(analysed.stderr)")
        let rows = try rowsInACopyOf(db, scratch: scratch)
        for table in Self.tables { #expect((rows[table] ?? 0) > 0, "\(table) is empty in the copy: \(rows)") }
        #expect(rows["profile_runs"] == 5)
        for command in [["compare", "1", "--db", db], ["export", "--db", db, "--format", "csv"],
                        ["clips", "--db", db, "--output", scratch.file("clips")]] {
            let result = try CommandRunner.run(command)
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            #expect(try rowsInACopyOf(db, scratch: scratch) == rows, "after \(command[0])")
        }
    }

    @Test func anInterruptedBatchLeavesOneFileWithWhatWasDone() throws {
        let scratch = Scratch()
        _ = try Nights.copies(into: scratch.file("in"))
        let db = scratch.file("db.sqlite")
        let process = try CommandRunner.start(["analyze", scratch.file("in"), "--db", db, "--jobs", "1", "--quiet"])
        // Stopped once a first recording is stored.
        #expect(process.pause(once: { DatabaseCheck.storedRecordings(at: db) > 0 }), "stopped midway")
        process.send(SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        let rows = try rowsInACopyOf(db, scratch: scratch)
        let direct = try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM recordings WHERE status = 'complete'") }
        #expect(rows["recordings"] == direct && (direct ?? 0) > 0, "the copy holds the \(direct ?? 0) recordings stored before the signal")
    }

    @Test func anotherProcessHoldingTheDatabaseIsNamedNotWaitedFor() throws {
        let scratch = Scratch()
        let db = scratch.file("shared.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        // A reader in this process keeps the database open while another analysis writes to it.
        let reader = try DatabasePool(path: db)
        _ = try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM windows") }
        let second = try CommandRunner.run(["analyze", sampleNight, "--db", db, "--profile", "sensitive", "--quiet"])
        #expect(second.status == 0)
        #expect(second.stderr.contains("another process has the database open"), "\(second.stderr)")
        try reader.close()
    }
}
