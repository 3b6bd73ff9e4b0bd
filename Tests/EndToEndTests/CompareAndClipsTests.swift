import CSV
import Foundation
import SomniqAudio
import SomniqSynth
import Testing

@Suite struct CompareCommandTests {
    @Test func comparesTheFiveProfilesOnAFile() throws {
        let result = try CommandRunner.run(["compare", sampleNight, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let profiles = json["profiles"] as! [[String: Any]]
        #expect(profiles.map { $0["profile"] as! String } == ["very-conservative", "conservative", "balanced", "sensitive", "very-sensitive"])
        let alerts = profiles.map { $0["alerts"] as! Int }
        #expect(alerts == alerts.sorted(), "a looser profile never alerts less: \(alerts)")
        let balanced = profiles[2]
        #expect(balanced["alerts"] as? Int == 11, "four snoring alerts, and one each of gasp, breathing, cough, speech, smoke alarm, door and rain")
        #expect((balanced["alertsByClass"] as! [String: Int])["smoke_detector"] == 1)
        let switches = json["switches"] as! [[String: Any]]
        #expect(switches.count == 4)
        #expect(switches.allSatisfy { ($0["extraAlerts"] as! Int) >= 0 })
        let table = try CommandRunner.run(["compare", sampleNight])
        #expect(table.stdout.contains("minutes in alert"))
        #expect(table.stdout.contains("conservative → balanced:"))
    }

    @Test func readsAnAnalysedRecordingFromTheDatabase() throws {
        let fromFile = try CommandRunner.run(["compare", sampleNight, "--format", "csv"])
        let fromDatabase = try CommandRunner.run(["compare", "1", "--db", AnalysedNight.database, "--format", "csv"])
        #expect(fromDatabase.status == 0, "\(fromDatabase.stderr)")
        #expect(fromDatabase.stdout == fromFile.stdout, "the stored confidences give the same comparison as decoding")
        #expect(try CommandRunner.run(["compare", "77", "--db", AnalysedNight.database]).status == 64)
    }

    /// A night is named to `compare` as to `report` and `export`: by its date or `last`; a night of several recordings
    /// is compared one recording at a time, and said so.
    @Test func aNightIsNamedByItsDate() throws {
        let byID = try CommandRunner.run(["compare", "1", "--db", AnalysedNight.database, "--format", "csv"])
        for night in ["last", "2026-11-21"] {
            let byNight = try CommandRunner.run(["compare", night, "--db", AnalysedNight.database, "--format", "csv", "--timezone", "UTC"])
            #expect(byNight.status == 0, "\(night): \(byNight.stderr)")
            #expect(byNight.stdout == byID.stdout, "\(night)")
        }
        let none = try CommandRunner.run(["compare", "2026-11-25", "--db", AnalysedNight.database, "--timezone", "UTC"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("2026-11-21"), "the nights there are: \(none.stderr)")

        let scratch = Scratch()
        let db = scratch.file("two.sqlite")
        let piece = scratch.file("piece.wav")
        let writer = try AudioFileWriter(path: piece, sampleRate: 16_000)
        try writer.write(interleaved: SyntheticNight.sample().samples.prefix(16_000 * 20).map { Float($0) })
        try writer.close()
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        #expect(try CommandRunner.run(["analyze", piece, "--db", db, "--quiet", "--start", "2026-11-22T02:00:00Z"]).status == 0)
        let two = try CommandRunner.run(["compare", "2026-11-21", "--db", db, "--timezone", "UTC"])
        #expect(two.status == 64)
        #expect(two.stderr.contains("the night 2026-11-21 is 2 recordings in \(db) (ids 1, 2); compare one at a time: somniq-analyze compare 1"),
                "\(two.stderr)")
    }
}

@Suite struct ClipsCommandTests {
    @Test func cutsEachEpisodeWithAnIndex() throws {
        let scratch = Scratch()
        let result = try CommandRunner.run(["clips", "--db", AnalysedNight.database, "--profile", "balanced", "--margin", "1",
                                            "--output", scratch.path])
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try CSVReader(string: try String(contentsOfFile: scratch.file("index.csv"), encoding: .utf8), hasHeaderRow: true)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        #expect(rows.count == 8)
        for row in rows {
            let file = scratch.file(row[0])
            #expect(FileManager.default.fileExists(atPath: file), "\(row[0])")
            let start = Double(row[7])!, end = Double(row[8])!, clipSeconds = Double(row[10])!
            #expect(abs(clipSeconds - min(240, end + 1) + max(0, start - 1)) < 0.001, "margins of 1 s around \(start)–\(end)")
            // The clip holds the recording's own samples at that place.
            let classified = try CommandRunner.run(["classify", file, "--format", "json"])
            #expect(classified.status == 0)
        }
        #expect(rows.contains { $0[0] == "20261121T230230Z_r1_balanced_smoke_detector_episode-6.wav" },
                "named by UTC time, recording, profile and class")

        let snoring = try CommandRunner.run(["clips", "--db", AnalysedNight.database, "--what", "alerts", "--class", "snoring",
                                             "--output", scratch.file("snoring")])
        #expect(snoring.status == 0)
        #expect(snoring.stderr.contains("wrote 4 clips"), "an onset and three continuing alerts in the bout: \(snoring.stderr)")
    }

    /// A phone's MP3: each clip is the night's own samples as a read from the start decodes them, and stderr holds
    /// only what the tool says (libmpg123 complained of the frame after each seek, and that frame came out wrong).
    @Test func anMP3NightsClipsAreItsOwnSamples() throws {
        let scratch = Scratch()
        func decode(_ path: String) throws -> [Float] {
            let reader = try AudioFileReader(path: path)
            var samples = [Float](repeating: 0, count: Int(reader.format.frameCount) * reader.format.channelCount)
            let got = try reader.readInterleaved(frameCount: Int(reader.format.frameCount), into: &samples)
            return Array(samples.prefix(got))
        }
        let mp3 = scratch.file("night.mp3")
        try MP3Copy.write(try decode(sampleNight), sampleRate: 16_000, to: mp3)
        let db = scratch.file("mp3.sqlite")
        #expect(try CommandRunner.run(["analyze", mp3, "--db", db, "--quiet", "--start", "2026-11-21T23:00:00Z"]).status == 0)
        let result = try CommandRunner.run(["clips", mp3, "--db", db, "--what", "alerts", "--output", scratch.file("clips")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("wrote "), "\(result.stderr)")
        let night = try decode(mp3)
        let reader = try CSVReader(string: try String(contentsOfFile: scratch.file("clips/index.csv"), encoding: .utf8), hasHeaderRow: true)
        var clips = 0
        while let row = reader.next() {
            let clip = try decode(scratch.file("clips/" + row[0]))
            let first = Int((Double(row[9])! * 16_000).rounded())
            // To the last bit or so: libmpg123 rounds a few samples after a seek differently (1e-7); a frame decoded
            // without the bits it takes from the frames before is off by 1e-3 and more.
            let difference = zip(clip, night[first...]).map { abs($0 - $1) }.max() ?? 1
            #expect(difference < 1e-6, "\(row[0]) is not the night's audio from \(row[9]) s: off by \(difference)")
            clips += 1
        }
        #expect(clips >= 8, "the night's alerts: \(clips)")
    }
}
