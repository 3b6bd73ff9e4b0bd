import Foundation
import SomniqAudio
import Testing

/// A night recorded with the gain too high is clipped at full scale: the analysis says so, and what to do, where a
/// sound clipped now and then, or a night recorded well, draws no word.
@Suite struct ClippingTests {
    @Test func aClippedNightIsReportedAndAFewClippedSoundsAreNot() throws {
        let scratch = Scratch()
        let audio = try AudioFileReader.readMono(try Nights.copies(into: scratch.file("mono"), count: 1)[0])
        func write(_ name: String, channels: Int = 1, encoding: AudioFileWriter.Encoding = .pcm16,
                   _ samples: [Float]) throws -> String {
            let path = scratch.file(name)
            let writer = try AudioFileWriter(path: path, sampleRate: audio.sampleRate, channelCount: channels, encoding: encoding)
            try writer.write(interleaved: samples)
            try writer.close()
            return path
        }
        func clipped(_ value: Float) -> Float { min(1, max(-1, value)) }
        let peak = audio.samples.reduce(0) { max($0, abs($1)) }
        // The whole night 30 dB louder: every loud stretch flattened.
        let loud = try write("loud.wav", audio.samples.map { clipped($0 * 31.6) })
        // Its left channel so, as a 24-bit stereo recorder would write it, the right channel well below.
        let oneChannel = try write("one-channel.wav", channels: 2, encoding: .pcm24,
                                   audio.samples.flatMap { [clipped($0 * 31.6), $0] })
        // A night that reaches full scale now and then: its peak raised to full scale, and 0.1 s at full scale in its
        // first read (always one of those measured), a large share of the few reads of a four-minute night.
        var fewClipped = audio.samples.map { $0 / peak }
        for index in 100..<1_700 { fewClipped[index] = index % 2 == 0 ? 1 : -1 }
        let few = try write("few.wav", encoding: .float32, fewClipped)
        let result = try CommandRunner.run(["analyze", loud, oneChannel, few, "--db", scratch.file("n.sqlite"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        for path in [loud, oneChannel] {
            let line = result.stderr.split(separator: "\n").first { $0.hasPrefix("\(path): warning: ") }.map(String.init) ?? ""
            #expect(line.contains(": warning: about ") && line.contains("% of its samples lie at full scale: the recording is clipped (the recorder's input gain "
                + "was too high), so its loudest sounds read quieter than they were"), "\(result.stderr)")
            let share = Double(line.split(separator: " ")[3].dropLast()) ?? 0
            #expect(share >= 0.1, "\(line)")
        }
        #expect(!result.stderr.contains("\(few): warning"), "\(result.stderr)")
        #expect(result.stderr.contains("3 analysed, 0 skipped (already done), 0 failed"), "\(result.stderr)")

        // The store keeps it: the listing, the export and the next morning's report say so too.
        let listed = try RecordedFaults(database: scratch.file("n.sqlite"))
        #expect(listed.clipped == [loud, oneChannel] && listed.channelsCancel.isEmpty, "\(listed)")
        for (path, clipped) in [(loud, true), (few, false)] {
            let page = try RecordedFaults.reportPage(path, database: scratch.file("n.sqlite"), in: scratch)
            #expect(page.contains("⚠ Clipped: about ") == clipped && page.contains("lower the gain") == clipped, "\(path)")
        }

        // `follow` stores the night as `analyze` does, and says the same of it.
        let followed = try CommandRunner.run(["follow", loud, "--db", scratch.file("f.sqlite"), "--idle", "1"])
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stderr.contains("\(loud): warning: about ") && followed.stderr.contains("% of its samples lie at full scale"),
                "\(followed.stderr)")
    }
}
