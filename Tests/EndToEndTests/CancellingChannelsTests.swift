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
    }
}
