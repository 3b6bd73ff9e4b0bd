import Foundation
import Testing

/// `somniq-synth dev-nights`, what the whole-night card is scored on: the same clips and seed give the same nights,
/// byte for byte, in every run (a night drawn in another order would score differently), and the truth it writes holds
/// together.
@Suite struct DevNightsCommandTests {
    /// Short clips of each kind the nights are built from, synthesised, with a room tone as their background.
    func clips(in scratch: Scratch) throws -> String {
        var manifest = "path\tlabel\tclass\n"
        let kinds: [(label: String, classID: String, signal: String, seconds: String, count: Int)] = [
            ("snoring", "snoring", "snore", "1.5", 4), ("cough", "cough", "cough", "0.5", 3), ("speech", "speech", "speech", "2", 3),
            ("alarm", "smoke_detector", "alarm", "3", 2), ("door", "door_slam", "door", "1", 2), ("other", "", "breath", "2", 2),
            ("silence", "", "room", "20", 1),
        ]
        for kind in kinds {
            for number in 1...kind.count {
                let path = scratch.file("\(kind.label)-\(number).wav")
                let made = try CommandRunner.run(["signal", kind.signal, "--seconds", kind.seconds, "--level=-20", "--seed", String(number),
                                                  "--output", path], product: "somniq-synth")
                #expect(made.status == 0, "\(made.stderr)")
                manifest += "\(path)\t\(kind.label)\t\(kind.classID)\n"
            }
        }
        try manifest.write(toFile: scratch.file("clips.tsv"), atomically: true, encoding: .utf8)
        return scratch.file("clips.tsv")
    }

    func build(_ clips: String, into folder: String) throws -> CommandResult {
        try CommandRunner.run(["dev-nights", "--clips", clips, "--nights", "2", "--seed", "7", "--output-dir", folder, "--prefix", "t"],
                              product: "somniq-synth")
    }

    func rows(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test func theSameClipsAndSeedGiveTheSameNightsInEveryRun() throws {
        let scratch = Scratch()
        let clips = try clips(in: scratch)
        let first = try build(clips, into: scratch.file("first"))
        let second = try build(clips, into: scratch.file("second"))
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        let files = ["t-0.wav", "t-1.wav", "t-truth.tsv", "t-snore-bouts.tsv", "t-snoring-recordings.tsv"]
        for name in files {
            let a = try Data(contentsOf: URL(fileURLWithPath: scratch.file("first/\(name)")))
            let b = try Data(contentsOf: URL(fileURLWithPath: scratch.file("second/\(name)")))
            #expect(a == b, "\(name) differs between two runs")
        }
        let nightA = try Data(contentsOf: URL(fileURLWithPath: scratch.file("first/t-0.wav")))
        let nightB = try Data(contentsOf: URL(fileURLWithPath: scratch.file("first/t-1.wav")))
        #expect(nightA != nightB, "two nights of one run are different nights")

        // The truth holds together: events in time order within each night, each a real stretch; every bout of single
        // snores is a snoring event of its own, with at least three snores.
        let truth = try rows(scratch.file("first/t-truth.tsv"))
        #expect(!truth.isEmpty)
        for night in ["t-0.wav", "t-1.wav"] {
            let events = truth.filter { $0[0] == night }.map { (Double($0[1])!, Double($0[2])!, $0[3]) }
            #expect(events.allSatisfy { $0.0 < $0.1 })
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.0 <= $1.0 })
            #expect(Set(events.map(\.2)).isSubset(of: ["snoring", "cough", "speech", "smoke_detector", "door_slam"]))
        }
        let bouts = try rows(scratch.file("first/t-snore-bouts.tsv"))
        #expect(!bouts.isEmpty)
        for bout in bouts {
            #expect(Int(bout[3])! >= 3)
            #expect(truth.contains { $0[0] == bout[0] && $0[1] == bout[1] && $0[2] == bout[2] && $0[3] == "snoring" }, "\(bout)")
        }
        // Each night lasts 5-15 minutes (stderr says how long, per night).
        let lengths = first.stderr.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("t-"), let seconds = line.split(separator: " ").dropFirst().first else { return nil }
            return Double(seconds)
        }
        #expect(lengths.count == 2 && lengths.allSatisfy { (300...900).contains($0) }, "\(first.stderr)")
    }
}
