import Foundation
import SomniqAudio
import Testing

/// A stereo recording whose second channel is the first inverted (a miswired microphone) mixes to near silence: the
/// analysis says so, and what to do, rather than reporting a quiet night without a word.
@Suite struct CancellingChannelsTests {
    @Test func channelsThatCancelInTheMixAreReported() throws {
        let scratch = Scratch()
        let audio = try AudioFileReader.readMono(try Nights.copies(into: scratch.file("mono"), count: 1)[0])
        func stereo(_ name: String, right: (Float) -> Float) throws -> String {
            let path = scratch.file(name)
            let writer = try AudioFileWriter(path: path, sampleRate: audio.sampleRate, channelCount: 2)
            try writer.write(interleaved: audio.samples.flatMap { [$0, right($0)] })
            try writer.close()
            return path
        }
        let inverted = try stereo("inverted.wav") { -$0 }
        let copied = try stereo("copied.wav") { $0 }
        let result = try CommandRunner.run(["analyze", inverted, copied, "--db", scratch.file("n.sqlite"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(inverted): warning: its 2 channels cancel each other in the mono mix the analysis hears "
            + "(the mix lies 120 dB below them: one channel is probably inverted); analyse one channel alone"), "\(result.stderr)")
        #expect(!result.stderr.contains("\(copied): warning"), "\(result.stderr)")
        #expect(result.stderr.contains("2 analysed, 0 skipped (already done), 0 failed"), "\(result.stderr)")

        // The store keeps it: the listing, the export and the next morning's report say so too.
        let listed = try RecordedFaults(database: scratch.file("n.sqlite"))
        #expect(listed.channelsCancel == [inverted] && listed.clipped.isEmpty, "\(listed)")
        let table = try CommandRunner.run(["recordings", "--db", scratch.file("n.sqlite")]).stdout
        #expect(table.split(separator: "\n").contains { $0.contains("complete, channels cancel") && $0.hasSuffix(inverted) }, "\(table)")
        for (path, cancelling) in [(inverted, true), (copied, false)] {
            let page = try RecordedFaults.reportPage(path, database: scratch.file("n.sqlite"), in: scratch)
            #expect(page.contains("⚠ Channels that cancel: its 2 channels cancel each other") == cancelling, "\(path)")
        }
    }
}

/// `analyze --channel N` hears one channel alone: the inverted recording's night, analysed on either channel, is the
/// mono night's, episode for episode. The choice is stored and kept (a rerun skips it, a reanalysis stays on the channel)
/// until another channel is asked for; a channel the file lacks fails that file alone, naming the channels it has.
@Suite struct ChannelOptionTests {
    @Test func oneChannelAloneIsAnalysedAndKept() throws {
        let scratch = Scratch()
        let mono = try Nights.copies(into: scratch.file("mono"), count: 1)[0]
        let audio = try AudioFileReader.readMono(mono)
        let inverted = scratch.file("inverted.wav")
        do {
            let writer = try AudioFileWriter(path: inverted, sampleRate: audio.sampleRate, channelCount: 2)
            try writer.write(interleaved: audio.samples.flatMap { [$0, -$0] })
            try writer.close()
        }
        let start = ["--start", "2026-11-28T23:00:00Z"]
        let db = scratch.file("n.sqlite")
        func episodes(_ database: String) throws -> [String] {
            let csv = try CommandRunner.run(["export", "--db", database, "--what", "episodes", "--format", "csv", "--profile", "balanced"])
            // profile, class, tier, severity, start and end offsets: not the recording's id or path
            return csv.stdout.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",")[2..<8].joined(separator: ",") }
        }
        func listed() throws -> [String: Any] {
            let json = try CommandRunner.run(["recordings", "--db", db, "--format", "json"]).stdout
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            return try #require(entries.last { $0["status"] as? String == "complete" })
        }
        #expect(try CommandRunner.run(["analyze", mono, "--db", scratch.file("mono.sqlite"), "--quiet"] + start).status == 0)
        let heard = try episodes(scratch.file("mono.sqlite"))
        #expect(heard.count >= 4, "\(heard)")

        let first = try CommandRunner.run(["analyze", inverted, "--db", db, "--channel", "1", "--quiet"] + start)
        #expect(first.status == 0 && !first.stderr.contains("warning"), "\(first.stderr)")
        #expect(try episodes(db) == heard)
        #expect(try listed()["channel"] as? Int == 1)
        let table = try CommandRunner.run(["recordings", "--db", db]).stdout
        #expect(table.contains("complete, channel 1 alone"), "\(table)")
        let page = try RecordedFaults.reportPage(inverted, database: db, in: scratch)
        #expect(page.contains(" Hz, channel 1 of 2 alone · "), "the report says which channel it heard")

