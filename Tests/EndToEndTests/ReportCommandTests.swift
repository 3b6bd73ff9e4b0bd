import Foundation
import GRDB
import SomniqAudio
import Testing

/// The apnea night (snoring bouts, each ended by a pause and a gasp; breathing; a smoke alarm) and the sample night,
/// analysed under every profile with known start times.
private enum ReportedNights {
    static let database: String = {
        let path = ProcessFixtures.removedAtExit(NSTemporaryDirectory() + "somniq-report-\(ProcessInfo.processInfo.processIdentifier).sqlite")
        if !FileManager.default.fileExists(atPath: path) {
            _ = try? CommandRunner.run(["analyze", CommandRunner.root + "/fixtures/nights/apnea-night_8k.caf", "--db", path,
                                        "--profile", "all", "--quiet", "--start", "2026-11-21T23:10:00Z"])
            _ = try? CommandRunner.run(["analyze", sampleNight, "--db", path, "--profile", "all", "--quiet"])
        }
        return path
    }()

    /// Read while other tests' `report` runs read the same database: the last of them to close it checkpoints the WAL
    /// under an exclusive lock for a moment, so the check waits for it, as the tool's own store does (CI once saw
    /// "database is locked" here).
    static func count(_ sql: String) throws -> Int { Int(try number(sql)) }

    static func number(_ sql: String) throws -> Double {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        return try DatabaseQueue(path: database, configuration: configuration).read { db in try Double.fetchOne(db, sql: sql) ?? 0 }
    }
}

@Suite struct ReportCommandTests {
    let db = ReportedNights.database

    func occurrences(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func aNightsPageWithItsClips() throws {
        let scratch = Scratch()
        let page = scratch.file("apnea.html")
        let result = try CommandRunner.run(["report", "1", "--db", db, "--timezone", "Europe/Berlin", "--output", page])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == page + "\n", "stdout names the page written")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let episodes = try ReportedNights.count("SELECT COUNT(*) FROM episodes WHERE recording_id = 1 AND profile = 'balanced'")
        let alerts = try ReportedNights.count("SELECT COUNT(*) FROM alerts WHERE recording_id = 1 AND profile = 'balanced'")
        let snores = try ReportedNights.count("SELECT COUNT(*) FROM sound_events WHERE recording_id = 1 AND class_id = 'snoring'")
        #expect(episodes > 0 && alerts > 0 && snores > 0)
        #expect(occurrences("<rect class=\"ep ", in: html) == episodes)
        #expect(occurrences("<use class=\"al ", in: html) == alerts)
        #expect(occurrences("<path class=\"sn\"", in: html) == snores)
        #expect(html.contains("<h1>Night of Sat 21 Nov 2026</h1>"), "started 00:10 on the 22nd in Berlin: the night of the 21st")
        #expect(html.contains("Europe/Berlin, UTC+01:00"))
        // The fixture's two pauses in snoring (17 and 18 s), each ended by a gasp.
        #expect(html.contains("<b>2 pauses in snoring ended by a gasp</b>"), "\(html.prefix(0))")
        #expect(occurrences("<rect class=\"pause\"", in: html) == 2)
        // The snoring section: the stored score, and the loudest snores of bouts, each playable.
        let score = try ReportedNights.number("SELECT snore_score FROM night_summaries WHERE recording_id = 1")
        let boutSnores = try ReportedNights.count("""
            SELECT COUNT(*) FROM sound_events WHERE recording_id = 1 AND class_id = 'snoring' AND bout_index IS NOT NULL
            """)
        #expect(score > 0 && boutSnores > 0)
        #expect(html.contains("<h2 id=\"snoring\">Snoring</h2>") && html.contains("<p>Snore score \(String(format: "%.0f", score)): snoring "))
        let loudest = min(boutSnores, 5)
        #expect(occurrences("aria-label=\"snore at ", in: html) == loudest)
        // One clip per episode and per loudest snore, in the folder the page names, each a WAV file.
        let clips = try FileManager.default.contentsOfDirectory(atPath: scratch.file("apnea_audio")).sorted()
        #expect(clips.count == episodes + loudest)
        #expect(clips.count { $0.contains("_snoring_snore-") } == loudest)
        #expect(occurrences("<audio controls", in: html) == episodes + loudest)
        for clip in clips {
            #expect(html.contains("src=\"apnea_audio/\(clip)\""), "\(clip)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file("apnea_audio/" + clip)))
            #expect(bytes.prefix(4) == Data("RIFF".utf8) && bytes.count > 1000)
        }

        // Written again: the same bytes, the same clips (written over, not added beside).
        #expect(try CommandRunner.run(["report", "1", "--db", db, "--timezone", "Europe/Berlin", "--output", page]).status == 0)
        #expect(try String(contentsOfFile: page, encoding: .utf8) == html)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("apnea_audio")).sorted() == clips)
    }

