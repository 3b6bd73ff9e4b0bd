import CSndfile
import Foundation
import SomniqFiles

/// Streams an audio file through libsndfile, block by block, mixed down to mono.
///
/// Memory is one interleaved block, whatever the file's length. Samples come out as `Float`
/// in [-1, 1] for integer encodings (libsndfile's normalisation) and as stored for float ones;
/// a NaN or infinite sample is an error, not a silent zero.
public final class AudioFileReader {
    public let path: String
    /// The file's format; where the file turns out to be cut short while reading, `frameCount` becomes the frames
    /// it holds.
    public private(set) var format: AudioFormatInfo
    /// Where the file holds less audio than its header promises (a recorder that crashed, a phone that died) and
    /// `acceptCutShort` was given: the frame count the header promised, 0 for a header left unfinished (its sizes
    /// placeholders: the recorder never finished the file). `nil` for a whole file.
    public private(set) var declaredFrameCount: Int64?
    private let acceptsCutShort: Bool
    private let handle: OpaquePointer
    /// The recording being followed, kept alive while libsndfile reads it.
    let source: GrowingAudioSource?
    private var interleaved: [Float] = []
    /// Whether the file's samples are 8- or 16-bit integers, read (and hashed) as 16-bit ones.
    private var readsIntegers: Bool
    private var integers: [Int16] = []
    private var framesRead: Int64 = 0
    /// The content hash (`contentHash`), taken as the samples are read.
    private var digest: ContentDigest
    /// Largest sample magnitude taken for audio (full scale is 1).
    public static let largestPlausibleSample: Float = 10_000
    private var digestValid = true
    /// Over the reads measured so far (one in `measureEvery`, spread through the recording, which keeps the measures'
    /// cost out of the decoding's): the frames mixed down, the mix's sum of squares and the channels' (all of them);
    /// the samples of every channel, and how many of them lay at full scale (`fullScaleShare`).
    private var framesMixed: Int64 = 0
    private var reads = 0
    private static let measureEvery = 16
    private var mixEnergy = 0.0, channelEnergy = 0.0
    private var samplesMeasured: Int64 = 0, samplesAtFullScale: Int64 = 0, readsAtFullScale = 0
    /// The one channel read (from 0) where the channels are not mixed (`readOnly(channel:)`).
    public private(set) var channel: Int?

