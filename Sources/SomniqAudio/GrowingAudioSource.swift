import CSndfile
import Foundation

/// A recording that another program is still writing (a recorder, `arecord`, a phone app syncing), read through
/// libsndfile as it grows.
///
/// libsndfile reads a file from its header, which a recorder writes at the start with its sizes left open (0, all
/// bits set, or more than it has written) and puts right when it stops, or keeps current as it goes. So it is given
/// the file through its virtual I/O: a WAV's sizes, and a CAF's where they are open, are shown as "unknown", which it
/// reads to the end of the file (FLAC needs nothing: its sample count 0 already means unknown), and a read at the end of what has been
/// written waits for more (polling every `pollSeconds`). The end comes when the writer finalises a header it left
/// open, when the file has not grown for `idleSeconds`, or when `stop()` is called; it is then the audio the file
/// holds, up to the data size the header states where it states one (chunks after the audio are not audio).
public final class GrowingAudioSource: @unchecked Sendable {
    public enum EndReason: String, Sendable {
        /// The writer put the header's final sizes in.
        case finalised
        /// The file did not grow for `idleSeconds`.
        case idle
        /// `stop()` was called.
        case stopped
        /// The header stated the audio's whole length when the file was opened, and the audio is what it states (a
        /// finished CAF: libsndfile reads a CAF no further than its stated length).
        case complete
    }

    public let path: String
    public let idleSeconds: Double
    public let pollSeconds: Double

    private let descriptor: Int32
    private var position: Int64 = 0
    /// The furthest byte read: how much of the file was heard.
    private var readUpTo: Int64 = 0
    /// Byte ranges of the header's size fields, shown as all bits set.
    private let sizeFields: [Range<Int64>]
    /// Where the header's data size field lies and where the audio starts, and what the field held at the start.
    private let dataSizeField: Range<Int64>?
    private let dataStart: Int64?
    private var openDataSize: [UInt8]?
    private var lastGrowth = Date()
    private let stopping = StopRequest()
    /// Called each time a read is about to wait for the writer (`LiveAudio.beforeWaiting`).
    var beforeWaiting: (() -> Void)?
    /// The file's length when the end came: reads no longer wait, nor go beyond it.
    private var end: Int64?
    public var ended: Bool { end != nil }
    public private(set) var endReason: EndReason?
    /// Whether a read at the end waits for more. libsndfile, reading a WAV's or CAF's header, may look beyond the
    /// header: those reads must not wait, so for those containers waiting starts once the header is read. A FLAC's
    /// decoder reads only the stream, and takes a short read for its end.
    var waits: Bool
    /// Whether the writer finalised a header it had left open; `false` when it stopped writing without (a recorder
    /// killed, a power cut), when it keeps its header current, or when the follow was stopped first.
    public var finalised: Bool { endReason == .finalised }
    /// Whether the header's sizes were open when the file was opened (a recording in progress, its header to be put
    /// right at the end).
    public let headerWasOpen: Bool
    /// Whether the header's data size is a placeholder (0, or all bits set), as a recorder leaves it until it finishes
    /// the file; not a size the file merely falls short of (a file cut short).
    var sizesArePlaceholders: Bool {
        openDataSize.map { $0.allSatisfy { $0 == 0 } || $0.allSatisfy { $0 == 0xFF } } ?? false
    }

