import CSV
import Foundation
import Testing

/// What `report` and `clips` write never destroys what is not theirs (#45 items 3-5): a file of the same name that the
/// tool did not write is refused without --force, an input never written over, a link planted under a clip's name
/// replaced and never followed, and an interrupted or killed run leaves no partial file behind for good.
@Suite struct OutputOwnershipTests {
    func analysed(_ scratch: Scratch) throws -> String {
        let db = scratch.file("db.sqlite")
        let run = try CommandRunner.run(["analyze", sampleNight, "--db", db, "--profile", "all", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        return db
    }

    @Test func aReportNeverReplacesAPageItDidNotWrite() throws {
        let scratch = Scratch()
        let db = try analysed(scratch)
        let fifo = scratch.file("fifo.html")
        #expect(mkfifo(fifo, 0o644) == 0)
        let toFifo = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", fifo, "--force"])
        #expect(toFifo.status == 2 && toFifo.stderr.contains("this is a device or a named pipe"), "\(toFifo.stderr)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe is not replaced")
        let mine = scratch.file("n.html")
        try "<html><body>my own page</body></html>".write(toFile: mine, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", mine])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("n.html: error: the file exists and is not an earlier report page; pass --force"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrote"), "no summary of pages when none was written: \(refused.stderr)")
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "<html><body>my own page</body></html>")
        let forced = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", mine, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: mine, encoding: .utf8).contains("somniq-analyze report"))
        // Its own page it writes again without being told.
        let again = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", mine])
        #expect(again.status == 0, "\(again.stderr)")
        // Never the database, by any name.
        try FileManager.default.createSymbolicLink(atPath: scratch.file("db.html"), withDestinationPath: db)
        let ontoDatabase = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", scratch.file("db.html"), "--force"])
        #expect(ontoDatabase.status == 2)
        #expect(ontoDatabase.stderr.contains("this is the database being read"), "\(ontoDatabase.stderr)")
    }