    /// The format of a Core Audio file's audio (its `desc` chunk's format id: `lpcm`, `alac`, `aac `, ...), or `nil` for a
    /// file that is no CAF: what to name when libsndfile cannot open one.
    static func cafFormatID(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // 'caff', version and flags, then the first chunk, which the format requires to be 'desc' (its size, 8 bytes),
        // whose body starts with the sample rate (8 bytes) and the format id (4).
        guard let head = try? handle.read(upToCount: 32), head.count >= 32,
              head.prefix(4) == Data("caff".utf8), head[8..<12] == Data("desc".utf8) else { return nil }
        let id = head[28..<32]
        guard id.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: id, as: UTF8.self)
    }

    /// The codec of an MPEG-4 file (`.m4a`, `.mp4`, `.mov`: an `ftyp` box first), which libsndfile does not read: the
    /// type of its first audio sample entry (`mp4a` is AAC, `alac` Apple Lossless), looked for in the file's first and
    /// last 256 KB, where its `moov` box lies; "unknown" when neither holds one. `nil` for a file that is no MPEG-4.
    static func mpeg4Codec(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 256 << 10), head.count >= 12, head[4..<8] == Data("ftyp".utf8) else { return nil }
        var regions = [head]
        if let size = try? handle.seekToEnd(), size > UInt64(head.count) {
            try? handle.seek(toOffset: max(UInt64(head.count), size - (256 << 10)))
            if let tail = try? handle.readToEnd() { regions.append(tail) }
        }
        let entries: [(type: String, name: String)] = [("mp4a", "mp4a (AAC)"), ("alac", "alac (Apple Lossless)"),
                                                       ("Opus", "Opus"), ("fLaC", "fLaC (FLAC)"), (".mp3", "MP3")]
        for region in regions {
            // A sample entry is a box: its 4-byte size, then its type; `stsd` lists them.
            guard let table = region.range(of: Data("stsd".utf8)) else { continue }
            let after = region[table.upperBound...].prefix(64)
            for entry in entries where after.range(of: Data(entry.type.utf8)) != nil { return entry.name }
        }
        return "unknown"
    }

    /// The error for an `open(2)` failure of `path` (errno `code`).
    public static func openFailure(path: String, errno code: Int32) -> AudioFileError {
        switch code {
        case EMFILE, ENFILE: .tooManyOpenFiles(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOENT: .notFound(path: path)
        default: .cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
    }

    /// Opens `path` for reading; checks existence, type and permissions first so that the
    /// error says what is really wrong rather than libsndfile's generic message.
    ///
    /// A file whose header promises more audio than it holds is refused as `.truncated`, unless `acceptCutShort`:
    /// then it reads as the audio it holds, and `declaredFrameCount` says what the header promised. A file with no
    /// audio at all is refused either way.
    public convenience init(path: String, acceptCutShort: Bool = false) throws(AudioFileError) {
        let manager = FileManager.default
        switch InputFile.problem(path: path) {
        case nil: break
        case .brokenLink?: throw .brokenLink(path: path)
        case .linkLoop?: throw .linkLoop(path: path)
        case .isDirectory?: throw .isDirectory(path: path)
        // Only regular files (links followed): opening a FIFO for reading blocks until a writer comes, forever.
        case .notARegularFile(let kind)?: throw .notARegularFile(path: path, kind: kind)
        case .permissionDenied?: throw .permissionDenied(path: path)
        case .notFound?:
            if path.unicodeScalars.contains("\u{FFFD}") { throw .nameNotUTF8(path: path) }
            throw .notFound(path: path)
        case let problem?: throw .cannotOpen(path: path, reason: problem.reason)
        }
        // Open it once ourselves, so that a limit on open files is named as such (libsndfile would call the file
        // "not audio"), as is a permission the check above could not see.
        let probe = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard probe >= 0 else { throw Self.openFailure(path: path, errno: errno) }
        close(probe)

        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            let failure = errno
            if failure == EMFILE || failure == ENFILE { throw .tooManyOpenFiles(path: path) }
            // For a regular file it could open, libsndfile's message for an unrecognised or damaged format is "File does
            // not exist or is not a regular file (possibly a pipe?)": untrue here, so the cause is named instead.
            var reason = String(cString: sf_strerror(nil))
            if reason.hasPrefix("File does not exist") {
                reason = "its format is not one libsndfile recognises, or its header is damaged"
            }
            if let size = (try? manager.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
                throw .empty(path: path)
            }
            if let codec = Self.cafFormatID(path: path) { throw .undecodable(path: path, container: "CAF", codec: codec, reason: reason) }
            if let codec = Self.mpeg4Codec(path: path) { throw .undecodable(path: path, container: "MPEG-4", codec: codec, reason: reason) }
            throw .cannotOpen(path: path, reason: reason)
        }
        // A recorder that died before it finished the file left its header's sizes as placeholders (0, or all bits
        // set). libsndfile reads a data size of 0 as no audio; shown as unknown, with the file's real length, it reads
        // the audio the file holds. Either way the recording is taken as cut short, its header promising nothing.
        // Only a file libsndfile finds empty or shorter than its header is looked at again.
        if acceptCutShort, info.frames == 0 || Self.declaredFrameCount(handle, readableFrames: info.frames) != nil,
           let source = try? GrowingAudioSource(path: path, idleSeconds: 0), source.sizesArePlaceholders {
            if info.frames == 0 {
                sf_close(handle)
                var reopened = SF_INFO()
                var io = GrowingAudioSource.virtualIO
                source.showsFileLength = true
                guard let unfinished = sf_open_virtual(&io, Int32(SFM_READ), &reopened, Unmanaged.passUnretained(source).toOpaque()) else {
                    throw .cannotOpen(path: path, reason: String(cString: sf_strerror(nil)))
                }
                try self.init(path: path, handle: unfinished, info: reopened, acceptCutShort: true, source: source)
            } else {
                try self.init(path: path, handle: handle, info: info, acceptCutShort: true, source: nil)
            }
            declaredFrameCount = 0
            return
        }
        try self.init(path: path, handle: handle, info: info, acceptCutShort: acceptCutShort, source: nil)
    }

    /// Follows a recording another program is still writing (see `GrowingAudioSource`): reads wait for its audio
    /// as it is written, and the audio ends where the source ends (the header finalised, the file idle, or `stop()`).
    /// `format.frameCount` is what the header says until then, and the frames read once the end is reached.
    public convenience init(following source: GrowingAudioSource) throws(AudioFileError) {
        var info = SF_INFO()
        var io = GrowingAudioSource.virtualIO
        guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(source).toOpaque()) else {
            throw .cannotOpen(path: source.path, reason: String(cString: sf_strerror(nil)))
        }
        source.waits = true
        try self.init(path: source.path, handle: handle, info: info, acceptCutShort: true, source: source)
    }

    private init(path: String, handle: OpaquePointer, info: SF_INFO, acceptCutShort: Bool,
                 source: GrowingAudioSource?) throws(AudioFileError) {
        self.path = path
        acceptsCutShort = acceptCutShort
        self.source = source
        let format = AudioFormatInfo(
            sampleRate: Int(info.samplerate), channelCount: Int(info.channels), frameCount: info.frames,
            container: Self.containerName(info.format), encoding: Self.encodingName(info.format))
        guard format.frameCount > 0 else {
            sf_close(handle)
            throw .empty(path: path)
        }
        guard AudioFormatInfo.supportedSampleRates.contains(format.sampleRate), format.channelCount > 0 else {
            sf_close(handle)
            throw .unsupportedSampleRate(path: path, sampleRate: format.sampleRate)
        }
        if source == nil, let declared = Self.declaredFrameCount(handle, readableFrames: format.frameCount) {
            guard acceptCutShort else {
                sf_close(handle)
                throw .truncated(path: path, expectedFrames: declared, readFrames: format.frameCount)
            }
            declaredFrameCount = declared
        }
        self.handle = handle
        self.format = format
        digest = Self.digest(.xxh3, of: format)
        readsIntegers = Self.integerSubformats.contains(Int(info.format) & Int(SF_FORMAT_SUBMASK))
    }

    /// A content digest begun with what a recording's hash covers before its samples: its rate, channels and length.
    private static func digest(_ kind: ContentHashKind, of format: AudioFormatInfo) -> ContentDigest {
        let digest = ContentDigest(kind: kind)
        withUnsafeBytes(of: (Int64(format.sampleRate).littleEndian, Int64(format.channelCount).littleEndian,
                             format.frameCount.littleEndian)) { digest.update($0) }
        return digest
    }

    /// Hashes the samples with SHA-256, as versions of this tool before XXH3-128 did: to check a file against the
    /// identity of a night stored then. Call before the first read (and before `readOnly(channel:)`).
    func hashAsStoredBeforeXXH3() {
        precondition(framesRead == 0 && channel == nil, "the hash is chosen before reading")
        digest = Self.digest(.sha256, of: format)
    }

    /// Reads channel `number` (from 1) alone rather than the mix of all channels: for a recording whose channels cancel
    /// in the mix (one inverted), or whose other channel is dead or noisy. The content hash then names the channel too,
    /// so that the channel's analysis and the mix's are told apart; a file of one channel reads and hashes as it would
    /// without. Call before the first read.
    public func readOnly(channel number: Int) throws(AudioFileError) {
        precondition(framesRead == 0 && channel == nil, "the channel is chosen before reading, once")
        guard (1...format.channelCount).contains(number) else {
            throw .noSuchChannel(path: path, channel: number, channelCount: format.channelCount)
        }
        guard format.channelCount > 1 else { return }
        channel = number - 1
        withUnsafeBytes(of: Int64(-number).littleEndian) { digest.update($0) }
    }

    /// libsndfile quietly shortens a file whose header promises more audio than it holds, and
    /// notes it in its log as `data : <declared> (should be <actual>)`. Returns the frame count
    /// the header declared when that happened.
    private static func declaredFrameCount(_ handle: OpaquePointer, readableFrames: Int64) -> Int64? {
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = log.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // The data chunk's line, not the container's (RIFF sizes include the header).
        for line in text.split(separator: "\n") where line.hasPrefix("data") && line.contains("(should be ") {
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
            guard numbers.count >= 2, numbers[1] > 0, numbers[0] > numbers[1] else { continue }
            return readableFrames * numbers[0] / numbers[1]
        }
        return nil
    }

    deinit { sf_close(handle) }

    /// Frames delivered so far (the read position), in frames from the file's start.
    public var position: Int64 { framesRead }

    /// Reads up to `output.count` mono frames into `output`; returns how many, 0 at the end.
    ///
    /// Throws `.truncated` when the file ends before the frame count its header promised,
    /// `.nonFiniteSamples` on the first NaN or infinity.
    public func read(into output: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        let remaining = format.frameCount - framesRead
        let wanted = Int(min(Int64(output.count), remaining))
        guard wanted > 0 else { return 0 }
        let channels = format.channelCount
        let measured = reads % Self.measureEvery == 0
        reads += 1
        let got: Int
        if readsIntegers {
            got = readIntegers(wanted, into: output, measured: measured)
        } else if channels == 1 {
            got = Int(sf_readf_float(handle, output.baseAddress, sf_count_t(wanted)))
            let samples = UnsafeBufferPointer(rebasing: output[0..<max(0, got)])
            digest.update(UnsafeRawBufferPointer(samples))
            if measured { measureFullScale(samples.count, Self.countAtFullScale(samples)) }
        } else {
            if interleaved.count < wanted * channels { interleaved = [Float](repeating: 0, count: wanted * channels) }
            got = interleaved.withUnsafeMutableBufferPointer { buffer in
                Int(sf_readf_float(handle, buffer.baseAddress, sf_count_t(wanted)))
            }
            interleaved.withUnsafeBufferPointer { buffer in
                let samples = UnsafeBufferPointer(rebasing: buffer[0..<max(0, got * channels)])
                digest.update(UnsafeRawBufferPointer(samples))
                if let channel {
                    Self.pick(channel, of: buffer, frames: got, channels: channels, into: output) { $0 }
                    if measured { measureFullScale(samples.count, Self.countAtFullScale(samples)) }
                    return
                }
                Self.mixDown(buffer, frames: got, channels: channels, into: output) { $0 }
                if measured {
                    channelEnergy += Self.sumOfSquares(samples)
                    measureMix(UnsafeBufferPointer(rebasing: output[0..<max(0, got)]))
                    measureFullScale(samples.count, Self.countAtFullScale(samples))
                }
            }
        }
        if got < wanted {
            // A decoder error after some audio (a FLAC whose encoder died mid-frame) ends the audio as surely as
            // the end of the file does.
            let error = sf_error(handle)
            guard acceptsCutShort, framesRead + Int64(got) > 0 else {
                if error != 0 { throw .readFailed(path: path, reason: String(cString: sf_strerror(handle))) }
                throw .truncated(path: path, expectedFrames: format.frameCount, readFrames: framesRead + Int64(got))
            }
            // The audio ends here: what was read is the recording (a followed one's header promised nothing).
            if source == nil { declaredFrameCount = declaredFrameCount ?? format.frameCount }
            format.frameCount = framesRead + Int64(got)
        }
        // NaN, infinities and magnitudes no recorder produces (here 80 dB above full scale) are corruption; the
        // last would also overflow the features' sums of squares. Integers are always in range.
        if !readsIntegers {
            for index in 0..<got where !(abs(output[index]) <= Self.largestPlausibleSample) {
                throw .nonFiniteSamples(path: path, atSeconds: Double(framesRead + Int64(index)) / Double(format.sampleRate))
            }
        }
        framesRead += Int64(got)
        return got
    }

    /// libsndfile's 16-bit integer read of an 8- or 16-bit file (PCM, or 16-bit Apple Lossless) is exact, and its
    /// float read is that integer times 2⁻¹⁵; reading integers and scaling them here gives the same floats, and hashes
    /// half the bytes.
    private static let integerSubformats: Set<Int> = [Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8), Int(SF_FORMAT_PCM_16),
                                                      Int(SF_FORMAT_ALAC_16)]
    private static let integerScale: Float = 1 / 32_768

    private func readIntegers(_ wanted: Int, into output: UnsafeMutableBufferPointer<Float>, measured: Bool) -> Int {
        let channels = format.channelCount
        if integers.count < wanted * channels { integers = [Int16](repeating: 0, count: wanted * channels) }
        return integers.withUnsafeMutableBufferPointer { buffer in
            let got = max(0, Int(sf_readf_short(handle, buffer.baseAddress, sf_count_t(wanted))))
            let samples = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(buffer)[0..<(got * channels)])
            digest.update(UnsafeRawBufferPointer(samples))
            if measured { measureFullScale(samples.count, Self.countAtFullScale(samples)) }
            let scale = Self.integerScale
            if channels == 1 {
                for index in 0..<got { output[index] = Float(buffer[index]) * scale }
            } else if let channel {
                Self.pick(channel, of: UnsafeBufferPointer(buffer), frames: got, channels: channels, into: output) { Float($0) * scale }
            } else {
                Self.mixDown(UnsafeBufferPointer(buffer), frames: got, channels: channels, into: output) { Float($0) * scale }
                if measured {
                    channelEnergy += Self.sumOfSquares(samples) * Double(scale * scale)
                    measureMix(UnsafeBufferPointer(rebasing: output[0..<got]))
                }
            }
            return got
        }
    }

    /// How far below its channels the mono mix lies, in dB: 10 log10 of the mix's power over the channels' mean power,
    /// over the frames of one read in sixteen (a miswired channel stays miswired). 0 for identical channels, about −3 for
    /// two unrelated ones or one silent, and far below for channels that cancel each other (one wired or recorded
    /// inverted), which the mix then all but silences.
    /// `nil` for a single channel, or channels that hold nothing (under −100 dBFS).
    public var mixBelowChannelsDecibels: Double? {
        let channels = Double(format.channelCount)
        guard format.channelCount > 1, framesMixed > 0, channelEnergy > 1e-10 * channels * Double(framesMixed) else { return nil }
        return 10 * log10(max(1e-12, mixEnergy * channels / channelEnergy))
    }

    /// The share of the samples (of every channel, over one read in sixteen) that lie at full scale or beyond: a
    /// recording clipped by a gain set too high, whose loudest sounds read quieter than they were. `nil` before any.
    public var fullScaleShare: Double? {
        samplesMeasured > 0 ? Double(samplesAtFullScale) / Double(samplesMeasured) : nil
    }

    /// How many of the reads measured held a sample at full scale: one loud sound clipped once reaches one read, and
    /// in a short recording its samples can be a large share of the few reads measured.
    public var readsReachingFullScale: Int { readsAtFullScale }

    /// A sample this close to full scale is taken to be clipped: an 8-bit file's highest value (127/128) is too.
    static let fullScale: Float = 0.99

    private func measureFullScale(_ samples: Int, _ atFullScale: Int) {
        samplesMeasured += Int64(samples)
        samplesAtFullScale += Int64(atFullScale)
        if atFullScale > 0 { readsAtFullScale += 1 }
    }

    /// How many of `values` lie at full scale, eight at a time by arithmetic alone: a sign bit shifted down is -1 for a
    /// sample below full scale and 0 at it. (Neither a comparison's mask in the SIMD types nor a plain loop's count was
    /// vectorised: the masks cost a twelfth of a 44.1 kHz stereo CAF's CPU time on one read in sixteen.)
    static func countAtFullScale(_ values: UnsafeBufferPointer<Float>) -> Int {
        var below = SIMD8<Int32>(), index = 0
        let raw = UnsafeRawBufferPointer(values)
        while index + 8 <= values.count {
            let magnitude = unsafeBitCast(unsafeBitCast(raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self),
                                                        to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: SIMD8<Float>.self)
            below &+= unsafeBitCast(magnitude - fullScale, to: SIMD8<Int32>.self) &>> 31
            index += 8
        }
        return index + Int(below.wrappedSum()) + values[index...].count { abs($0) >= fullScale }
    }

    static func countAtFullScale(_ values: UnsafeBufferPointer<Int16>) -> Int {
        // Squares, in 32 bits: -32768 has no 16-bit magnitude.
        let limit = Int32(fullScale * 32_768), square = SIMD8<Int32>(repeating: limit * limit)
        var below = SIMD8<Int32>(), index = 0
        let raw = UnsafeRawBufferPointer(values)
        while index + 8 <= values.count {
            let value = SIMD8<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: index * 2, as: SIMD8<Int16>.self))
            below &+= (value &* value &- square) &>> 31
            index += 8
        }
        return index + Int(below.wrappedSum()) + values[index...].count { Int32($0) * Int32($0) >= limit * limit }
    }

    private func measureMix(_ mix: UnsafeBufferPointer<Float>) {
        mixEnergy += Self.sumOfSquares(mix)
        framesMixed += Int64(mix.count)
    }

    /// The sum of the squares of `values`, eight lanes at a time (a measure, not a feature: its rounding does not matter).
    static func sumOfSquares(_ values: UnsafeBufferPointer<Float>) -> Double {
        var lanes = SIMD8<Float>()
        var index = 0
        while index + 8 <= values.count {
            let value = UnsafeRawPointer(values.baseAddress! + index).loadUnaligned(as: SIMD8<Float>.self)
            lanes += value * value
            index += 8
        }
        var total = Double(lanes.sum())
        while index < values.count { total += Double(values[index] * values[index]); index += 1 }
        return total
    }

    static func sumOfSquares(_ values: UnsafeBufferPointer<Int16>) -> Double {
        var lanes = SIMD8<Float>()
        var index = 0
        while index + 8 <= values.count {
            let integers = UnsafeRawPointer(values.baseAddress! + index).loadUnaligned(as: SIMD8<Int16>.self)
            let value = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: integers))
            lanes += value * value
            index += 8
        }
        var total = Double(lanes.sum())
        while index < values.count { total += Double(values[index]) * Double(values[index]); index += 1 }
        return total
    }

    /// Each frame's sample of `channel` (from 0), as `value` turns it into a float.
    static func pick<Sample>(_ channel: Int, of buffer: UnsafeBufferPointer<Sample>, frames: Int, channels: Int,
                             into output: UnsafeMutableBufferPointer<Float>, value: (Sample) -> Float) {
        for frame in 0..<frames { output[frame] = value(buffer[frame &* channels &+ channel]) }
    }

    /// Each frame's mean over its channels, of the samples as `value` turns them into floats.
    @inline(__always)
    static func mixDown<Sample>(_ buffer: UnsafeBufferPointer<Sample>, frames: Int, channels: Int,
                                        into output: UnsafeMutableBufferPointer<Float>, value: (Sample) -> Float) {
        let scale = 1 / Float(channels)
        if channels == 2 {
            // Stereo, the common case, spelt out so that the compiler vectorises it: the same sums in the same order.
            for frame in 0..<frames {
                let zero: Float = 0
                output[frame] = (zero + value(buffer[2 &* frame]) + value(buffer[2 &* frame &+ 1])) * scale
            }
            return
        }
        for frame in 0..<frames {
            var sum: Float = 0
            let base = frame * channels
            for channel in 0..<channels { sum += value(buffer[base + channel]) }
            output[frame] = sum * scale
        }
    }

    /// Reads up to `frameCount` frames as they are stored, channels interleaved (no mix-down): for cutting
    /// excerpts that keep the original channels. Returns the frames read, 0 at the end.
    public func readInterleaved(frameCount: Int, into output: inout [Float]) throws(AudioFileError) -> Int {
        let wanted = Int(min(Int64(frameCount), format.frameCount - framesRead))
        guard wanted > 0 else { return 0 }
        if output.count < wanted * format.channelCount { output = [Float](repeating: 0, count: wanted * format.channelCount) }
        let got = output.withUnsafeMutableBufferPointer { Int(sf_readf_float(handle, $0.baseAddress, sf_count_t(wanted))) }
        digestValid = false
        framesRead += Int64(got)
        if got < wanted, sf_error(handle) != 0 { throw .readFailed(path: path, reason: String(cString: sf_strerror(handle))) }
        return got
    }

    /// Moves the read position to `frame` (clamped to the file), for cutting excerpts without decoding what lies before.
    /// The frames then read are those a read from the start gives there.
    public func seek(toFrame frame: Int64) throws(AudioFileError) {
        let target = max(0, min(frame, format.frameCount))
        digestValid = false
        guard format.container == "MPEG" else {
            guard sf_seek(handle, target, SEEK_SET) >= 0 else {
                throw .readFailed(path: path, reason: String(cString: sf_strerror(handle)))
            }
            framesRead = target
            return
        }
        // An MP3 frame may take bits from the frames before it (its bit reservoir), which a seek has not decoded: the
        // first frames after it come out wrong (off by 1e-3 on the sample night), and libmpg123 writes "error:
        // part2_3_length ... too large" to stderr. So an MP3 is sought a few frames early and read up to `frame` (then
        // within 1.2e-7 of a read from the start: libmpg123 rounds some samples after a seek differently), what libmpg123
        // says of the frames thrown away kept from stderr.
        let preroll = min(target, Self.mpegPrerollFrames)
        var discarded = [Float]()
        let failed: Bool = StandardError.silenced {
            guard sf_seek(handle, target - preroll, SEEK_SET) >= 0 else { return true }
            framesRead = target - preroll
            return (try? readInterleaved(frameCount: Int(preroll), into: &discarded)) != Int(preroll)
        }
        guard !failed else { throw .readFailed(path: path, reason: String(cString: sf_strerror(handle))) }
        framesRead = target
    }

    /// Eight MPEG-1 Layer III frames (1,152 samples each; sixteen of MPEG-2's 576): the bit reservoir reaches back at
    /// most 511 bytes, fewer than eight frames even at 8 kbit/s.
    static let mpegPrerollFrames: Int64 = 8 * 1_152

    /// XXH3-128 (32 hex digits, `ContentHashKind`) of the audio itself: the sample rate, channel count and frame count,
    /// then every sample as libsndfile decodes it, interleaved, in native byte order: as 16-bit integers for 8- and
    /// 16-bit PCM and 16-bit Apple Lossless, as float32 for every other encoding. Equal for the same audio in another
    /// container or encoding (16-bit WAV, CAF, Apple Lossless, FLAC or AIFF alike), a renamed or moved file, or a file
    /// whose metadata changed. Available once every frame has been read in order (`nil` before, or after a seek; and
    /// for a followed recording, whose frame count was not known when its first samples were hashed: hash the finished
    /// file).
    public var contentHash: String? {
        guard digestValid, source.map({ !$0.waits }) ?? true, framesRead == format.frameCount else { return nil }
        return digest.finalize()
    }

    /// The recording time the file's own metadata states (broadcast-WAV origination, an iXML origination, or a date
    /// string), if any. A time without a zone is read in `timeZone`: a recorder's clock shows local time.
    public func metadataStartDate(timeZone: TimeZone = .current) -> Date? {
        var buffer = [CChar](repeating: 0, count: 32)
        if somniq_sf_broadcast_origination(handle, &buffer, Int32(buffer.count)) == 1 {
            let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if let date = RecordingStartTime.parseMetadataDate(text, timeZone: timeZone) { return date }
        }
        if let date = WAVChunks.iXMLOriginationDate(path: path, timeZone: timeZone) { return date }
        if let pointer = sf_get_string(handle, Int32(SF_STR_DATE)) {
            return RecordingStartTime.parseMetadataDate(String(cString: pointer), timeZone: timeZone)
        }
        return nil
    }

    static func containerName(_ format: Int32) -> String {
        switch Int(format) & Int(SF_FORMAT_TYPEMASK) {
        case Int(SF_FORMAT_WAV): "WAV"
        case Int(SF_FORMAT_WAVEX): "WAVEX"
        case Int(SF_FORMAT_RF64): "RF64"
        case Int(SF_FORMAT_W64): "W64"
        case Int(SF_FORMAT_CAF): "CAF"
        case Int(SF_FORMAT_AIFF): "AIFF"
        case Int(SF_FORMAT_FLAC): "FLAC"
        case Int(SF_FORMAT_OGG): "OGG"
        case Int(SF_FORMAT_AU): "AU"
        case Int(SF_FORMAT_RAW): "RAW"
        case Int(SF_FORMAT_MPEG): "MPEG"
        default: String(format: "0x%06X", Int(format) & Int(SF_FORMAT_TYPEMASK))
        }
    }

    static func encodingName(_ format: Int32) -> String {
        switch Int(format) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_S8): "PCM_S8"
        case Int(SF_FORMAT_PCM_U8): "PCM_U8"
        case Int(SF_FORMAT_PCM_16): "PCM_16"
        case Int(SF_FORMAT_PCM_24): "PCM_24"
        case Int(SF_FORMAT_PCM_32): "PCM_32"
        case Int(SF_FORMAT_FLOAT): "FLOAT"
        case Int(SF_FORMAT_DOUBLE): "DOUBLE"
        case Int(SF_FORMAT_ULAW): "ULAW"
        case Int(SF_FORMAT_ALAW): "ALAW"
        case Int(SF_FORMAT_VORBIS): "VORBIS"
        case Int(SF_FORMAT_OPUS): "OPUS"
        case Int(SF_FORMAT_ALAC_16), Int(SF_FORMAT_ALAC_20), Int(SF_FORMAT_ALAC_24), Int(SF_FORMAT_ALAC_32): "ALAC"
        case Int(SF_FORMAT_MPEG_LAYER_III): "MP3"
        default: String(format: "0x%04X", Int(format) & Int(SF_FORMAT_SUBMASK))
        }
    }
}