    /// Opens `path` for following. Throws as `AudioFileReader` does when the file cannot be opened.
    public init(path: String, idleSeconds: Double = 30, pollSeconds: Double = 0.1) throws(AudioFileError) {
        self.path = path
        self.idleSeconds = idleSeconds
        self.pollSeconds = pollSeconds
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AudioFileReader.openFailure(path: path, errno: errno) }
        self.descriptor = descriptor
        let layout = Self.headerLayout(descriptor: descriptor)
        sizeFields = layout.sizeFields
        dataSizeField = layout.dataSizeField
        dataStart = layout.dataStart
        headerWasOpen = layout.open
        waits = layout.dataSizeField == nil
        openDataSize = nil
        openDataSize = dataSizeBytes()
        // A WAV's sizes are always shown as unknown, so a finished one is followed for as long as a recorder that keeps
        // its header current would be; a CAF's are shown so only where they are open.
        if dataSizeField != nil, !headerWasOpen, sizeFields.isEmpty { endHere(.complete) }
    }

    deinit { close(descriptor) }

    /// Ends the follow at what has been written: a read waiting for more returns at once.
    public func stop() { stopping.request() }

    /// Where the file followed is now, against its path: still there, renamed within its folder (a recorder that
    /// writes to one name and gives the finished file another), its path now naming another file (a recorder that saves
    /// the finished file anew over it), gone from the folder (deleted, or moved elsewhere), or shorter than what was
    /// read of it (cut, or written anew from the start).
    public enum Whereabouts: Equatable, Sendable {
        case inPlace
        case renamed(to: String)
        case replaced
        case gone
        case shrunk(bytes: Int64, heardBytes: Int64)
    }

    /// Where the file followed is now (see `Whereabouts`), by the identity of the file held open.
    public func whereabouts() -> Whereabouts {
        var held = stat()
        guard fstat(descriptor, &held) == 0 else { return .gone }
        if Int64(held.st_size) < readUpTo { return .shrunk(bytes: Int64(held.st_size), heardBytes: readUpTo) }
        func isHeld(_ candidate: String) -> Bool {
            var named = stat()
            return stat(candidate, &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino
        }
        if isHeld(path) { return .inPlace }
        let folder = (path as NSString).deletingLastPathComponent
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        if let name = names.first(where: { isHeld((folder as NSString).appendingPathComponent($0)) }) {
            return .renamed(to: (folder as NSString).appendingPathComponent(name))
        }
        return FileManager.default.fileExists(atPath: path) ? .replaced : .gone
    }

    // MARK: - Header

    /// Where a WAV's or CAF's size fields lie and its audio starts, and whether the sizes were still open.
    static func headerLayout(descriptor: Int32) -> (sizeFields: [Range<Int64>], dataSizeField: Range<Int64>?, dataStart: Int64?, open: Bool) {
        func bytes(_ offset: Int64, _ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? buffer : nil
        }
        guard let head = bytes(0, 12) else { return ([], nil, nil, false) }
        var status = stat()
        let length = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
        func named(_ bytes: [UInt8], _ id: String) -> Bool { bytes.count >= 4 && bytes[0..<4].elementsEqual(id.utf8) }
        if named(head, "RIFF"), head[8..<12].elementsEqual("WAVE".utf8) {
            let riffSize = UInt32(head[4]) | UInt32(head[5]) << 8 | UInt32(head[6]) << 16 | UInt32(head[7]) << 24
            var offset: Int64 = 12
            for _ in 0..<64 {
                guard let chunk = bytes(offset, 8) else { break }
                let size = UInt32(chunk[4]) | UInt32(chunk[5]) << 8 | UInt32(chunk[6]) << 16 | UInt32(chunk[7]) << 24
                if named(chunk, "data") {
                    // Open: sizes left 0 or all bits set, or a size the file does not hold yet (arecord writes its
                    // largest, to be put right when it stops).
                    let open = size == 0 || size == .max || riffSize == 0 || riffSize == .max || offset + 8 + Int64(size) > length
                    return ([4..<8, (offset + 4)..<(offset + 8)], (offset + 4)..<(offset + 8), offset + 8, open)
                }
                offset += 8 + Int64(size) + Int64(size & 1)
            }
            return ([], nil, nil, false)
        }
        if named(head, "caff") {
            var offset: Int64 = 8
            for _ in 0..<64 {
                guard let chunk = bytes(offset, 12) else { break }
                let size = chunk[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                if named(chunk, "data") {
                    // Shown as unknown (-1, as CAF writers that record as they go leave it) only when open:
                    // libsndfile refuses a final CAF whose size says "unknown" as malformed.
                    let open = size == 0 || size == .max || size > UInt64(max(0, length - offset - 12))
                    return (open ? [(offset + 4)..<(offset + 12)] : [], (offset + 4)..<(offset + 12), offset + 12, open)
                }
                guard size < UInt64(Int64.max / 2) else { break }
                offset += 12 + Int64(size)
            }
        }
        return ([], nil, nil, false)
    }

    /// The data size field's bytes as they are in the file now.
    private func dataSizeBytes() -> [UInt8]? {
        guard let field = dataSizeField else { return nil }
        var buffer = [UInt8](repeating: 0, count: field.count)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, field.count, off_t(field.lowerBound)) }
        return got == field.count ? buffer : nil
    }

    /// Whether the writer has written the header's final sizes since the file was opened: the data size is no longer
    /// what it was then, nor a placeholder.
    private func headerFinalised() -> Bool {
        guard headerWasOpen, let now = dataSizeBytes() else { return false }
        return now != openDataSize && !(now.allSatisfy { $0 == 0 } || now.allSatisfy { $0 == 0xFF })
    }

    // MARK: - Reading

    /// Reads `count` bytes at the current position, waiting for the writer as needed; fewer only at the end.
    func read(into pointer: UnsafeMutableRawPointer, count: Int) -> Int {
        var got = 0
        while got < count {
            let offset = position + Int64(got)
            // Once ended, the recording is what the file held then: a writer that goes on is not followed further.
            let wanted = min(Int64(count - got), max(0, (end ?? readableLength()) - offset))
            if wanted > 0 {
                let read = pread(descriptor, pointer + got, Int(wanted), off_t(offset))
                if read > 0 {
                    got += read
                    lastGrowth = Date()
                    continue
                }
                if read < 0 {
                    if errno == EINTR { continue }
                    break
                }
            }
            // While libsndfile reads the header it may look beyond it: nothing there yet.
            if end != nil || !waits { break }
            let idle = Date().timeIntervalSince(lastGrowth)
            if stopping.isRequested {
                endHere(.stopped)
            } else if idle >= idleSeconds {
                endHere(.idle)
            } else if idle >= min(Self.finalisedGraceSeconds, idleSeconds), headerFinalised() {
                // The writer put in the sizes it had left open and wrote nothing since: it is done.
                endHere(.finalised)
            } else {
                beforeWaiting?()
                usleep(useconds_t(pollSeconds * 1_000_000))
            }
        }
        // Size fields are shown as "unknown" (all bits set), for libsndfile to read to the end.
        let span = position..<(position + Int64(got))
        for field in sizeFields where field.overlaps(span) {
            for byte in max(field.lowerBound, span.lowerBound)..<min(field.upperBound, span.upperBound) {
                pointer.storeBytes(of: 0xFF, toByteOffset: Int(byte - position), as: UInt8.self)
            }
        }
        if got > 0 { readUpTo = max(readUpTo, position + Int64(got)) }
        position += Int64(got)
        return got
    }

    /// How long a header put right must stay without more audio after it to be taken for the end: a writer that
    /// keeps its header current puts sizes in after every block.
    static let finalisedGraceSeconds = 1.0

    /// How far the file can be read now: its length, or where the header says the audio ends, where it says so and the
    /// file holds that much (chunks after the audio are not audio; a header kept current says how much is written).
    private func readableLength() -> Int64 {
        var status = stat()
        let length = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : position
        guard let dataStart, let now = dataSizeBytes(), !(now.allSatisfy { $0 == 0 } || now.allSatisfy { $0 == 0xFF }) else {
            return length
        }
        let size = now.count == 4
            ? now.enumerated().reduce(Int64(0)) { $0 | Int64($1.element) << (8 * Int64($1.offset)) }
            : now.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return size >= 0 && dataStart + size <= length ? dataStart + size : length
    }

    private func endHere(_ reason: EndReason) {
        end = readableLength()
        endReason = reason
    }

    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        switch whence {
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        default: position = reportedLength + offset
        }
        return position
    }

    /// The length libsndfile is told: far beyond any recording, so that it never takes the current end for the last;
    /// with `showsFileLength` (a file no longer written, whose header was never finished), the file's own.
    var reportedLength: Int64 {
        guard showsFileLength else { return Self.growingLength }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : Self.growingLength
    }
    var showsFileLength = false
    static let growingLength: Int64 = 1 << 40

    /// libsndfile's virtual I/O over this source (`user_data`: an unretained pointer to it).
    static let virtualIO = SF_VIRTUAL_IO(
        get_filelen: { user in sf_count_t(Unmanaged<GrowingAudioSource>.fromOpaque(user!).takeUnretainedValue().reportedLength) },
        seek: { offset, whence, user in
            sf_count_t(Unmanaged<GrowingAudioSource>.fromOpaque(user!).takeUnretainedValue().seek(Int64(offset), whence: whence))
        },
        read: { pointer, count, user in
            sf_count_t(Unmanaged<GrowingAudioSource>.fromOpaque(user!).takeUnretainedValue().read(into: pointer!, count: Int(count)))
        },
        write: nil,
        tell: { user in sf_count_t(Unmanaged<GrowingAudioSource>.fromOpaque(user!).takeUnretainedValue().position) })
}
