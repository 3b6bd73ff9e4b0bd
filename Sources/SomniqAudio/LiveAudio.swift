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

/// Audio that arrives as it is recorded, read as mono blocks the moment they come: a file another program is still
/// writing (`AudioFileReader(following:)`) or raw PCM on a pipe (`RawPCMStream`). What `RecordingAnalyzer.follow` hears.
public protocol LiveAudio: AnyObject {
    var sampleRate: Int { get }
    /// Fills `output` with the next mono frames, waiting until at least one has come; 0 once the audio has ended.
    func read(into output: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int
    /// Called on the reading thread each time a read is about to wait for more audio (every poll while it waits): the
    /// moment for a follower to act on all it has read, since nothing more comes until the recorder writes again.
    var beforeWaiting: (() -> Void)? { get set }
}

extension AudioFileReader: LiveAudio {
    public var sampleRate: Int { format.sampleRate }

    /// A file being followed waits in its source; any other file never waits.
    public var beforeWaiting: (() -> Void)? {
        get { source?.beforeWaiting }
        set { source?.beforeWaiting = newValue }
    }
}

/// A request to stop, made on one thread (a signal's handler) and read on another (the one reading the audio).
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false

    func request() {
        lock.lock()
        requested = true
        lock.unlock()
    }

    var isRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return requested
    }
}

/// Raw PCM arriving on a descriptor (standard input: `arecord -f S16_LE -r 16000 -c 1 | ...`), read as it comes and
/// mixed to mono as `AudioFileReader` mixes a file, and, with `record`, written to an audio file block by block, so that
/// the night can be reviewed and reanalysed later: analysing that file hears, sample for sample, what was read here
/// (for an integer `record` encoding as wide as the input's, or a float one).
///
/// It ends at the end of the input, when nothing has come for `idleSeconds`, or on `stop()` (checked every
/// `pollSeconds` while waiting); a trailing partial frame is dropped.
public final class RawPCMStream: LiveAudio, @unchecked Sendable {
    public enum EndReason: String, Sendable {
        /// The input was closed (the recorder ended).
        case ended
        /// Nothing came for `idleSeconds`.
        case idle
        /// `stop()` was called.
        case stopped
    }

    public let format: RawPCMFormat
    /// How errors name the input ("standard input").
    public let name: String
    public let idleSeconds: Double
    public let pollSeconds: Double
    public var sampleRate: Int { format.sampleRate }
    public private(set) var endReason: EndReason?
    public private(set) var framesRead: Int64 = 0
    /// The one channel read (from 1) where the channels are not mixed; `nil` for the mix, or a single channel.
    public var channel: Int? { picked.map { $0 + 1 } }
    /// The container and encoding of the recording written as the stream is read, if any.
    public var recordingFormat: AudioFormatInfo? { record?.format }

    private let descriptor: Int32
    private let record: AudioFileWriter?
    /// The one channel read (from 0), where the channels are not mixed.
    private let picked: Int?
    private var bytes: [UInt8] = []
    private var held = 0
    private var lastData = Date()
    private let stopping = StopRequest()
    public var beforeWaiting: (() -> Void)?

    /// Reads `descriptor` (not closed here) as raw PCM of `format`, writing what it reads to `record` when given (the
    /// writer's rate and channels must be the format's; `finish()` closes it). The frames read are the channels mixed,
    /// or `channel` (from 1) alone where it is given; the recording holds every channel either way.
    public init(descriptor: Int32, format: RawPCMFormat, name: String = "standard input", record: AudioFileWriter? = nil,
                channel: Int? = nil, idleSeconds: Double = .infinity, pollSeconds: Double = 0.1) {
        precondition(record.map { $0.channelCount == format.channelCount && $0.sampleRate == format.sampleRate } ?? true,
                     "the recording must have the input's rate and channels")
        precondition(channel.map { (1...format.channelCount).contains($0) } ?? true, "a channel of the input")
        self.picked = format.channelCount > 1 ? channel.map { $0 - 1 } : nil
        self.descriptor = descriptor
        self.format = format
        self.name = name
        self.record = record
        self.idleSeconds = idleSeconds
        self.pollSeconds = pollSeconds
    }

    /// Ends the stream at what has been read: a read waiting for more returns 0 within `pollSeconds`.
    public func stop() { stopping.request() }

    public func read(into output: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        guard endReason == nil, output.count > 0 else { return 0 }
        let frameBytes = format.bytesPerFrame
        if bytes.count < output.count * frameBytes { bytes += [UInt8](repeating: 0, count: output.count * frameBytes - bytes.count) }
        let room = output.count * frameBytes
        while held < frameBytes {
            if stopping.isRequested { endReason = .stopped; return 0 }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32((pollSeconds * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: name, reason: "waiting for audio: \(String(cString: strerror(errno)))")
            }
            if ready == 0 {
                if Date().timeIntervalSince(lastData) >= idleSeconds { endReason = .idle; return 0 }
                beforeWaiting?()
                continue
            }
            let got = bytes.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + held, room - held) }
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .readFailed(path: name, reason: "reading the audio: \(String(cString: strerror(errno)))")
            }
            if got == 0 { endReason = .ended; return 0 }
            held += got
            lastData = Date()
        }
        let whole = held / frameBytes * frameBytes
        let interleaved = bytes.withUnsafeBytes { format.samples(UnsafeRawBufferPointer(rebasing: $0[0..<whole])) }
        let frames = whole / frameBytes
        // Integers are always in range; floats may be anything.
        if format.encoding == .f32le {
            for (index, sample) in interleaved.enumerated() where !(abs(sample) <= AudioFileReader.largestPlausibleSample) {
                throw .nonFiniteSamples(path: name, atSeconds: Double(framesRead + Int64(index / format.channelCount)) / Double(sampleRate))
            }
        }
        if let record {
            try record.write(interleaved: interleaved)
            record.flush()
        }
        interleaved.withUnsafeBufferPointer { samples in
            if let picked {
                AudioFileReader.pick(picked, of: samples, frames: frames, channels: format.channelCount, into: output) { $0 }
            } else {
                AudioFileReader.mixDown(samples, frames: frames, channels: format.channelCount, into: output) { $0 }
            }
        }
        // The partial frame left over moves to the front (the regions may overlap).
        bytes.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + whole, held - whole) }
        held -= whole
        framesRead += Int64(frames)
        return frames
    }

    /// Closes the recording (its header then final).
    public func finish() throws(AudioFileError) {
        try record?.close()
    }
}
