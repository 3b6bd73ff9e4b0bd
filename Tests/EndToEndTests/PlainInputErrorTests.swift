import Foundation
import Testing

/// Inputs beside the audio (a model, a manifest, labels) that are not what they should be are named for what they
/// are, through the executable: not "You don't have permission", "NSCocoaErrorDomain error 256" or "not valid JSON".
@Suite struct PlainInputErrorTests {
    @Test func aModelThatIsNoFileSaysWhatItIs() throws {
        let scratch = Scratch()
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let folderModel = scratch.file("folder-model")
        try FileManager.default.createDirectory(atPath: folderModel + "/model.json", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("loop1"), withDestinationPath: scratch.file("loop2"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("loop2"), withDestinationPath: scratch.file("loop1"))
        let cases: [(String, String)] = [
            (fifo, "a FIFO (named pipe), not a file"),
            ("/dev/zero", "a character device, not a file"),
            (folderModel, "model.json: error: cannot read model file: a folder, not a file"),
            (scratch.file("loop1"), "a loop of symbolic links"),
        ]
        for (model, expected) in cases {
            let run = try CommandRunner.run(["classes", "--model", model])
            #expect(run.status == 2, "\(model): \(run.stderr)")
            #expect(run.stderr.contains(expected), "\(model): \(run.stderr)")
            #expect(!run.stderr.contains("permission") && !run.stderr.contains("NSCocoaErrorDomain"), "\(run.stderr)")
        }
    }

    @Test func aModelOutOfBoundsSaysWhichBound() throws {
        let scratch = Scratch()
        let rules = CommandRunner.root + "/models/rules"
        let text = try String(contentsOfFile: rules + "/model.json", encoding: .utf8)
        func model(_ name: String, _ json: String) throws -> String {
            try scratch.modelFolder(name, model: Data(json.utf8), profiles: rules)
        }
        #expect(text.contains("\"detectionFloor\": 0.2"), "the rules model has the field the test rewrites")
        let tiny = try model("tiny", text.replacingOccurrences(of: "\"detectionFloor\": 0.2", with: "\"detectionFloor\": 1e-400"))
        let tinyRun = try CommandRunner.run(["classes", "--model", tiny])
        #expect(tinyRun.stderr.contains("the number 1e-400 is out of range"), "\(tinyRun.stderr)")
        let nested = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let deep = try model("deep", text.replacingOccurrences(of: "\"version\"", with: "\"deep\": \(nested), \"version\""))
        let deepRun = try CommandRunner.run(["classes", "--model", deep])
        #expect(deepRun.stderr.contains("nested 513 deep, more than the JSON reader takes (512)"), "\(deepRun.stderr)")
        let big = try model("big", text + String(repeating: " ", count: 17 << 20))
        let bigRun = try CommandRunner.run(["classes", "--model", big])
        #expect(bigRun.stderr.contains("more than such a file may hold (16777216 bytes, 16 MB)"), "\(bigRun.stderr)")
        for run in [tinyRun, deepRun, bigRun] {
            #expect(run.status == 2)
            #expect(!run.stderr.contains("not valid"), "\(run.stderr)")
        }
    }

    @Test func manifestsLabelsAndMapsThatCannotBeReadSayWhy() throws {
        let scratch = Scratch()
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let latin1 = scratch.file("latin1.tsv")
        try Data("path\n/tmp/n\u{E9}.wav\n".data(using: .isoLatin1)!).write(to: URL(fileURLWithPath: latin1))
        let fromFifo = try CommandRunner.run(["analyze", "--manifest", fifo, "--db", scratch.file("db.sqlite")])
        #expect(fromFifo.status == 2, "\(fromFifo.stderr)")
        #expect(fromFifo.stderr.contains("cannot read the manifest: a FIFO (named pipe), not a file"), "\(fromFifo.stderr)")
        #expect(!fromFifo.stderr.contains("Usage:"), "a file at fault is no usage error: \(fromFifo.stderr)")
        let fromLatin1 = try CommandRunner.run(["analyze", "--manifest", latin1, "--db", scratch.file("db.sqlite")])
        #expect(fromLatin1.stderr.contains("not UTF-8 text (line 2 holds the byte 0xE9)"), "\(fromLatin1.stderr)")
        #expect(fromLatin1.stderr.contains("iconv"), "\(fromLatin1.stderr)")
        let labels = try CommandRunner.run(["fit", "--clips", sampleNight, "--labels", fifo, "--out", scratch.file("m")])
        #expect(labels.status != 0)
        #expect(labels.stderr.contains("cannot read the labels: a FIFO (named pipe)"), "\(labels.stderr)")
        let map = try CommandRunner.run(["evaluate", "--clips", scratch.file("."), "--map", fifo])
        #expect(map.stderr.contains("cannot read the label map: a FIFO (named pipe)"), "\(map.stderr)")
    }

    @Test func aShareOfNoSharesOrBelowOneIsNamedAsSuch() throws {
        let zero = try CommandRunner.run(["analyze", sampleNight, "--shard", "0/0", "--db", "/nonexistent/db.sqlite"])
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--shard 0/0: N, the number of shares, must be at least 1"), "\(zero.stderr)")
        let negative = try CommandRunner.run(["analyze", sampleNight, "--shard", "-1/4", "--db", "/nonexistent/db.sqlite"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--shard -1/4: K must lie between 1 and N (4)"), "\(negative.stderr)")
    }

    @Test func fitsStochasticOptionsOutOfTheirRangeAreUsageErrors() throws {
        let scratch = Scratch()
        let out = scratch.file("model")
        let none = try CommandRunner.run(["fit", "--clips", sampleNight, "--out", out, "--clip-share", "0"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("--clip-share and --feature-share must lie in (0, 1]"), "\(none.stderr)")
        let classOnly = try CommandRunner.run(["fit", "--clips", sampleNight, "--out", out, "--draw-class-only"])
        #expect(classOnly.status == 64)
        #expect(classOnly.stderr.contains("--draw-class-only needs --clip-share below 1"), "\(classOnly.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "a refused fit writes nothing")
    }

    @Test func audioLibsndfileCannotPlaceIsNotCalledMissing() throws {
        let scratch = Scratch()
        let garbage = scratch.file("bad.mp3")
        let bytes: [UInt8] = (0..<3_000).map { (index: Int) -> UInt8 in UInt8((index * 37 + 11) % 251 + 1) }
        try Data(bytes).write(to: URL(fileURLWithPath: garbage))
        let run = try CommandRunner.run(["analyze", garbage, "--db", scratch.file("db.sqlite")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("bad.mp3: error: not a readable audio file"), "\(run.stderr)")
        #expect(!run.stderr.contains("does not exist"), "\(run.stderr)")
    }

    /// A CAF holding Apple Lossless with its settings laid out as ffmpeg writes them (a QuickTime 'frma' atom before the
    /// configuration), which libsndfile cannot open: the message names the container and the codec and gives a command
    /// that converts it, not "convert it to WAV, CAF or FLAC" of a file that is a CAF (#46).
    @Test func aCAFOfACodecLibsndfileCannotDecodeIsNamedWithAConversion() throws {
        let scratch = Scratch()
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { Array(type.utf8) + bigEndian(Int64(body.count)) + body }
        let description = bigEndian(UInt64(16_000.0.bitPattern)) + Array("alac".utf8) + bigEndian(UInt32(1)) + bigEndian(UInt32(0))
            + bigEndian(UInt32(4096)) + bigEndian(UInt32(1)) + bigEndian(UInt32(0))
        let cookie = bigEndian(UInt32(12)) + Array("frmaalac".utf8) + bigEndian(UInt32(36)) + Array("alac".utf8) + [UInt8](repeating: 0, count: 12)
        let bytes = Array("caff".utf8) + bigEndian(UInt16(1)) + bigEndian(UInt16(0)) + chunk("desc", description) + chunk("kuki", cookie)
            + chunk("pakt", [UInt8](repeating: 0, count: 24)) + chunk("data", [UInt8](repeating: 0, count: 104))
        let file = scratch.file("phone night.caf")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let run = try CommandRunner.run(["analyze", file, "--db", scratch.file("db.sqlite")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("a CAF file of 'alac' audio that libsndfile cannot decode"), "\(run.stderr)")
        #expect(run.stderr.contains("ffmpeg -i 'phone night.caf' 'phone night.flac'"), "\(run.stderr)")
    }

    /// A voice memo (MPEG-4 audio, `.m4a`), which libsndfile does not read: named as such, with its codec (from the
    /// sample entry of its `stsd` box) and a command that converts it; an MPEG-4 file whose boxes say nothing of its
    /// audio is still named as MPEG-4.
    @Test func anMPEG4FileIsNamedWithItsCodecAndAConversion() throws {
        let scratch = Scratch()
        let memo = scratch.file("Voice Memo.m4a"), bare = scratch.file("bare.mp4")
        try Self.mpeg4(audioBytes: 300_000, sampleTable: true).write(to: URL(fileURLWithPath: memo))
        try Self.mpeg4(audioBytes: 1_000, sampleTable: false).write(to: URL(fileURLWithPath: bare))
        let run = try CommandRunner.run(["analyze", memo, bare, "--db", scratch.file("db.sqlite")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(memo): error: an MPEG-4 file (.m4a, .mp4; its audio 'mp4a (AAC)'), which libsndfile does not read"),
                "\(run.stderr)")
        #expect(run.stderr.contains("ffmpeg -i 'Voice Memo.m4a' 'Voice Memo.flac'"), "\(run.stderr)")
        #expect(run.stderr.contains("\(bare): error: an MPEG-4 file (.m4a, .mp4; its audio 'unknown')"), "\(run.stderr)")
    }

    /// A folder of recordings with voice memos among them: each memo is reported with how to convert it (a folder of
    /// them alone said "no audio files found"), the readable night is analysed, and a file of another kind is passed over.
    @Test func aFoldersVoiceMemosAreReportedWithAConversion() throws {
        let scratch = Scratch()
        let folder = scratch.file("phone")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.mpeg4(audioBytes: 3_000, sampleTable: true).write(to: URL(fileURLWithPath: folder + "/memo.m4a"))
        try Data("#!AMR\n".utf8 + [UInt8](repeating: 60, count: 500)).write(to: URL(fileURLWithPath: folder + "/call.amr"))
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try FileManager.default.copyItem(atPath: sampleNight, toPath: folder + "/night.caf")
        let run = try CommandRunner.run(["analyze", folder, "--db", scratch.file("db.sqlite")])
        #expect(run.status == 1, "some recordings failed")
        #expect(run.stderr.contains("\(folder)/memo.m4a: error: an MPEG-4 file"), "\(run.stderr)")
        #expect(run.stderr.contains("ffmpeg -i 'memo.m4a' 'memo.flac'"), "\(run.stderr)")
        #expect(run.stderr.contains("\(folder)/call.amr: error: not a readable audio file"), "\(run.stderr)")
        #expect(!run.stderr.contains("notes.txt"), "\(run.stderr)")
        #expect(run.stderr.contains("1 analysed, 0 skipped (already done), 2 failed of 3 recordings"), "\(run.stderr)")

        let memos = scratch.file("memos")
        try FileManager.default.createDirectory(atPath: memos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder + "/memo.m4a", toPath: memos + "/memo.m4a")
        let alone = try CommandRunner.run(["analyze", memos, "--db", scratch.file("db.sqlite")])
        #expect(alone.status == 1)
        #expect(!alone.stderr.contains("no audio files found"), "\(alone.stderr)")
        #expect(alone.stderr.contains("ffmpeg -i 'memo.m4a' 'memo.flac'"), "\(alone.stderr)")
    }

    /// An MPEG-4 audio file as a phone's recorder writes it: the audio (`audioBytes` of it) first, then, with
    /// `sampleTable`, the `moov` box naming its codec (AAC, 'mp4a') at the end; without, no `moov` at all.
    static func mpeg4(audioBytes: Int, sampleTable: Bool) -> Data {
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body }
        let ftyp = box("ftyp", Array("M4A ".utf8) + bigEndian(0) + Array("M4A mp42isom".utf8))
        let stsd = box("stsd", bigEndian(0) + bigEndian(1) + box("mp4a", [UInt8](repeating: 0, count: 28)))
        let moov = sampleTable ? box("moov", box("trak", stsd)) : []
        return Data(ftyp + box("mdat", [UInt8](repeating: 7, count: audioBytes)) + moov)
    }
}
