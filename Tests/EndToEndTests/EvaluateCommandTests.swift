import Foundation
import SomniqEvaluation
import Testing
import SomniqModel

@Suite struct EvaluateCommandTests {
    let labels = CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000.tsv"

    @Test func scoresTheSampleNightPerProfile() throws {
        let result = try CommandRunner.run(["evaluate", sampleNight, "--labels", labels, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["onsetCollarSeconds"] as? Double == 0.2)
        let profiles = json["profiles"] as! [[String: Any]]
        #expect(profiles.map { $0["profile"] as! String } == ["very-conservative", "conservative", "balanced", "sensitive", "very-sensitive"])
        let balanced = profiles[2]
        let segment = (balanced["segmentBased"] as! [String: Any])["overall"] as! [String: Any]
        #expect(segment["nRef"] as? Int == 163, "the ground truth covers 163 class-segments")
        #expect((segment["f1"] as! Double) > 0.8)
        let classes = (balanced["eventBased"] as! [String: Any])["classWise"] as! [String: Any]
        #expect(Set(classes.keys) == ["breathing", "cough", "door_slam", "gasp", "rain", "smoke_detector", "snoring", "speech"])
    }

    /// The labels one marks in Audacity for `fit` score the tool too: a folder of label tracks named like the
    /// recordings reads as the same events in a DCASE table.
    @Test func takesAFolderOfAudacityLabelsAsFitDoes() throws {
        let scratch = Scratch()
        let track = AudacityLabels.format(try DCASETable.parse(contentsOf: labels))
        try FileManager.default.createDirectory(atPath: scratch.file("labels"), withIntermediateDirectories: true)
        try track.write(toFile: scratch.file("labels/sleep_recording_1795302000.txt"), atomically: true, encoding: .utf8)
        let fromTable = try CommandRunner.run(["evaluate", sampleNight, "--labels", labels, "--format", "csv"])
        let fromFolder = try CommandRunner.run(["evaluate", sampleNight, "--labels", scratch.file("labels"), "--format", "csv"])
        #expect(fromFolder.status == 0, "\(fromFolder.stderr)")
        #expect(fromFolder.stdout == fromTable.stdout)
        #expect(fromFolder.stdout.contains("balanced,event,overall,micro,"))

        try FileManager.default.removeItem(atPath: scratch.file("labels/sleep_recording_1795302000.txt"))
        let unlabelled = try CommandRunner.run(["evaluate", sampleNight, "--labels", scratch.file("labels"), "--format", "csv"])
        #expect(unlabelled.stderr.contains("\(sampleNight): warning: no events in \(scratch.file("labels")); every detection counts as an insertion"),
                "\(unlabelled.stderr)")
    }

    @Test func writesTheDetectedEventsItScored() throws {
        let scratch = Scratch()
        let result = try CommandRunner.run(["evaluate", sampleNight, "--labels", labels, "--profile", "balanced",
                                            "--estimates-out", scratch.path, "--format", "csv"])
        #expect(result.status == 0)
        let written = try String(contentsOfFile: scratch.file("balanced.tsv"), encoding: .utf8)
        #expect(written.hasPrefix("filename\tonset\toffset\tevent_label\n"))
        #expect(written.split(separator: "\n").count == 9, "8 episodes and a header")
        // Scoring those events against themselves is perfect.
        let selfScore = try CommandRunner.run(["evaluate", sampleNight, "--labels", scratch.file("balanced.tsv"),
                                               "--profile", "balanced", "--format", "csv"])
        #expect(selfScore.stdout.contains("balanced,event,overall,micro,1,1,1,0,8,8,8,0,0"), "\(selfScore.stdout)")
        #expect(result.stdout.hasPrefix("profile,metric,scope,label,f1,precision,recall,error_rate,n_ref,n_sys,tp,fp,fn\r\n"))
    }

