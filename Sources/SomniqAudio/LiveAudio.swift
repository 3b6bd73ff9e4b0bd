import Foundation

/// Raw PCM as a sound card's recorder streams it (`arecord -f S16_LE -r 16000 -c 1`): no header, so its rate,
/// channels and encoding are told.
public struct RawPCMFormat: Equatable, Sendable {
    public enum Encoding: String, CaseIterable, Sendable {
        /// Signed little-endian integers of 16, 24 (packed in 3 bytes) and 32 bits, and 32-bit floats.
        case s16le = "s16le", s24le = "s24le", s32le = "s32le", f32le = "f32le"

        var bytes: Int {
            switch self {
            case .s16le: 2
            case .s24le: 3
            case .s32le, .f32le: 4
            }
        }
    }

    public var sampleRate: Int
    public var channelCount: Int
    public var encoding: Encoding

    public init(sampleRate: Int, channelCount: Int, encoding: Encoding) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.encoding = encoding
    }

    public var bytesPerFrame: Int { channelCount * encoding.bytes }

    /// The samples of `bytes` (whole frames, little-endian), interleaved, full scale ±1.
    func samples(_ bytes: UnsafeRawBufferPointer) -> [Float] {
        let width = encoding.bytes
        return (0..<(bytes.count / width)).map { index in
            let base = index * width
            switch encoding {
            case .s16le:
                return Float(Int16(bitPattern: UInt16(bytes[base]) | UInt16(bytes[base + 1]) << 8)) / 32_768
            case .s24le:
                let value = Int32(bitPattern: UInt32(bytes[base]) << 8 | UInt32(bytes[base + 1]) << 16 | UInt32(bytes[base + 2]) << 24) >> 8
                return Float(value) / 8_388_608
            case .s32le:
                let bits = UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16 | UInt32(bytes[base + 3]) << 24
                return Float(Double(Int32(bitPattern: bits)) / 2_147_483_648)
            case .f32le:
                let bits = UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16 | UInt32(bytes[base + 3]) << 24
                return Float(bitPattern: bits)
            }
        }
    }
}

/// Writes raw PCM arriving on a descriptor (standard input, a pipe from a recorder) into an audio file as it comes,
/// each block handed to the file at once, so that a `GrowingAudioSource` can follow the file while it is written and
/// the night can be reviewed and reanalysed later. Stops at the end of the input.
public enum RawAudioRecorder {
    /// Copies `input` into `writer` until the input ends or `shouldStop` says so (checked between reads); closes the
    /// writer (its header then final). Returns the frames written. A trailing partial frame is dropped.
    public static func record(from input: Int32, format: RawPCMFormat, into writer: AudioFileWriter, blockFrames: Int = 1_600,
                              shouldStop: () -> Bool = { false }) throws(AudioFileError) -> Int64 {
        precondition(writer.channelCount == format.channelCount && writer.sampleRate == format.sampleRate)
        let frameBytes = format.bytesPerFrame
        var buffer = [UInt8](repeating: 0, count: blockFrames * frameBytes)
        var held = 0, frames: Int64 = 0
        while !shouldStop() {
            let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress! + held, $0.count - held) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: writer.path, reason: "reading the input: \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            held += got
            let whole = held / frameBytes * frameBytes
            guard whole > 0 else { continue }
            let samples = buffer.withUnsafeBytes { format.samples(UnsafeRawBufferPointer(rebasing: $0[0..<whole])) }
            try writer.write(interleaved: samples)
            writer.flush()
            frames += Int64(whole / frameBytes)
            // The partial frame left over moves to the front (the regions may overlap).
            buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + whole, held - whole) }
            held -= whole
        }
        try writer.close()
        return frames
    }
}
