import Foundation
import SomniqFiles
import Testing

/// A class, so that each test's folder is removed when the test ends.
@Suite final class InputFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "somniq-input-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func path(_ name: String) -> String { folder + "/" + name }

    @Test func namesWhatAPathIsWhenItIsNoRegularFile() throws {
        #expect(mkfifo(path("fifo"), 0o644) == 0)
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: path("a"), withDestinationPath: path("b"))
        try FileManager.default.createSymbolicLink(atPath: path("b"), withDestinationPath: path("a"))
        try FileManager.default.createSymbolicLink(atPath: path("dangling"), withDestinationPath: path("gone"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: path("plain")))
        #expect(InputFile.problem(path: path("fifo")) == .notARegularFile(kind: "a FIFO (named pipe)"))
        #expect(InputFile.problem(path: "/dev/zero") == .notARegularFile(kind: "a character device"))
        #expect(InputFile.problem(path: path("folder")) == .isDirectory)
        #expect(InputFile.problem(path: path("a")) == .linkLoop)
        #expect(InputFile.problem(path: path("dangling")) == .brokenLink(target: path("gone")))
        #expect(InputFile.problem(path: path("missing")) == .notFound)
        #expect(InputFile.problem(path: path("plain")) == nil)
        #expect(InputFileProblem.linkLoop.reason.contains("loop of symbolic links"))
        #expect(!InputFileProblem.notARegularFile(kind: "a FIFO (named pipe)").reason.contains("permission"))
    }

    @Test func aFileTooLargeIsRefusedBeforeItIsReadWithItsSizeInBytes() throws {
        try Data(count: 2_049).write(to: URL(fileURLWithPath: path("big")))
        #expect(throws: InputFileProblem.tooLarge(bytes: 2_049, limit: 2_048)) { try InputFile.data(path: path("big"), maximumBytes: 2_048) }
        let reason = InputFileProblem.tooLarge(bytes: 17 << 20, limit: 16 << 20).reason
        #expect(reason.contains("17825792 bytes") && reason.contains("16777216 bytes, 16 MB"), "\(reason)")
        #expect(try InputFile.data(path: path("big"), maximumBytes: 2_049).count == 2_049)
    }

    @Test func textThatIsNotUTF8IsNamedWithItsLineAndByte() throws {
        try Data("path\tlabel\nn\u{E9}.wav\tcough\n".data(using: .isoLatin1)!).write(to: URL(fileURLWithPath: path("latin1.tsv")))
        #expect(throws: InputFileProblem.notUTF8(byte: 0xE9, line: 2)) { try InputFile.text(path: path("latin1.tsv")) }
        // A byte-order mark is dropped; UTF-8 beyond ASCII reads as itself.
        try Data([0xEF, 0xBB, 0xBF] + Array("path\nnuit-d'\u{E9}t\u{E9}.wav\n".utf8)).write(to: URL(fileURLWithPath: path("utf8.tsv")))
        #expect(try InputFile.text(path: path("utf8.tsv")) == "path\nnuit-d'\u{E9}t\u{E9}.wav\n")
    }
}
