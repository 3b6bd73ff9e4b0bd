import Foundation
import GRDB
@testable import SomniqStore
import Testing

/// A database is checked before anything is changed: someone else's is refused, a newer version's is refused, and
/// a command that only reads never upgrades an earlier version's.
@Suite struct DatabaseIdentityTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "somniq-identity-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    @Test func anotherApplicationsDatabaseIsLeftAsItWas() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.sqlite"
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for upgrade in [true, false] {
            do {
                _ = try AnalysisStore(path: path, upgrade: upgrade)
                Issue.record("opened another application's database")
            } catch {
                guard case .notOurs(_, let tables) = error else { Issue.record("\(error)"); continue }
                #expect(tables == ["notes"])
                #expect(error.description.contains("not a somniq-analyze database") && error.description.contains("--adopt-database"))
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "not a byte changed (no WAL switch, no tables)")
        #expect(try files() == ["notes.sqlite"])
        // Told to, it adds our tables beside the others.
        let adopted = try AnalysisStore(path: path, adoptForeign: true)
        try adopted.close()
        let check = try DatabaseQueue(path: path)
        #expect(try check.read { try String.fetchOne($0, sql: "SELECT text FROM notes") } == "keep me")
        #expect(try check.read { try $0.tableExists("recordings") })
        try check.close()
    }

    /// Found as a new user would: `--db` naming a folder said "unable to open database file; check the path, its folder's
    /// permissions and free space", and a recording given as the database "file is not a database" with the same advice.
    /// Each is now said as what it is, and the file is left as it was, no log or lock file beside it.
    @Test func aFolderOrAFileOfAnotherKindIsNamedAsSuch() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for upgrade in [true, false] {
            #expect {
                _ = try AnalysisStore(path: folder, upgrade: upgrade)
            } throws: { error in
                guard case .isFolder = error as? StoreError else { return false }
                return "\(error)" == "\(folder): error: is a folder, not a database; name a database file (e.g. \(folder)/somniq.sqlite, created if new)"
            }
        }
        let recording = folder + "/night.wav"
        let bytes = Data("RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ".utf8) + Data(repeating: 7, count: 4096)
        try bytes.write(to: URL(fileURLWithPath: recording))
        for upgrade in [true, false] {
            #expect {
                _ = try AnalysisStore(path: recording, upgrade: upgrade)
            } throws: { error in
                guard case .notADatabase = error as? StoreError else { return false }
                return "\(error)".hasPrefix("\(recording): error: not an SQLite database (nothing was changed)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: recording)) == bytes)
        #expect(try files() == ["night.wav"])
    }

    /// Found as a new user would: `--db study/nights.sqlite` before `study/` existed said "unable to open database
    /// file; check the path, its folder's permissions and free space". It now names the folder that is missing (or is
    /// a file), and nothing is created.
    @Test func aNewDatabaseInAFolderThatIsNotThereNamesTheFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = folder + "/study"
        let aFile = folder + "/notes.txt"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: aFile))
        for parent in [missing, aFile] {
            #expect {
                _ = try AnalysisStore(path: parent + "/nights.sqlite")
            } throws: { error in
                guard case .noFolder = error as? StoreError else { return false }
                return "\(error)" == "\(parent)/nights.sqlite: error: there is no folder \(parent) to create the database in "
                    + "(nothing was created); create that folder first, or name a database in a folder that exists"
            }
        }
        #expect(try files() == ["notes.txt"])
        // Once the folder is there, the database is created in it.
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: false)
        try AnalysisStore(path: missing + "/nights.sqlite").close()
        #expect(FileManager.default.fileExists(atPath: missing + "/nights.sqlite"))
    }

    /// Found as a new user would: an empty SQLite file (made by `sqlite3 night.sqlite`, or a zero-byte file) given to a
    /// command that only reads said "database read failed: no such table: recordings". It is now said to be empty,
    /// with what to do, and left as it was; a command that writes takes it as a new database.
    @Test func anEmptyDatabaseHasNothingToRead() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/empty.sqlite"
        for contents in [Data(), nil] {
            if let contents {
                try contents.write(to: URL(fileURLWithPath: path))
            } else {
                let queue = try DatabaseQueue(path: path)
                try queue.write { try $0.execute(sql: "CREATE TABLE scratch (x); DROP TABLE scratch") }
                try queue.close()
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect {
                _ = try AnalysisStore(path: path, upgrade: false)
            } throws: { error in
                guard case .noAnalyses = error as? StoreError else { return false }
                return "\(error)" == "\(path): error: an empty database, with no analyses to read (nothing was changed); analyse "
                    + "recordings into it first ('somniq-analyze analyze NIGHT.wav --db \(path)'), or name the database they were stored in"
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try files() == ["empty.sqlite"])
            let store = try AnalysisStore(path: path, upgrade: true)
            #expect(try store.recordings().isEmpty)
            try store.close()
            try FileManager.default.removeItem(atPath: path)
        }
    }

    @Test func aNewerVersionsDatabaseIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/somniq.sqlite"
        try AnalysisStore(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')") }
        try queue.close()
        for upgrade in [true, false] {
            #expect {
                _ = try AnalysisStore(path: path, upgrade: upgrade)
            } throws: { error in
                guard case .newerVersion(_, let steps) = error as? StoreError else { return false }
                return steps == ["v99-from-the-future"] && "\(error)".contains("newer version")
            }
        }
    }

    @Test func readingNeverUpgradesAnEarlierVersionsDatabase() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/somniq.sqlite"
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v3-undetectable-classes")
        try queue.close()
        #expect {
            _ = try AnalysisStore(path: path, upgrade: false)
        } throws: { error in
            guard case .olderVersion(_, let missing) = error as? StoreError else { return false }
            return missing == ["v4-sound-timing", "v5-locations", "v6-cut-short-and-levels", "v7-night-tags", "v8-night-summaries", "v9-partial-nights", "v10-recording-faults", "v11-channel", "v12-content-hash"] && "\(error)".contains("does not upgrade it")
        }
        let check = try DatabaseQueue(path: path)
        #expect(try !check.read { try $0.tableExists("sound_events") }, "the read changed nothing")
        try check.close()
        // A command that writes upgrades it; then reading works.
        try AnalysisStore(path: path).close()
        let reader = try AnalysisStore(path: path, upgrade: false)
        #expect(try reader.recordings().isEmpty)
        try reader.close()
    }

    /// A database written before the audio's identity was XXH3-128 names its column `content_sha256`: upgraded, the
    /// column is `content_hash`, holding the SHA-256 it held, the night's tags still joined to it, and the unique index
    /// on complete recordings still in force.
    @Test func theContentHashColumnIsRenamedWithItsValuesTagsAndIndex() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/somniq.sqlite"
        let older = String(repeating: "5e", count: 32)
        let store = try AnalysisStore(path: path)
        let id = try store.save(sampleData(path: "/nights/a.wav", contentHash: older), bundle: storeModelBundle, results: []).recordingID
        try store.changeTags(recordingID: id, adding: ["mouthguard"], removing: [])
        try store.close()
        // Back to before the step: the column's old name in both tables (and so in their index and key).
        let before = try DatabaseQueue(path: path)
        try before.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v12-content-hash'")
            try db.execute(sql: "ALTER TABLE recordings RENAME COLUMN content_hash TO content_sha256")
            try db.execute(sql: "ALTER TABLE night_tags RENAME COLUMN content_hash TO content_sha256")
        }
        let index = "SELECT sql FROM sqlite_master WHERE name = 'recordings_on_content'"
        #expect(try before.read { try String.fetchOne($0, sql: index) }?.contains("content_sha256") == true)
        try before.close()

        let upgraded = try AnalysisStore(path: path)
        #expect(try upgraded.completeAnalysis(contentHash: older)?.id == id)
        #expect(try upgraded.tags(recordingID: id) == ["mouthguard"])
        try upgraded.close()
        let after = try DatabaseQueue(path: path)
        let definition = try after.read { try String.fetchOne($0, sql: index) } ?? ""
        #expect(definition.contains("UNIQUE") && definition.contains("content_hash") && !definition.contains("content_sha256"), "\(definition)")
        let tagged = try after.read { try String.fetchAll($0, sql: "SELECT content_hash FROM night_tags") }
        #expect(tagged == [older])
        try after.close()
    }
}