    /// The two fixture recordings are one night's: the sample night from 23:00 to 23:04 UTC, the apnea night from 23:10.
    /// The trend page counts them as one night in two recordings, with the whole night's score, and each night's page
    /// names the other piece and links its page.
    @Test func aNightInPiecesIsOneNightOfTheTrendPage() throws {
        let scratch = Scratch()
        let result = try CommandRunner.run(["report", "--db", db, "--timezone", "UTC", "--output", scratch.path])
        #expect(result.status == 0, "\(result.stderr)")
        let pages = result.stdout.split(separator: "\n").map(String.init)
        #expect(pages.count == 3 && pages.last == scratch.file("index.html"), "\(pages)")
        let trend = try String(contentsOfFile: scratch.file("index.html"), encoding: .utf8)
        #expect(occurrences("<tr class=\"night\">", in: trend) == 1)
        #expect(trend.contains("<h1>1 night</h1>") && trend.contains(" in 2 recordings</p>"))
        #expect(trend.contains("<br><span class=\"note\">in 2 recordings: <a href="))
        // The whole night's score: the pieces' scores weighted by their lengths, as `trends` joins them.
        let score = try ReportedNights.number("""
            SELECT SUM(s.snore_score * r.duration_s) / SUM(r.duration_s)
            FROM night_summaries s JOIN recordings r ON r.id = s.recording_id
            """)
        #expect(trend.contains("<td class=\"n\">\(String(format: "%.0f", score))</td>"), "score \(score)")
        let names = pages.dropLast().map { ($0 as NSString).lastPathComponent }
        for (index, page) in pages.dropLast().enumerated() {
            let html = try String(contentsOfFile: page, encoding: .utf8)
            #expect(trend.contains("href=\"\(names[index])\""), "the trend page links \(names[index])")
            #expect(html.contains("href=\"index.html\""), "\(names[index]) links back")
            #expect(html.contains("href=\"\(names[1 - index])\""), "\(names[index]) links the other piece's page")
            #expect(html.contains("this night was recorded in: "), "\(names[index])")
            #expect(html.contains("<p>The whole night, its 2 pieces together (") && html.contains("snore score <b>\(String(format: "%.0f", score))</b>"))
        }
        #expect(result.stderr.contains("wrote 2 night pages and a trend page"))

        // One recording's page alone still names the other piece, unlinked (no page of it was written).
        let alone = try CommandRunner.run(["report", "2", "--db", db, "--timezone", "UTC", "--no-audio", "--output", scratch.file("alone.html")])
        #expect(alone.status == 0, "\(alone.stderr)")
        let html = try String(contentsOfFile: scratch.file("alone.html"), encoding: .utf8)
        #expect(html.contains("piece 1 of the 2 this night was recorded in: <b>23:00–23:04</b> (this page) · 23:10–"), "\(html.prefix(3000))")
        #expect(html.contains(" (recording 1)</p>"))
    }

    @Test func embeddedAudioAndNoAudio() throws {
        let scratch = Scratch()
        let embedded = try CommandRunner.run(["report", "1", "--db", db, "--embed-audio", "--output", scratch.file("a.html")])
        #expect(embedded.status == 0, "\(embedded.stderr)")
        let html = try String(contentsOfFile: scratch.file("a.html"), encoding: .utf8)
        #expect(occurrences("src=\"data:audio/wav;base64,UklGR", in: html) > 0, "clips embedded as WAV")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("a_audio")))

        let silent = try CommandRunner.run(["report", "1", "--db", db, "--no-audio", "--output", scratch.file("b.html")])
        #expect(silent.status == 0)
        #expect(!(try String(contentsOfFile: scratch.file("b.html"), encoding: .utf8)).contains("<audio"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b_audio")))
    }

