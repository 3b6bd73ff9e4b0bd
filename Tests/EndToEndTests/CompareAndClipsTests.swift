import CSV
import Foundation
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
}
