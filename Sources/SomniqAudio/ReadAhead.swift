import Foundation

/// Decodes a recording on a thread of its own, a few chunks ahead of the thread that analyses them, so that one long
/// night uses two cores: libsndfile's decoding, the content hash and the mix to mono on one, the analysis on the
/// other.
///
/// The chunks are exactly those a loop of `AudioFileReader.read(into:)` with buffers of `chunkLength` frames would
/// give, in the same order, ending at the first empty or short read; the reader's error, if one comes, after the
/// chunks read before it. So whatever consumes them computes the same results, bit for bit, as it would reading the
/// file itself. The reader belongs to the decoding thread until `finish()` returns; read its format, hash and
/// declared length only after that.
public final class ReadAhead: @unchecked Sendable {
    /// A chunk of mono samples: `samples[0..<count]`, and the reader's position after it (frames read so far).
    public struct Chunk {
        public fileprivate(set) var samples: [Float]
        public let count: Int
        public let position: Int64
    }

    public let reader: AudioFileReader
    public let chunkLength: Int
    private let condition = NSCondition()
    /// Read and not yet taken, oldest first (at most `depth`), and empty buffers to read into.
    private var ready: [Chunk] = []
    private var spare: [[Float]] = []
    private var failure: AudioFileError?
    private var ended = false
    private var stopping = false
    private var running = false

    /// Chunks read ahead at most: half a second each, eight seconds of audio.
    public static let defaultDepth = 16
    /// Spare buffers that wake a decoding thread waiting for one.
    private let resumeAt: Int

    public init(reader: AudioFileReader, chunkLength: Int, depth: Int = ReadAhead.defaultDepth) {
        precondition(chunkLength > 0 && depth > 0)
        self.reader = reader
        self.chunkLength = chunkLength
        spare = (0..<depth).map { _ in [Float](repeating: 0, count: chunkLength) }
        resumeAt = max(1, depth / 2)
        running = true
        let thread = Thread { [self] in decode() }
        thread.name = "somniq-decode"
        thread.start()
    }

    /// The next chunk, waiting for it; `nil` after the last. Throws the reader's error where it came. Hand each
    /// chunk back with `recycle` once done with it.
    public func next() throws(AudioFileError) -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !ended { condition.wait() }
        if !ready.isEmpty { return ready.removeFirst() }
        if let failure { throw failure }
        return nil
    }

    /// Gives a chunk's buffer back for the decoding thread to fill again. The decoding thread, once it has filled
    /// every buffer, sleeps until half of them are back: woken once per half a queue, not once per chunk (a wake-up
    /// per chunk cost more than the decoding it saved).
    public func recycle(_ chunk: Chunk) {
        condition.lock()
        spare.append(chunk.samples)
        if spare.count >= resumeAt { condition.broadcast() }
        condition.unlock()
    }

    /// Stops decoding (if it has not ended) and waits for the decoding thread to let go of the reader.
    public func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    deinit { finish() }

    private func decode() {
        while true {
            condition.lock()
            if spare.isEmpty {
                while spare.count < resumeAt && !stopping { condition.wait() }
            }
            if stopping {
                ended = true
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            var buffer = spare.removeLast()
            condition.unlock()

            var got = 0
            var error: AudioFileError?
            do {
                got = try buffer.withUnsafeMutableBufferPointer { pointer throws(AudioFileError) in try reader.read(into: pointer) }
            } catch let thrown {
                error = thrown
            }
            let position = reader.position

            condition.lock()
            if got > 0 { ready.append(Chunk(samples: buffer, count: got, position: position)) } else { spare.append(buffer) }
            let last = error != nil || got < chunkLength
            if last {
                failure = error
                ended = true
                running = false
            }
            condition.broadcast()
            condition.unlock()
            if last { return }
        }
    }
}
