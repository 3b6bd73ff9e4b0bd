import Foundation
import GRDB
import Testing

/// `remove`: a recording taken out of the database with everything stored of it, the others untouched; nothing removed
/// when any recording named is not there.
@Suite struct RemoveCommandTests {
    /// Rows of recording `id` in every table that keeps rows of a recording, and the tags of the audio `hash`.
    static func rows(of id: Int64, hash: String?, in db: String) throws -> [String: Int] {
        let queue = try DatabaseQueue(path: db)
        return try queue.read { db in
            let tables = try String.fetchAll(db, sql: """
                SELECT m.name FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
                WHERE m.type = 'table' AND f."table" = 'recordings'
                """)
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE recording_id = ?", arguments: [id]) ?? 0
            }
            counts["recordings"] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings WHERE id = ?", arguments: [id]) ?? 0
            counts["night_tags"] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM night_tags WHERE content_hash = ?", arguments: [hash]) ?? 0
            return counts
        }
    }

    static func idAndHash(ofPath path: String, in db: String) throws -> (Int64, String?)? {
        try DatabaseQueue(path: db).read { db in
            try Row.fetchOne(db, sql: "SELECT id, content_hash FROM recordings WHERE path = ?", arguments: [path])
                .map { ($0["id"], $0["content_hash"]) }
        }
    }

    @Test func aRecordingIsRemovedWithEverythingStoredOfItAndTheOthersKept() throws {
        let scratch = Scratch()
        let (night, other, bad) = try scratch.nightOtherAndNotes(other: CommandRunner.root + "/fixtures/nights/rainy-night_16k.flac")
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, other, bad, "--db", db, "--profile", "all", "--quiet"]).status == 1)
        let (nightID, nightHash) = try #require(try Self.idAndHash(ofPath: night, in: db))
        let (otherID, otherHash) = try #require(try Self.idAndHash(ofPath: other, in: db))
        let (badID, _) = try #require(try Self.idAndHash(ofPath: bad, in: db))
        #expect(try CommandRunner.run(["tag", night, other, "--add", "mouthguard", "--db", db]).status == 0)
        let nightBefore = try Self.rows(of: nightID, hash: nightHash, in: db)
        let otherBefore = try Self.rows(of: otherID, hash: otherHash, in: db)
        for table in ["recordings", "windows", "detections", "alerts", "episodes", "profile_runs", "sound_events", "night_tags"] {
            #expect(nightBefore[table, default: 0] > 0 && otherBefore[table, default: 0] > 0, "\(table): the check can fail")
        }

        // Nothing named, or one name not found: usage errors, and nothing removed.
        let unnamed = try CommandRunner.run(["remove", "--db", db])
        #expect(unnamed.status == 64 && unnamed.stderr.contains("name the recordings to remove") && unnamed.stderr.contains("--failed"),
                "\(unnamed.stderr)")
        let mistyped = try CommandRunner.run(["remove", night, scratch.file("nigth.caf"), "--db", db])
        #expect(mistyped.status == 64 && mistyped.stderr.contains("no analysed recording"), "\(mistyped.stderr)")
        #expect(try Self.rows(of: nightID, hash: nightHash, in: db) == nightBefore, "a mistyped name removes nothing")

        // By path, and the failed file by its path too.
        let removed = try CommandRunner.run(["remove", night, bad, "--db", db])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "\(nightID)\t\(night)\tmouthguard\n\(badID)\t\(bad)\t\n", "\(removed.stdout)")
        #expect(removed.stderr.contains("removed 2 recordings from \(db)"), "\(removed.stderr)")
        for (table, count) in try Self.rows(of: nightID, hash: nightHash, in: db) {
            #expect(count == 0, "\(table) keeps \(count) rows of the removed night")
        }
        #expect(try Self.rows(of: badID, hash: nil, in: db)["recordings"] == 0)
        #expect(try Self.rows(of: otherID, hash: otherHash, in: db) == otherBefore, "the other night is untouched")
        #expect(FileManager.default.fileExists(atPath: night), "the audio file stays")
        let listed = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"])
        #expect(!listed.stdout.contains(night) && !listed.stdout.contains(bad) && listed.stdout.contains(other), "\(listed.stdout)")

        // Analysed again, the night is stored afresh, without the tags that went with it; by id too.
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)
        let tags = try CommandRunner.run(["tag", night, "--db", db])
        #expect(tags.stdout.hasSuffix("\t\(night)\t\n"), "\(tags.stdout)")
        let (againID, _) = try #require(try Self.idAndHash(ofPath: night, in: db))
        #expect(againID != nightID)
        let byID = try CommandRunner.run(["remove", String(againID), "--db", db])
        #expect(byID.status == 0 && byID.stdout == "\(againID)\t\(night)\t\n", "\(byID.stdout) \(byID.stderr)")
        #expect(try Self.rows(of: otherID, hash: otherHash, in: db) == otherBefore)
    }

    /// `--failed` clears every file whose analysis failed (kept so that `recordings` says why), and only those.
    @Test func everyFailedFileIsRemovedAtOnce() throws {
        let scratch = Scratch()
        let (night, _, notes) = try scratch.nightOtherAndNotes(other: CommandRunner.root + "/fixtures/nights/rainy-night_16k.flac")
        let empty = scratch.file("empty.wav")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, notes, empty, "--db", db, "--quiet"]).status == 1)
        let (nightID, nightHash) = try #require(try Self.idAndHash(ofPath: night, in: db))
        let nightBefore = try Self.rows(of: nightID, hash: nightHash, in: db)
        let failedIDs = try [notes, empty].map { try #require(try Self.idAndHash(ofPath: $0, in: db)).0 }

        let result = try CommandRunner.run(["remove", "--failed", "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").sorted() == ["\(failedIDs[0])\t\(notes)\t", "\(failedIDs[1])\t\(empty)\t"].sorted(),
                "\(result.stdout)")
        for id in failedIDs { #expect(try Self.rows(of: id, hash: nil, in: db)["recordings"] == 0) }
        #expect(try Self.rows(of: nightID, hash: nightHash, in: db) == nightBefore)
        let listed = try CommandRunner.run(["recordings", "--db", db])
        #expect(listed.stdout.contains("1 recording: 1 complete, 0 failed"), "\(listed.stdout)")
    }

    /// A removal the database refuses (here a trigger of the user's; a full disk or a lock held too long alike) keeps
    /// that recording whole, names it, and says what was removed before it.
    @Test func aRemovalRefusedKeepsTheRecordingWholeAndSaysSo() throws {
        let scratch = Scratch()
        let (night, other, _) = try scratch.nightOtherAndNotes(other: CommandRunner.root + "/fixtures/nights/rainy-night_16k.flac")
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, other, "--db", db, "--quiet"]).status == 0)
        let (nightID, nightHash) = try #require(try Self.idAndHash(ofPath: night, in: db))
        let (otherID, otherHash) = try #require(try Self.idAndHash(ofPath: other, in: db))
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TRIGGER keep_other BEFORE DELETE ON recordings WHEN OLD.id = \(otherID)
                BEGIN SELECT RAISE(ABORT, 'kept by the user'); END
                """)
        }
        try queue.close()
        let otherBefore = try Self.rows(of: otherID, hash: otherHash, in: db)

        let result = try CommandRunner.run(["remove", night, other, "--db", db])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("error: could not remove recording \(otherID) (\(other)); it is kept whole: ")
                && result.stderr.contains("kept by the user") && result.stderr.contains("(1 recording named before it removed)"),
                "\(result.stderr)")
        #expect(result.stdout == "\(nightID)\t\(night)\t\n", "\(result.stdout)")
        #expect(try Self.rows(of: nightID, hash: nightHash, in: db).values.allSatisfy { $0 == 0 })
        #expect(try Self.rows(of: otherID, hash: otherHash, in: db) == otherBefore)
    }

    @Test func aDatabaseThatIsNotThereIsNotCreated() throws {
        let scratch = Scratch()
        let db = scratch.file("none.sqlite")
        let result = try CommandRunner.run(["remove", "1", "--db", db])
        #expect(result.status == 2 && result.stderr.contains("no such database"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