    /// `-` is standard output for every `--output` that can be one (#45 item 1): one night's page, with its audio
    /// embedded or left out; `clips`, whose output is files, says it cannot.
    @Test func dashIsStandardOutput() throws {
        let scratch = Scratch()
        let db = try analysed(scratch)
        let page = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", "-"], directory: scratch.path)
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.stdout.hasPrefix("<!DOCTYPE html>") && page.stdout.contains("somniq-analyze report"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("-")), "no file or folder named -")
        let withAudio = try CommandRunner.run(["report", "1", "--db", db, "--output", "-"], directory: scratch.path)
        #expect(withAudio.status == 64 && withAudio.stderr.contains("--embed-audio or --no-audio"), "\(withAudio.stderr)")
        let clips = try CommandRunner.run(["clips", "--db", db, "--output", "-"], directory: scratch.path)
        #expect(clips.status == 64 && clips.stderr.contains("cannot hold clip files"), "\(clips.stderr)")
    }

    @Test func aReportFolderKeepsAStrangersIndexAndWritesTheNights() throws {
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        for night in ["apnea-night_8k.caf", "rainy-night_16k.flac"] {
            #expect(try CommandRunner.run(["analyze", CommandRunner.root + "/fixtures/nights/" + night, "--db", db, "--quiet"]).status == 0)
        }
        let folder = scratch.file("pages")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "my index".write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
        let run = try CommandRunner.run(["report", "--db", db, "--no-audio", "--output", folder])
        #expect(run.status == 1, "the trend page was refused: \(run.stderr)")
        #expect(run.stderr.contains("index.html: error: the file exists and is not an earlier report page"), "\(run.stderr)")
        #expect(try String(contentsOfFile: folder + "/index.html", encoding: .utf8) == "my index")
        #expect(run.stdout.split(separator: "\n").count == 2, "both nights' pages written: \(run.stdout)")
        #expect(!run.stdout.contains("index.html"))
    }

    @Test func aLinkPlantedUnderAClipsNameIsReplacedNotFollowed() throws {
        let scratch = Scratch()
        let db = try analysed(scratch)
        let out = scratch.file("clips")
        #expect(try CommandRunner.run(["clips", "--db", db, "--profile", "balanced", "--output", out]).status == 0)
        let clip = try #require(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".wav") }.sorted().first)
        let target = scratch.file("precious.txt")
        try "precious".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/" + clip)
        try FileManager.default.createSymbolicLink(atPath: out + "/" + clip, withDestinationPath: target)
        let rerun = try CommandRunner.run(["clips", "--db", db, "--profile", "balanced", "--output", out])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious", "the link's target is untouched")
        let tilde = (clip as NSString).deletingPathExtension + "~2.wav"
        #expect(FileManager.default.fileExists(atPath: out + "/" + tilde), "the clip took the next name")
        // In a report's audio folder the same.
        let page = scratch.file("n.html")
        #expect(try CommandRunner.run(["report", "1", "--db", db, "--output", page]).status == 0)
        let audio = scratch.file("n_audio")
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: audio).sorted().first)
        try FileManager.default.removeItem(atPath: audio + "/" + first)
        try FileManager.default.createSymbolicLink(atPath: audio + "/" + first, withDestinationPath: target)
        #expect(try CommandRunner.run(["report", "1", "--db", db, "--output", page]).status == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
    }

    @Test func clipsIntoAFolderAddToItsIndexWithoutRepeatsAndNameTheProfile() throws {
        let scratch = Scratch()
        let db = try analysed(scratch)
        let out = scratch.file("clips")
        func rows() throws -> [[String]] {
            let reader = try CSVReader(string: try String(contentsOfFile: out + "/index.csv", encoding: .utf8), hasHeaderRow: true)
            var rows: [[String]] = []
            while let row = reader.next() { rows.append(row) }
            return rows
        }
        #expect(try CommandRunner.run(["clips", "--db", db, "--profile", "balanced", "--output", out]).status == 0)
        let balanced = try rows()
        #expect(!balanced.isEmpty && balanced.allSatisfy { $0[0].contains("_balanced_") && $0[5] == "balanced" })
        #expect(try CommandRunner.run(["clips", "--db", db, "--profile", "very-sensitive", "--output", out]).status == 0)
        let both = try rows()
        #expect(both.count > balanced.count, "the second profile's rows were added")
        #expect(Array(both.prefix(balanced.count)) == balanced, "the earlier rows kept, in their order")
        #expect(Set(both.map { $0[0] }).count == both.count, "no file listed twice")
        #expect(try CommandRunner.run(["clips", "--db", db, "--profile", "very-sensitive", "--output", out]).status == 0)
        #expect(try rows().count == both.count, "a rerun repeats no row")
        for row in both { #expect(FileManager.default.fileExists(atPath: out + "/" + row[0]), "\(row[0])") }

        // An index.csv that is not ours is refused before a clip is cut.
        let other = scratch.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try "name,age\nann,3\n".write(toFile: other + "/index.csv", atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["clips", "--db", db, "--output", other])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("is not an earlier clip index; pass --force"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == ["index.csv"], "nothing cut")
        // A file where the folder should be is named as such, and left as it was.
        let notAFolder = scratch.file("notes.html")
        try "mine".write(toFile: notAFolder, atomically: true, encoding: .utf8)
        let onFile = try CommandRunner.run(["clips", "--db", db, "--output", notAFolder, "--force"])
        #expect(onFile.status == 2)
        #expect(onFile.stderr.contains("notes.html: error: a file, not a folder"), "\(onFile.stderr)")
        #expect(try String(contentsOfFile: notAFolder, encoding: .utf8) == "mine")
        // Nor is a named pipe there replaced by a file, with --force either.
        let piped = scratch.file("piped")
        try FileManager.default.createDirectory(atPath: piped, withIntermediateDirectories: true)
        #expect(mkfifo(piped + "/index.csv", 0o644) == 0)
        let fifo = try CommandRunner.run(["clips", "--db", db, "--output", piped, "--force"])
        #expect(fifo.status == 2)
        #expect(fifo.stderr.contains("index.csv: error: this is a device or a named pipe"), "\(fifo.stderr)")
        var status = stat()
        #expect(lstat(piped + "/index.csv", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still the pipe")
    }

    @Test func partialFilesOfAKilledRunAreRemovedByTheNext() throws {
        let scratch = Scratch()
        let db = try analysed(scratch)
        // A process id no process has: what a run killed outright (SIGKILL, a power cut) leaves behind.
        var gone: Int32 = 4_000_000
        while kill(gone, 0) == 0 || errno != ESRCH { gone -= 1 }
        let stale = scratch.file(".out.json.somniq-partial-\(gone)")
        try "half an export".write(toFile: stale, atomically: true, encoding: .utf8)
        let live = scratch.file(".out.json.somniq-partial-1")  // process 1 runs: its file is its own
        try "another's".write(toFile: live, atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["export", "--db", db, "--format", "json", "--output", scratch.file("out.json")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: scratch.file("out.json")))
    }

    /// An hour of a quiet room, analysed: enough windows that writing them takes many of `pause`'s steps.
    static let hourDatabase: String = {
        let folder = ProcessFixtures.removedAtExit(NSTemporaryDirectory() + "somniq-hour-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try? CommandRunner.run(["room", "--hours", "1", "--sample-rate", "8000", "--output", folder + "/room.wav"], product: "somniq-synth")
        _ = try? CommandRunner.run(["analyze", folder + "/room.wav", "--db", folder + "/db.sqlite", "--quiet"])
        return folder + "/db.sqlite"
    }()

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] as [(Int32, Int32)])
    func anInterruptedExportLeavesNothingHalfWritten(signal: Int32, status: Int32) throws {
        let scratch = Scratch()
        let db = Self.hourDatabase
        let output = scratch.file("windows.json")
        try "an earlier export".write(toFile: output, atomically: true, encoding: .utf8)
        let process = try CommandRunner.start(["export", "--db", db, "--what", "windows", "--format", "json", "--output", output,
                                               "--force"])
        let partial = { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path))?.contains { $0.contains(".somniq-partial-") } ?? false }
        #expect(process.pause(once: partial), "stopped while writing")
        process.send(signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == status, "\(process.stderr)")
        #expect(process.stderr.contains("the files being written were removed"), "\(process.stderr)")
        #expect(!partial(), "no partial file left")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "an earlier export", "the earlier file as it was")
    }
}
