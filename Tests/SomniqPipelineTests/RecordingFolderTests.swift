import Foundation
import SomniqPipeline
import Testing

/// Waiting on a recorder's folder (`follow FOLDER`): a recording written there ends the wait; a folder away for a moment
/// (a sync tool swapping it for a copy) is waited out; one away for good ends the wait.
@Suite struct RecordingFolderTests {
    /// A recorder that starts a folder a night writes into a folder directly inside the one followed: folders changed
    /// recently are looked into, old ones (years of nights) and deeper ones are not, nor hidden ones.
    @Test func recordingsInARecentFolderInsideAreFound() throws {
        let scratch = NSTemporaryDirectory() + "somniq-folder-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let manager = FileManager.default
        for folder in ["2026-11-21", "2026-11-22", ".hidden", "2026-11-22/deeper"] {
            try manager.createDirectory(atPath: scratch + "/" + folder, withIntermediateDirectories: true)
        }
        for file in ["top.wav", "notes.txt", "2026-11-21/old.wav", "2026-11-22/new.flac", "2026-11-22/log.txt", ".hidden/x.wav",
                     "2026-11-22/deeper/deep.wav"] {
            manager.createFile(atPath: scratch + "/" + file, contents: Data([0]))
        }
        let now = Date()
        // The night of the 21st ended two days ago: its folder last changed then.
        try manager.setAttributes([.modificationDate: now.addingTimeInterval(-48 * 3600)], ofItemAtPath: scratch + "/2026-11-21")
        let folder = RecordingFolder(path: scratch)
        #expect(folder.recordings(now: now).map(\.path) == [scratch + "/2026-11-22/new.flac", scratch + "/top.wav"])
        // Seen from two days later, the 22nd's folder is old too.
        #expect(folder.recordings(now: now.addingTimeInterval(48 * 3600)).map(\.path) == [scratch + "/top.wav"])
        // The next to follow: the earliest written since the follow began, wherever it is.
        try manager.setAttributes([.modificationDate: now.addingTimeInterval(-10)], ofItemAtPath: scratch + "/2026-11-22/new.flac")
        #expect(folder.next(since: now.addingTimeInterval(-60), excluding: []) == scratch + "/2026-11-22/new.flac")
        #expect(folder.next(since: now.addingTimeInterval(-60), excluding: [scratch + "/2026-11-22/new.flac"]) == scratch + "/top.wav")
    }

    @Test func aFolderAwayForAMomentIsWaitedOutAndOneGoneEndsTheWait() throws {
        let scratch = NSTemporaryDirectory() + "somniq-folder-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/card"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let folder = RecordingFolder(path: path)
        let since = Date().addingTimeInterval(-1)
        #expect(folder.isThere())

        // Away for about 0.3 s of a 2 s grace, then back with a recording in it: the wait finds the recording.
        var polls = 0
        let found = folder.waitForNext(since: since, excluding: [], pollSeconds: 0.05, goneAfter: 2) {
            polls += 1
            if polls == 2 { try? FileManager.default.moveItem(atPath: path, toPath: path + ".swap") }
            if polls == 8 {
                try? FileManager.default.moveItem(atPath: path + ".swap", toPath: path)
                FileManager.default.createFile(atPath: path + "/night.wav", contents: Data([0]))
            }
            return polls > 200
        }
        #expect(found == .recording(path + "/night.wav"), "\(polls) polls")

        // Gone for good: the wait ends once the grace has passed, not at once and not never.
        try FileManager.default.removeItem(atPath: path)
        #expect(!folder.isThere())
        polls = 0
        let gone = folder.waitForNext(since: since, excluding: [], pollSeconds: 0.05, goneAfter: 0.5) {
            polls += 1
            return polls > 200
        }
        #expect(gone == .folderGone)
        #expect((9...30).contains(polls), "about 0.5 s of 0.05 s polls: \(polls)")

        // Asked to stop: stopped, whatever the folder.
        #expect(folder.waitForNext(since: since, excluding: [], pollSeconds: 0.05, goneAfter: 60) { true } == .stopped)
        // A file where the folder was is no folder.
        FileManager.default.createFile(atPath: path, contents: Data())
        #expect(!folder.isThere())
    }
}