    static let apneaNight = CommandRunner.root + "/fixtures/nights/apnea-night_8k.caf"

    /// A copy of the apnea night in `scratch` (`night.caf`), analysed into the database `database` there.
    static func analysedCopyOfTheApneaNight(in scratch: Scratch, database: String) throws -> (night: String, database: String) {
        let night = scratch.file("night.caf"), path = scratch.file(database)
        try FileManager.default.copyItem(atPath: apneaNight, toPath: night)
        #expect(try CommandRunner.run(["analyze", night, "--db", path, "--quiet"]).status == 0)
        return (night, path)
    }

    @Test func aMovedRecordingGivesAPageWithoutAudioAndSaysSo() throws {
        let scratch = Scratch()
        let (copy, moved) = try Self.analysedCopyOfTheApneaNight(in: scratch, database: "moved.sqlite")
        try FileManager.default.removeItem(atPath: copy)
        let result = try CommandRunner.run(["report", "1", "--db", moved, "--output", scratch.file("n.html")])
        #expect(result.status == 1, "the page is written, its audio is not: \(result.stderr)")
        #expect(result.stderr.contains("written without audio"), "\(result.stderr)")
        let html = try String(contentsOfFile: scratch.file("n.html"), encoding: .utf8)
        #expect(html.contains("The audio could not be cut from the recording"))
    }

    /// A recording written over after it was analysed (another night at its path): neither the report nor `clips` cuts
    /// the new audio as the night's episodes; the same audio put back under a new modification time (a copy) is cut.
    @Test func aRecordingWrittenOverGivesNoClipsOfTheOtherAudio() throws {
        let scratch = Scratch()
        let (night, database) = try Self.analysedCopyOfTheApneaNight(in: scratch, database: "over.sqlite")
        let original = Self.apneaNight
        try FileManager.default.removeItem(atPath: night)
        try FileManager.default.copyItem(atPath: CommandRunner.root + "/fixtures/nights/rainy-night_16k.flac", toPath: night)

        let said = "\(night): error: holds other audio than the recording analysed from it (written over or edited since), so clips cut from it would not be of that night's sounds, and none were cut"
        let report = try CommandRunner.run(["report", "1", "--db", database, "--output", scratch.file("n.html")])
        #expect(report.status == 1 && report.stderr.contains(said), "\(report.stderr)")
        #expect(!report.stderr.contains("was the recording moved"), "\(report.stderr)")
        let html = try String(contentsOfFile: scratch.file("n.html"), encoding: .utf8)
        #expect(html.contains("The audio could not be cut from the recording") && html.contains("holds other audio"))
        let cut = (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("n_audio"))) ?? []
        #expect(cut.isEmpty, "\(cut)")
        let clips = try CommandRunner.run(["clips", "--db", database, "--what", "episodes", "--output", scratch.file("clips")])
        #expect(clips.status == 1 && clips.stderr.contains(said), "\(clips.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("clips")).filter { $0.hasSuffix(".wav") }.isEmpty)

