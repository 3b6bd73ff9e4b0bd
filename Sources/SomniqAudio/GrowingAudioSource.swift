import CSndfile
import Foundation

/// A recording that another program is still writing (a recorder, `arecord`, a phone app syncing), read through
/// libsndfile as it grows.
///
/// libsndfile reads a file from its header, which a recorder writes twice: once at the start with its sizes left
/// open, and again, final, when it stops. So it is given the file through its virtual I/O: a read at the end of what
/// has been written waits for more (polling every `pollSeconds`), and the file's end comes only when the writer has
/// finalised the header, or when the file has not grown for `idleSeconds`, or when `stop()` is called. A WAV or CAF
/// header whose sizes are still open (0, or all bits set) is shown to libsndfile as "unknown size", which it reads to
/// the end of the file; FLAC needs nothing (its sample count 0 already means unknown).
public final class GrowingAudioSource: @unchecked Sendable {
    public let path: String
    public let idleSeconds: Double
    public let pollSeconds: Double

    private let descriptor: Int32
    private var position: Int64 = 0
    /// Byte ranges of size fields still open in the header, shown as all bits set.
    private let openSizeFields: [Range<Int64>]
    /// Where the header's data size field lies, to see it finalised, and what it held when the file was opened.
    private let dataSizeField: Range<Int64>?
    private var openDataSize: [UInt8]?
    private var lastGrowth = Date()
    private var knownLength: Int64 = 0
    private let lock = NSLock()
    private var stopRequested = false
    /// The file's length when the end came (finalised, idle or stopped): reads no longer wait, nor go beyond it.
    private var end: Int64?
    public var ended: Bool { end != nil }
    /// Whether a read at the end waits for more. libsndfile, reading a WAV's or CAF's header, looks beyond the audio
    /// for chunks after it, where nothing is yet: those reads must not wait, so for those containers waiting starts
    /// once the header is read. A FLAC's decoder reads only the stream, and takes a short read for its end.
    var waits: Bool
    /// Whether the writer finalised the header before the end; `false` when it stopped writing without (a recorder
    /// killed, a power cut) or the follow was stopped first.
    public private(set) var finalised = false
    /// Whether the header's sizes were open when the file was opened (a recording in progress).
    public let wasGrowing: Bool

    /// Opens `path` for following. Throws as `AudioFileReader` does when the file cannot be opened.
    public init(path: String, idleSeconds: Double = 30, pollSeconds: Double = 0.1) throws(AudioFileError) {
        self.path = path
        self.idleSeconds = idleSeconds
        self.pollSeconds = pollSeconds
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AudioFileReader.openFailure(path: path, errno: errno) }
        self.descriptor = descriptor
        let layout = Self.headerLayout(descriptor: descriptor)
        openSizeFields = layout.openFields
        dataSizeField = layout.dataSizeField
        wasGrowing = !layout.openFields.isEmpty
        waits = layout.dataSizeField == nil
        openDataSize = nil
        openDataSize = dataSizeBytes()
        finalised = !wasGrowing && layout.dataSizeField != nil
    }

    deinit { close(descriptor) }

    /// Ends the follow at what has been written: a read waiting for more returns at once.
    public func stop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
    }

    private var isStopRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    // MARK: - Header

    /// Where a WAV's or CAF's size fields lie, and which of them are still open.
    static func headerLayout(descriptor: Int32) -> (openFields: [Range<Int64>], dataSizeField: Range<Int64>?) {
        func bytes(_ offset: Int64, _ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? buffer : nil
        }
        guard let head = bytes(0, 12) else { return ([], nil) }
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
                    let field = (offset + 4)..<(offset + 8)
                    // Open: sizes left 0 or all bits set, or a size the file does not hold yet (arecord writes its
                    // largest, to be put right when it stops).
                    let open = size == 0 || size == .max || riffSize == 0 || riffSize == .max
                        || offset + 8 + Int64(size) > length
                    return (open ? [4..<8, field] : [], field)
                }
                offset += 8 + Int64(size) + Int64(size & 1)
            }
            return ([], nil)
        }
        if named(head, "caff") {
            var offset: Int64 = 8
            for _ in 0..<64 {
                guard let chunk = bytes(offset, 12) else { break }
                let size = chunk[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                if named(chunk, "data") {
                    let field = (offset + 4)..<(offset + 12)
                    let open = size == 0 || size == .max || size > UInt64(max(0, length - offset - 12))
                    return (open ? [field] : [], field)
                }
                guard size < UInt64(Int64.max / 2) else { break }
                offset += 12 + Int64(size)
            }
        }
        return ([], nil)
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
        guard wasGrowing, let now = dataSizeBytes() else { return false }
        return now != openDataSize && !(now.allSatisfy { $0 == 0 } || now.allSatisfy { $0 == 0xFF })
    }

    // MARK: - Reading

    /// Reads `count` bytes at the current position, waiting for the writer as needed; fewer only at the end.
    func read(into pointer: UnsafeMutableRawPointer, count: Int) -> Int {
        var got = 0
        while got < count {
            let offset = position + Int64(got)
            // Once ended, the recording is what the file held then: a writer that goes on is not followed further.
            let wanted = end.map { min(Int64(count - got), max(0, $0 - offset)) } ?? Int64(count - got)
            guard wanted > 0 else { break }
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
            // While libsndfile reads the header it looks beyond the audio (for chunks after it): nothing there yet.
            if end != nil || !waits { break }
            if isStopRequested {
                endHere()
            } else if headerFinalised() {
                // The writer is done: what is in the file now is the whole recording.
                finalised = true
                endHere()
            } else if Date().timeIntervalSince(lastGrowth) >= idleSeconds {
                endHere()
            } else {
                usleep(useconds_t(pollSeconds * 1_000_000))
            }
        }
        // Size fields still open are shown as "unknown" (all bits set) for libsndfile to read to the end.
        let span = position..<(position + Int64(got))
        for field in openSizeFields where field.overlaps(span) {
            for byte in max(field.lowerBound, span.lowerBound)..<min(field.upperBound, span.upperBound) {
                pointer.storeBytes(of: 0xFF, toByteOffset: Int(byte - position), as: UInt8.self)
            }
        }
        position += Int64(got)
        return got
    }

    private func endHere() {
        var status = stat()
        end = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : position
    }

    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        switch whence {
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        default: position = reportedLength + offset
        }
        return position
    }

    /// The length libsndfile is told: for a recording in progress, far beyond any recording, so that it never takes
    /// the current end for the last; for a finished one, its own (libsndfile looks for chunks after the audio).
    var reportedLength: Int64 {
        if wasGrowing { return Self.growingLength }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
    }
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
