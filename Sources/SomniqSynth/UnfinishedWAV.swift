import Foundation

/// The header of a 16-bit mono WAV as a recorder writes it: with its sizes left open while it records (`dataBytes`
/// 0, all bits set, or more than it has written, as arecord does), or final when it stops. For recordings in progress,
/// as `follow` reads them.
public enum UnfinishedWAV {
    public static func header(sampleRate: Int, dataBytes: UInt32) -> Data {
        var header = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        // The RIFF size: the data's and the rest of the header's, unless the data size is a placeholder.
        append(dataBytes == 0 || dataBytes >= 0x7FFF_FFF0 ? dataBytes : dataBytes + 36)
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(UInt16(1)); append(UInt32(sampleRate)); append(UInt32(sampleRate * 2))
        append(UInt16(2)); append(UInt16(16))
        header.append(contentsOf: Array("data".utf8))
        append(dataBytes)
        return header
    }
}
