import Foundation
@testable import SomniqFiles
import Testing

@Suite struct PartialFilesTests {
    @Test func onlyTheToolsPartialFilesOfEndedProcessesAreRemoved() throws {
        let folder = NSTemporaryDirectory() + "somniq-partial-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var gone: Int32 = 4_000_000
        while kill(gone, 0) == 0 || errno != ESRCH { gone -= 1 }
        let names = [".a.wav\(PartialFiles.marker)\(gone)", ".a.wav\(PartialFiles.marker)1", ".notes.partial-\(gone)", "plain.wav"]
        for name in names { try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        PartialFiles.removeStale(inFolder: folder)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        #expect(left == [".a.wav\(PartialFiles.marker)1", ".notes.partial-\(gone)", "plain.wav"],
                "the tool's own of an ended process goes; a running one's, and a user's look-alike, stay: \(left)")
    }

    @Test func aPartialFileIsCreatedExclusivelyAndPutInPlaceByRename() throws {
        let folder = NSTemporaryDirectory() + "somniq-partial-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let destination = folder + "/out.csv"
        let target = folder + "/precious"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: destination, withDestinationPath: target)
        guard case .success(let (descriptor, partial)) = PartialFiles.create(for: destination) else {
            Issue.record("no partial file")
            return
        }
        _ = "new".withCString { write(descriptor, $0, 3) }
        close(descriptor)
        if case .failure(let error) = PartialFiles.commit(partial, to: destination) { Issue.record("\(error)") }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious", "the link was replaced, not followed")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: partial))
    }
}