        // The analysed audio back, copied anew (another modification time): the same audio, so it is cut.
        try FileManager.default.removeItem(atPath: night)
        try FileManager.default.copyItem(atPath: original, toPath: night)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3_600)], ofItemAtPath: night)
        let again = try CommandRunner.run(["clips", "--db", database, "--what", "episodes", "--output", scratch.file("again")])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: scratch.file("again")).filter { $0.hasSuffix(".wav") }.isEmpty)
    }

    /// SHA-256 (hex) of `bytes`, by coreutils' `sha256sum`: computed apart from the tool.
    static func sha256sum(_ bytes: Data, scratch: Scratch) throws -> String {
        let file = scratch.file("bytes-\(UUID().uuidString)")
        try bytes.write(to: URL(fileURLWithPath: file))
        let digest = try CommandRunner.output(of: "/usr/bin/sha256sum", [file])
        #expect(digest.status == 0, "\(digest.text)")
        return String(digest.text.prefix { !$0.isWhitespace })
    }

    /// A night stored before the audio's identity was XXH3-128 carries SHA-256 of its samples: as 16-bit integers, or,
    /// stored before such audio was hashed as integers (model 3.5.0), as floats. Its file copied back (another
    /// modification time), the same audio, is still cut under either; another hash is not.
    @Test func aNightHashedAsBeforeIsKnownByItsAudio() throws {
        let scratch = Scratch()
        let (night, database) = try Self.analysedCopyOfTheApneaNight(in: scratch, database: "old.sqlite")
        // The hashes as they were stored then: rate, channels and frames as little-endian 64-bit integers, then every
        // sample as a little-endian 16-bit integer or 32-bit float (the night is mono: its samples are its one channel's).
        let (samples, rate) = try AudioFileReader.readMono(night)
        var header = Data()
        for field in [Int64(rate), 1, Int64(samples.count)] { withUnsafeBytes(of: field.littleEndian) { header.append(contentsOf: $0) } }
        var integers = header, floats = header
        for sample in samples {
            withUnsafeBytes(of: Int16(sample * 32_768).littleEndian) { integers.append(contentsOf: $0) }
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { floats.append(contentsOf: $0) }
        }
        let asIntegers = try Self.sha256sum(integers, scratch: scratch), asFloats = try Self.sha256sum(floats, scratch: scratch)
        let queue = try DatabaseQueue(path: database)
        let stored = try queue.read { try String.fetchOne($0, sql: "SELECT content_hash FROM recordings") }
        #expect(stored?.count == 32 && asIntegers.count == 64 && asFloats.count == 64 && asIntegers != asFloats)
        #expect(try AudioFileReader.contentHash(of: night, kind: .sha256) == asIntegers)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3_600)], ofItemAtPath: night)

        for (hash, cut) in [(asIntegers, true), (asFloats, true), (String(asFloats.reversed()), false), (stored.map { String($0.reversed()) } ?? "", false)] {
            try queue.write { try $0.execute(sql: "UPDATE recordings SET content_hash = ?", arguments: [hash]) }
            let output = scratch.file("clips-\(cut)-\(hash.prefix(8))")
            let clips = try CommandRunner.run(["clips", "--db", database, "--what", "episodes", "--output", output])
            let wavs = ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).filter { $0.hasSuffix(".wav") }
            #expect(clips.status == (cut ? 0 : 1) && wavs.isEmpty == !cut, "\(hash): \(clips.stderr)")
        }
        try queue.close()
    }

    @Test func mistakesAreUsageErrors() throws {
        let scratch = Scratch()
        let profile = try CommandRunner.run(["report", "1", "--db", db, "--profile", "loose", "--output", scratch.file("x.html")])
        #expect(profile.status == 64 && profile.stderr.contains("unknown profile 'loose'"), "\(profile.stderr)")
        let zone = try CommandRunner.run(["report", "1", "--db", db, "--timezone", "Mars/Olympus", "--output", scratch.file("x.html")])
        #expect(zone.status == 64 && zone.stderr.contains("unknown time zone"), "\(zone.stderr)")
        let city = try CommandRunner.run(["report", "1", "--db", db, "--timezone", "Berlin", "--output", scratch.file("x.html")])
        #expect(city.status == 64 && city.stderr.contains("did you mean Europe/Berlin?"), "\(city.stderr)")
        let several = try CommandRunner.run(["report", "1", "2", "--db", db, "--output", scratch.file("x.html")])
        #expect(several.status == 64 && several.stderr.contains("give --output a folder"), "\(several.stderr)")
        let missing = try CommandRunner.run(["report", "99", "--db", db, "--output", scratch.file("x.html")])
        #expect(missing.status == 64 && missing.stderr.contains("no analysed recording '99'"), "\(missing.stderr)")
        // Found wrong while running: pointed to the command's own help, not given the root's usage line.
        for mistake in [several, missing] {
            #expect(mistake.stderr.contains("See 'somniq-analyze report --help'.") && !mistake.stderr.contains("<subcommand>"),
                    "\(mistake.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.html")))
    }
}
