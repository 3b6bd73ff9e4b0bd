import Crypto
import Dispatch

/// SHA-256 of a stream of bytes, hashed beside the code that produces them.
///
/// The bytes are gathered into chunks of `chunkBytes`; each full chunk is hashed on a serial queue of its own while the
/// caller goes on filling the next. Hashing a recording's samples is about a third of decoding a 44.1 kHz stereo file,
/// and decoding is the longer of the analysis's two threads there; on its own queue the hash uses the core the
/// features leave idle. `chunksInFlight` buffers, allocated as they are first needed and reused in turn, bound the
/// memory (one megabyte) and spare the allocator. A stream shorter than one chunk (a clip of a few seconds) is hashed
/// where `finalize()` is called and never wakes the queue's thread. Where the producer is not the longer thread, a
/// third busy one only slows the others: `inBackground: false` hashes every byte where it is given (the reader chooses,
/// by the recording's rate: `AudioFileReader.backgroundHashingAboveRate`).
///
/// The digest is the one `SHA256` updated with every byte in order would give: chunks are hashed in the order they
/// were filled, on one serial queue, and `finalize()` waits for them.
final class StreamingDigest {
    static let chunkBytes = 256 << 10
    static let chunksInFlight = 4

    /// What the queue's blocks share with the caller. Not `self`: a block holding the digest could be the one to release
    /// it, and its `deinit`, on the queue, would wait for the queue.
    private final class Shared: @unchecked Sendable {
        // Unchecked: in the background, `digest` is touched only on `queue` (by the chunks' blocks, and inside
        // `queue.sync` in `finalize()`; otherwise only on the caller's thread); a buffer is written by the caller only
        // while it holds one of `free`'s slots for it, and read by the block that gives the slot back.
        var digest = SHA256()
        let free = DispatchSemaphore(value: StreamingDigest.chunksInFlight)
    }

    private let shared = Shared()
    private var buffers: [UnsafeMutableRawBufferPointer?] = Array(repeating: nil, count: StreamingDigest.chunksInFlight)
    /// The buffer being filled, how far, and whether the caller holds a slot for it.
    private var filling = 0, filled = 0, holding = false
    private let queue = DispatchQueue(label: "somniq.content-hash")

    /// Whether full chunks are hashed on the queue; otherwise every byte is hashed where it is given, as one `SHA256`
    /// would (no copy, no other thread).
    let inBackground: Bool

    init(inBackground: Bool = true) { self.inBackground = inBackground }

    deinit {
        queue.sync {}
        // A semaphore is disposed of only with its slots all back.
        if holding { shared.free.signal() }
        for buffer in buffers { buffer?.deallocate() }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard inBackground else {
            shared.digest.update(bufferPointer: bytes)
            return
        }
        var rest = bytes
        while !rest.isEmpty {
            let buffer = current()
            let take = min(rest.count, Self.chunkBytes - filled)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + take)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<take]))
            filled += take
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if filled == Self.chunkBytes { handOff() }
        }
    }

    /// The digest of every byte given so far (more may follow, and a later call covers them too).
    func finalize() -> SHA256.Digest {
        let partial = holding && filled > 0 ? UnsafeRawBufferPointer(rebasing: buffers[filling]![..<filled]) : nil
        filled = 0
        return queue.sync {
            if let partial { shared.digest.update(bufferPointer: partial) }
            return shared.digest.finalize()
        }
    }

    /// The buffer being filled, waiting for it to be free.
    private func current() -> UnsafeMutableRawBufferPointer {
        if !holding {
            shared.free.wait()
            holding = true
            if buffers[filling] == nil {
                buffers[filling] = .allocate(byteCount: Self.chunkBytes, alignment: 64)
            }
        }
        return buffers[filling]!
    }

    /// A full buffer, handed to the queue (which alone reads it until it gives its slot back).
    private struct Chunk: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }

    private func handOff() {
        let chunk = Chunk(bytes: UnsafeRawBufferPointer(buffers[filling]!)), shared = shared
        queue.async {
            shared.digest.update(bufferPointer: chunk.bytes)
            shared.free.signal()
        }
        filling = (filling + 1) % Self.chunksInFlight
        filled = 0
        holding = false
    }
}
