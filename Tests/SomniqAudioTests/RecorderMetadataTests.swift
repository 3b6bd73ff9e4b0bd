import Foundation
import SomniqAudio
import Testing

/// The start a recorder writes into a WAV: a broadcast (`bext`) origination, an iXML one (often after the audio), or an
/// INFO date; read in that order (#46).
@Suite struct RecorderMetadataTests {
    /// One second of quiet 16 kHz WAV as libsndfile writes it, and its bytes.
    func plainWAV(_ folder: TemporaryFolder, _ name: String) throws -> (String, [UInt8]) {
        let path = folder.file(name)
        let writer = try AudioFileWriter(path: path, sampleRate: 16_000)
        try writer.write(interleaved: [Float](repeating: 0.001, count: 16_000))
        try writer.close()
        return (path, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(body.count)
        return Array(id.utf8) + withUnsafeBytes(of: size.littleEndian) { Array($0) } + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// `bytes` with `extra` inserted before its data chunk (or appended), the RIFF size set to match.
    func spliced(_ bytes: [UInt8], _ extra: [UInt8], beforeData: Bool) -> [UInt8] {
        var out = bytes
        if beforeData {
            let data = Array("data".utf8)
            let index = (12..<(out.count - 4)).first { Array(out[$0..<($0 + 4)]) == data }!
            out.insert(contentsOf: extra, at: index)
        } else {
            out += extra
        }
        let riff = UInt32(out.count - 8)
        out.replaceSubrange(4..<8, with: withUnsafeBytes(of: riff.littleEndian) { Array($0) })
        return out
    }

    @Test func readsTheIXMLOriginationEvenAfterTheAudio() throws {
        let folder = TemporaryFolder()
        let (path, bytes) = try plainWAV(folder, "take.wav")
        let xml = "<?xml version=\"1.0\"?><BWFXML><BEXT><BWF_ORIGINATION_DATE>2026-03-04</BWF_ORIGINATION_DATE>"
            + "<BWF_ORIGINATION_TIME>22:15:07</BWF_ORIGINATION_TIME></BEXT></BWFXML>"
        try Data(spliced(bytes, chunk("iXML", Array(xml.utf8)), beforeData: false)).write(to: URL(fileURLWithPath: path))
        let reader = try AudioFileReader(path: path)
        #expect(reader.format.frameCount == 16_000, "the chunk after the audio is no audio")
        // The recorder's clock, read in the zone the analysis is given.
        #expect(reader.metadataStartDate(timeZone: TimeZone(identifier: "UTC")!) == RecordingStartTime.parseISO8601("2026-03-04T22:15:07Z"))
        #expect(reader.metadataStartDate(timeZone: TimeZone(identifier: "America/New_York")!)
            == RecordingStartTime.parseISO8601("2026-03-04T22:15:07-05:00"))
    }

    @Test func readsTheBroadcastOriginationFirst() throws {
        let folder = TemporaryFolder()
        let (path, bytes) = try plainWAV(folder, "bwf.wav")
        // bext: description 256, originator 32, reference 32, date 10, time 8, time reference 8, version 2, UMID 64,
        // loudness 10, reserved 180: 602 bytes before the coding history.
        var bext = [UInt8](repeating: 0, count: 602)
        bext.replaceSubrange(320..<338, with: Array("2025-12-31".utf8) + Array("23:59:58".utf8))
        let xml = "<BWFXML><BEXT><BWF_ORIGINATION_DATE>2026-03-04</BWF_ORIGINATION_DATE><BWF_ORIGINATION_TIME>22:15:07"
            + "</BWF_ORIGINATION_TIME></BEXT></BWFXML>"
        let both = spliced(spliced(bytes, chunk("bext", bext), beforeData: true), chunk("iXML", Array(xml.utf8)), beforeData: false)
        try Data(both).write(to: URL(fileURLWithPath: path))
        #expect(try AudioFileReader(path: path).metadataStartDate(timeZone: TimeZone(identifier: "Europe/Berlin")!)
            == RecordingStartTime.parseISO8601("2025-12-31T23:59:58+01:00"))
    }

    @Test func noChunkNoDateAndADamagedWalkEnds() throws {
        let folder = TemporaryFolder()
        let (path, bytes) = try plainWAV(folder, "plain.wav")
        #expect(try AudioFileReader(path: path).metadataStartDate() == nil)
        // A trailing chunk whose size points far past the end: the walk stops, the file still reads.
        let damaged = bytes + Array("junk".utf8) + [0xFF, 0xFF, 0xFF, 0x7F]
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(try AudioFileReader(path: path).metadataStartDate() == nil)
    }
}
