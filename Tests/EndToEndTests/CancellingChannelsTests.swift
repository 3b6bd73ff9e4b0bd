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
