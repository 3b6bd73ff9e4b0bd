import Foundation
import SomniqAudio
import Testing

/// An overnight recording in Apple Lossless, as an iPhone's recorder writes it: the packet table (a byte or more for each
/// packet of 4,096 frames) after the audio, and far larger than the 100 KB libsndfile lets a header grow to. It must be
/// read whole: a night of 8.5 hours at 16 kHz has some 120,000 packets.
@Suite struct LongAppleLosslessTests {
    let folder = TemporaryFolder()

    /// The chunks of a CAF file, in order: four-character type and contents.
    static func chunks(of bytes: [UInt8]) -> [(type: String, contents: ArraySlice<UInt8>)] {
        var chunks: [(String, ArraySlice<UInt8>)] = []
        var position = 8
        while position + 12 <= bytes.count {
            let type = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
            let size = Int(bytes[(position + 4)..<(position + 12)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            chunks.append((type, bytes[(position + 12)..<(position + 12 + size)]))
            position += 12 + size
        }
        return chunks
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// CAF's variable-length integer: seven bits a byte, most significant first, the high bit set on all but the last.
    static func variableLength(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }

    @Test func aNightWhosePacketTableFollowsTheAudioIsReadWhole() throws {
        // One packet of a steady tone, encoded by libsndfile, repeated for the night.
        let short = folder.file("short.caf")
        let writer = try AudioFileWriter(path: short, sampleRate: 16_000, container: .caf, encoding: .alac16)
        try writer.write(interleaved: (0..<(2 * 4_096)).map { Float(sin(Double($0) * 0.3)) * 0.25 })
        try writer.close()
        let parts = Self.chunks(of: Array(try Data(contentsOf: URL(fileURLWithPath: short))))
        let table = try #require(parts.first { $0.type == "pakt" }).contents
        let audio = try #require(parts.first { $0.type == "data" }).contents
        // The first packet's size: the table's first entry, after its 24-byte header.
        var packetSize = 0, index = table.startIndex + 24
        while true {
            let byte = table[index]
            packetSize = packetSize << 7 | Int(byte & 0x7F)
            index += 1
            if byte & 0x80 == 0 { break }
        }
        try #require(packetSize >= 128, "two bytes an entry: \(packetSize)")
        let packet = audio[(audio.startIndex + 4)..<(audio.startIndex + 4 + packetSize)]  // after the edit count

        let packets = 120_000
        var file = Array("caff".utf8) + Self.bigEndian(UInt16(1)) + Self.bigEndian(UInt16(0))
        for part in parts where part.type != "pakt" && part.type != "data" {
            file += Array(part.type.utf8) + Self.bigEndian(Int64(part.contents.count)) + part.contents
        }
        file += Array("data".utf8) + Self.bigEndian(Int64(4 + packets * packetSize)) + Self.bigEndian(UInt32(0))
        file.reserveCapacity(file.count + packets * (packetSize + 2) + 100)
        for _ in 0..<packets { file += packet }
        var entries = Self.bigEndian(Int64(packets)) + Self.bigEndian(Int64(packets * 4_096)) + Self.bigEndian(Int32(0))
            + Self.bigEndian(Int32(0))
        for _ in 0..<packets { entries += Self.variableLength(packetSize) }
        #expect(entries.count > 200_000, "a table larger than libsndfile's largest header")
        file += Array("pakt".utf8) + Self.bigEndian(Int64(entries.count)) + entries
        let night = folder.file("night.caf")
        try Data(file).write(to: URL(fileURLWithPath: night))

        let reader = try AudioFileReader(path: night)
        #expect(reader.format.frameCount == Int64(packets) * 4_096)
        #expect(reader.format.durationSeconds > 8.5 * 3_600)
        var first = [Float](repeating: 0, count: 4_096)
        #expect(try first.withUnsafeMutableBufferPointer { try reader.read(into: $0) } == 4_096)
        let original = try AudioFileReader(path: short)
        var expected = [Float](repeating: 0, count: 4_096)
        _ = try expected.withUnsafeMutableBufferPointer { try original.read(into: $0) }
        #expect(first == expected, "the first packet decodes as it was written")
        // The night's last packet is reached by seeking there through the table.
        try reader.seek(toFrame: Int64(packets - 1) * 4_096)
        var last = [Float](repeating: 0, count: 8_192)
        #expect(try last.withUnsafeMutableBufferPointer { try reader.read(into: $0) } == 4_096)
        #expect(Array(last[0..<4_096]) == expected)
    }
}
