import Foundation
import SomniqPipeline
import Testing

/// Waiting on a recorder's folder (`follow FOLDER`): a recording written there ends the wait; a folder away for a moment
/// (a sync tool swapping it for a copy) is waited out; one away for good ends the wait.
@Suite struct RecordingFolderTests {
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
