import CSndfile

/// Writes audio through libsndfile: the fixture synthesiser and the review-clip cutter use it.
public final class AudioFileWriter {
    /// Containers and encodings the writer offers; libsndfile checks the combination on open.
    public enum Container: String, CaseIterable, Sendable { case wav, caf, flac, aiff }
    public enum Encoding: String, CaseIterable, Sendable { case pcm16, pcm24, pcm32, float32, float64, alac16 }

    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    /// The file's container and encoding as libsndfile names them (as `AudioFileReader.format` will read them back);
    /// `frameCount` 0.
    public let format: AudioFormatInfo
    private let handle: OpaquePointer
    private var closed = false
    /// Frames written so far, and the most the encoding can hold (`appleLosslessFrameLimit` for Apple Lossless).
    private var framesWritten: Int64 = 0
    private let frameLimit: Int64?

    /// Creates (or truncates) the file at `path`.
    public convenience init(path: String, sampleRate: Int, channelCount: Int = 1,
                            container: Container = .wav, encoding: Encoding = .pcm16) throws(AudioFileError) {
        try self.init(path: path, descriptor: nil, sampleRate: sampleRate, channelCount: channelCount, container: container,
                      encoding: encoding)
    }

    /// Writes to an open descriptor (a file the caller created, say exclusively), which `close` closes; `path` names it
    /// in errors.
    public convenience init(descriptor: Int32, path: String, sampleRate: Int, channelCount: Int = 1,
                            container: Container = .wav, encoding: Encoding = .pcm16) throws(AudioFileError) {
        try self.init(path: path, descriptor: Optional(descriptor), sampleRate: sampleRate, channelCount: channelCount,
                      container: container, encoding: encoding)
    }

    private init(path: String, descriptor: Int32?, sampleRate: Int, channelCount: Int,
                 container: Container, encoding: Encoding) throws(AudioFileError) {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        let type: Int32 = switch container {
        case .wav: Int32(SF_FORMAT_WAV)
        case .caf: Int32(SF_FORMAT_CAF)
        case .flac: Int32(SF_FORMAT_FLAC)
        case .aiff: Int32(SF_FORMAT_AIFF)
        }
        info.format = type | Self.subtype(encoding)
        guard sf_format_check(&info) == SF_TRUE else {
            let held = Encoding.allCases.filter { candidate in
                var probe = info
                probe.format = type | Self.subtype(candidate)
                return sf_format_check(&probe) == SF_TRUE
            }
            throw .cannotCreate(path: path, reason: "\(container.rawValue) cannot hold \(encoding.rawValue); it holds "
                                    + held.map(\.rawValue).joined(separator: ", "))
        }
        let opened = descriptor.map { sf_open_fd($0, Int32(SFM_WRITE), &info, Int32(SF_TRUE)) } ?? sf_open(path, Int32(SFM_WRITE), &info)
        guard let handle = opened else {
            throw .cannotCreate(path: path, reason: String(cString: sf_strerror(nil)))
        }
        // Without this, float input outside [-1, 1] wraps around in integer encodings.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk in float files: it carries the time of writing, and the same samples must make the same
        // file, byte for byte.
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        format = AudioFormatInfo(sampleRate: sampleRate, channelCount: channelCount, frameCount: 0,
                                 container: AudioFileReader.containerName(info.format),
                                 encoding: AudioFileReader.encodingName(info.format))
        self.handle = handle
        frameLimit = encoding == .alac16 ? Self.appleLosslessFrameLimit(channelCount: channelCount) : nil
    }

    /// The longest Apple Lossless recording libsndfile writes whole. Its writer puts the packet table (one to three
    /// bytes for each packet of 4,096 frames) in the CAF header, which it will not grow past 100 KB: a longer file
    /// comes out with a broken header, unreadable, and no error (libsndfile 1.2). The limit allows three bytes a
    /// packet where a packet can exceed 16 KB (more than one channel), two otherwise, with room for the other chunks:
    /// about 1.8 hours of mono at 16 kHz, 39 minutes at 44.1 kHz. (Checked: 24,997 packets of 44.1 kHz room noise, two
    /// bytes each, read back; 29,070 did not.)
    public static func appleLosslessFrameLimit(channelCount: Int) -> Int64 {
        let packets: Int64 = channelCount == 1 ? 25_000 : 16_600
        return packets * 4_096
    }

    /// libsndfile's subtype of an encoding.
    private static func subtype(_ encoding: Encoding) -> Int32 {
        switch encoding {
        case .pcm16: Int32(SF_FORMAT_PCM_16)
        case .pcm24: Int32(SF_FORMAT_PCM_24)
        case .pcm32: Int32(SF_FORMAT_PCM_32)
        case .float32: Int32(SF_FORMAT_FLOAT)
        case .float64: Int32(SF_FORMAT_DOUBLE)
        case .alac16: Int32(SF_FORMAT_ALAC_16)
        }
    }

    deinit { if !closed { sf_close(handle) } }

    /// Finishes the file (its header's sizes written) and closes it.
    public func close() throws(AudioFileError) {
        guard !closed else { return }
        closed = true
        guard sf_close(handle) == 0 else { throw .writeFailed(path: path, reason: String(cString: sf_strerror(nil))) }
    }

    /// Names the program that wrote the file (a WAV's INFO/ISFT), before any audio is written: how a later run knows a
    /// file as its own.
    public func setSoftware(_ name: String) {
        sf_set_string(handle, Int32(SF_STR_SOFTWARE), name)
    }

    /// Writes interleaved frames (`samples.count` must be a multiple of the channel count).
    public func write(interleaved samples: [Float]) throws(AudioFileError) {
        precondition(samples.count % channelCount == 0, "interleaved samples must fill whole frames")
        let frames = samples.count / channelCount
        if let frameLimit, framesWritten + Int64(frames) > frameLimit {
            throw .longerThanEncodingAllows(path: path, encoding: "Apple Lossless", maximumFrames: frameLimit, sampleRate: sampleRate)
        }
        let written = samples.withUnsafeBufferPointer { buffer in
            sf_writef_float(handle, buffer.baseAddress, sf_count_t(frames))
        }
        guard written == frames else { throw .writeFailed(path: path, reason: String(cString: sf_strerror(handle))) }
        framesWritten += Int64(frames)
    }

    /// Hands what has been written to the file (the encoder's whole blocks), for a reader following it.
    public func flush() {
        sf_write_sync(handle)
    }

    /// Stores the recording's date (libsndfile's date string: a WAV's INFO `ICRD`) before any audio is written; give it
    /// a zone (`2026-11-21T23:00:00Z`), as a date without one is read as the local time of whoever analyses it.
    public func setDateString(_ iso: String) {
        sf_set_string(handle, Int32(SF_STR_DATE), iso)
    }
}