        // Its clips are of the channel heard, mono (the channels mixed would be silence).
        let clips = try CommandRunner.run(["clips", "--db", db, "--what", "episodes", "--output", scratch.file("clips")])
        #expect(clips.status == 0, "\(clips.stderr)")
        let cut = try FileManager.default.contentsOfDirectory(atPath: scratch.file("clips")).filter { $0.hasSuffix(".wav") }.sorted()
        #expect(cut.count == heard.count)
        for name in cut {
            let clip = try AudioFileReader(path: scratch.file("clips/" + name))
            #expect(clip.format.channelCount == 1)
            let samples = try AudioFileReader.readMono(scratch.file("clips/" + name)).samples
            #expect(samples.map { $0 * $0 }.reduce(0, +) > 0, "\(name) is not silent")
        }

        // `compare` of the file warns as `analyze` does, and hears the channel asked for.
        func balancedEpisodes(_ result: CommandResult) -> String? {
            result.stdout.split(whereSeparator: \.isNewline).first { $0.hasPrefix("balanced,episodes,,") }.map { String($0.split(separator: ",").last!) }
        }
        let mixed = try CommandRunner.run(["compare", inverted, "--format", "csv"])
        #expect(mixed.stderr.contains("\(inverted): warning: its 2 channels cancel each other") && balancedEpisodes(mixed) == "0",
                "\(mixed.stderr)")
        let alone = try CommandRunner.run(["compare", inverted, "--channel", "2", "--format", "csv"])
        #expect(!alone.stderr.contains("warning") && balancedEpisodes(alone) == String(heard.count), "\(alone.stdout)")

        let rerun = try CommandRunner.run(["analyze", inverted, "--db", db, "--quiet"])
        #expect(rerun.stderr.contains("0 analysed, 1 skipped (already done), 0 failed"), "\(rerun.stderr)")
        let again = try CommandRunner.run(["analyze", inverted, "--db", db, "--reanalyze", "--quiet"])
        #expect(again.stderr.contains("1 analysed") && !again.stderr.contains("warning"), "\(again.stderr)")
        #expect(try listed()["channel"] as? Int == 1 && episodes(db) == heard, "a reanalysis stays on the channel")

        let other = try CommandRunner.run(["analyze", inverted, "--db", db, "--channel", "2", "--quiet"])
        #expect(other.stderr.contains("1 analysed, 0 skipped"), "\(other.stderr)")
        #expect(try listed()["channel"] as? Int == 2 && episodes(db) == heard)

        let missing = try CommandRunner.run(["analyze", inverted, mono, "--db", scratch.file("m.sqlite"), "--channel", "2", "--quiet"])
        #expect(missing.status == 1, "a file failed, the other was analysed")
        #expect(missing.stderr.contains("\(mono): error: it has 1 channel, so there is no channel 2 to analyse; leave out --channel"),
                "\(missing.stderr)")
        #expect(missing.stderr.contains("1 analysed, 0 skipped (already done), 1 failed"), "\(missing.stderr)")
        // A mono recording written over the night analysed on channel 2 is a new recording: mixed, as any.
        try FileManager.default.removeItem(atPath: inverted)
        try FileManager.default.copyItem(atPath: mono, toPath: inverted)
        let replaced = try CommandRunner.run(["analyze", inverted, "--db", db, "--quiet"])
        #expect(replaced.stderr.contains("1 analysed, 0 skipped (already done), 0 failed"), "\(replaced.stderr)")
        #expect(try listed()["channel"] == nil && episodes(db) == heard)

        let zero = try CommandRunner.run(["analyze", inverted, "--db", db, "--channel", "0"])
        #expect(zero.status != 0 && zero.stderr.contains("--channel counts from 1"), "\(zero.stderr)")
    }
}

/// What the store says of the faults of a database's recordings, from the two commands that list them: `recordings`
/// and `export`, which must agree.
struct RecordedFaults: CustomStringConvertible {
    var clipped: [String] = []
    var channelsCancel: [String] = []

    init(database: String) throws {
        let listing = try CommandRunner.run(["recordings", "--db", database, "--format", "json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        let exported = try CommandRunner.run(["export", "--db", database, "--what", "episodes", "--format", "json"])
        let export = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        let recordings = try #require(export["recordings"] as? [[String: Any]])
        #expect(recordings.count == entries.count)
        for entry in entries {
            let path = try #require(entry["path"] as? String)
            let record = recordings.first { $0["path"] as? String == path }
            if entry["clipped"] as? Bool == true { clipped.append(path) }
            if entry["channelsCancel"] as? Bool == true { channelsCancel.append(path) }
            #expect(record?["clipped"] as? Bool == (entry["clipped"] as? Bool == true ? true : nil), "\(path)")
            #expect(record?["channelsCancel"] as? Bool == (entry["channelsCancel"] as? Bool == true ? true : nil), "\(path)")
        }
        clipped.sort()
        channelsCancel.sort()
    }

    var description: String { "clipped \(clipped), channels cancel \(channelsCancel)" }

    /// The morning report's page of the recording at `path`.
    static func reportPage(_ path: String, database: String, in scratch: Scratch) throws -> String {
        let page = scratch.file((path as NSString).lastPathComponent + ".html")
        let result = try CommandRunner.run(["report", path, "--db", database, "--no-audio", "--output", page])
        #expect(result.status == 0, "\(result.stderr)")
        return try String(contentsOfFile: page, encoding: .utf8)
    }
}