    @Test func scoresLabelledClipsFromFoldersAndManifests() throws {
        let scratch = Scratch()
        for (label, kind, seed) in [("snoring", "snore", 1), ("snoring", "snore", 2), ("alarm", "alarm", 3), ("other", "room", 4),
                                    ("skip", "speech", 5)] {
            try FileManager.default.createDirectory(atPath: scratch.file("clips/\(label)"), withIntermediateDirectories: true)
            let made = try CommandRunner.run(["signal", kind, "--seconds", "4", "--level=-20", "--seed", String(seed),
                                              "--output", scratch.file("clips/\(label)/\(seed).wav")], product: "somniq-synth")
            #expect(made.status == 0)
        }
        try "alarm\tsmoke_detector,siren\nother\t\nskip\t?\n".write(toFile: scratch.file("map.tsv"), atomically: true, encoding: .utf8)
        let folders = try CommandRunner.run(["evaluate", "--clips", scratch.file("clips"), "--map", scratch.file("map.tsv"), "--format", "json"])
        #expect(folders.status == 0, "\(folders.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(folders.stdout.utf8)) as! [String: Any]
        #expect(json["clips"] as? Int == 4)
        #expect(json["excluded"] as? Int == 1)
        #expect(json["rule"] as? String == TopClass.clipRule)
        #expect((json["rule"] as! String).contains("multiplied over its loud windows"))
        let confusion = json["confusion"] as! [String: Any]
        #expect(confusion["labels"] as? [String] == ["alarm", "other", "snoring"])

        let manifest = "path\tlabel\tnote\nclips/snoring/1.wav\tsnoring\tx\n\(scratch.file("clips/alarm/3.wav"))\talarm\ty\n"
        try manifest.write(toFile: scratch.file("manifest.tsv"), atomically: true, encoding: .utf8)
        let listed = try CommandRunner.run(["evaluate", "--clips", scratch.file("manifest.tsv"), "--map", scratch.file("map.tsv")])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("2 clips scored"))
        #expect(listed.stdout.contains("confusion matrix"))
    }

    /// When not one clip or recording could be analysed there is nothing to score: an error naming how many failed
    /// and exit 2 (nothing done), not an empty report with exit 1 (some inputs failed).
    @Test func nothingAnalysedIsNothingDone() throws {
        let scratch = Scratch()
        try "not audio".write(toFile: scratch.file("noise.wav"), atomically: true, encoding: .utf8)
        try "path\tlabel\nnoise.wav\tsnoring\nmissing.wav\tcough\n".write(toFile: scratch.file("m.tsv"), atomically: true, encoding: .utf8)
        let clips = try CommandRunner.run(["evaluate", "--clips", scratch.file("m.tsv")])
        #expect(clips.status == 2 && clips.stdout.isEmpty, "\(clips.stdout)")
        #expect(clips.stderr.contains("noise.wav: error: not a readable audio file"), "\(clips.stderr)")
        #expect(clips.stderr.contains("none of the 2 clips of \(scratch.file("m.tsv")) could be analysed; nothing scored"), "\(clips.stderr)")
        let events = try CommandRunner.run(["evaluate", scratch.file("noise.wav"), "--labels", labels])
        #expect(events.status == 2 && events.stdout.isEmpty, "\(events.stdout)")
        #expect(events.stderr.contains("the recording could not be analysed; nothing to score against"), "\(events.stderr)")
    }

    @Test func badArgumentsAreUsageErrors() throws {
        #expect(try CommandRunner.run(["evaluate", sampleNight]).status == 64)
        #expect(try CommandRunner.run(["evaluate", "--clips", "x", "--labels", "y"]).status == 64)
        let malformed = Scratch()
        try "filename\tonset\toffset\tevent_label\nx.wav\tsoon\t3\tcough\n".write(toFile: malformed.file("l.tsv"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["evaluate", sampleNight, "--labels", malformed.file("l.tsv")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("l.tsv:2: error:"))
    }
}