extension AudioFileReader {
    /// The content hash (`contentHash`) of the file at `path`, decoded whole, of channel `channel` (from 1) alone
    /// where given, as `kind` computes it; `nil` where the file cannot give one (cut short).
    public static func contentHash(of path: String, channel: Int? = nil, kind: ContentHashKind = .xxh3) throws(AudioFileError) -> String? {
        let reader = try AudioFileReader(path: path, acceptCutShort: true)
        if kind == .sha256 { reader.hashAsStoredBeforeXXH3() }
        if let channel { try reader.readOnly(channel: channel) }
        return try reader.hashingToTheEnd()
    }

    /// The SHA-256 content hash that versions of this tool before 16-bit audio was read as integers gave the file at
    /// `path` (every sample hashed as the float libsndfile reads it, 4 bytes where 2 are hashed now), for a night
    /// stored then; `nil` for a file whose hash never changed (one not read as integers), or cut short.
    public static func contentSHA256HashedAsFloats(of path: String) throws(AudioFileError) -> String? {
        let reader = try AudioFileReader(path: path, acceptCutShort: true)
        guard reader.readsIntegers else { return nil }
        reader.readsIntegers = false
        reader.hashAsStoredBeforeXXH3()
        return try reader.hashingToTheEnd()
    }

    private func hashingToTheEnd() throws(AudioFileError) -> String? {
        var chunk = [Float](repeating: 0, count: 65_536)
        while try chunk.withUnsafeMutableBufferPointer({ buffer throws(AudioFileError) in try read(into: buffer) }) > 0 {}
        return contentHash
    }

    /// A short file's samples, mixed to mono, at its own rate: for clips (training clips, the pieces of a development
    /// night). Recordings are never read whole; they stream through `read(into:)`.
    /// A clip cut short gives the audio it holds.
    public static func readMono(_ path: String) throws(AudioFileError) -> (samples: [Float], sampleRate: Int) {
        let reader = try AudioFileReader(path: URL(fileURLWithPath: path).standardizedFileURL.path, acceptCutShort: true)
        var samples: [Float] = []
        var chunk = [Float](repeating: 0, count: 65_536)
        while true {
            let got = try chunk.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in try reader.read(into: buffer) }
            guard got > 0 else { break }
            samples.append(contentsOf: chunk[0..<got])
        }
        return (samples, reader.format.sampleRate)
    }
}
