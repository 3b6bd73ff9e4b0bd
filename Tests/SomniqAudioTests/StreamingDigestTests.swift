import Crypto
import Foundation
@testable import SomniqAudio
import Testing

@Suite struct StreamingDigestTests {
    /// Bytes that differ from position to position (a chunk hashed twice or out of order changes the digest).
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) } }

    static func hex<D: Digest>(_ digest: D) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [0, 1, StreamingDigest.chunkBytes - 1, StreamingDigest.chunkBytes, StreamingDigest.chunkBytes + 1,
                      (StreamingDigest.chunksInFlight * 3 + 1) * StreamingDigest.chunkBytes + 12_345])
    func theDigestIsSHA256OfEveryByteInOrderWhateverTheReads(length: Int) {
        let data = Self.bytes(length)
        let expected = Self.hex(SHA256.hash(data: data))
        // Reads of an odd size, of more than a chunk at a time, and (on the shorter streams) of one byte.
        let readSizes = [1_001, 3 * StreamingDigest.chunkBytes + 7] + (length <= StreamingDigest.chunkBytes + 1 ? [1] : [])
        for readSize in readSizes {
            for inBackground in [true, false] {
                let digest = StreamingDigest(inBackground: inBackground)
                data.withUnsafeBytes { all in
                    var start = 0
                    while start < all.count {
                        let end = min(all.count, start + readSize)
                        digest.update(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                        start = end
                    }
                }
                #expect(Self.hex(digest.finalize()) == expected, "\(length) bytes read \(readSize) at a time, background \(inBackground)")
            }
        }
    }

    @Test func aDigestTakenMidStreamCoversWhatCameBeforeAndTheNextCoversAll() {
        let data = Self.bytes(2 * StreamingDigest.chunkBytes + 500)
        let digest = StreamingDigest()
        let cut = StreamingDigest.chunkBytes + 100
        data.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<cut])) }
        #expect(Self.hex(digest.finalize()) == Self.hex(SHA256.hash(data: data[..<cut])))
        data.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[cut...])) }
        #expect(Self.hex(digest.finalize()) == Self.hex(SHA256.hash(data: data)))
    }

    /// A reader dropped before its end (a file that fails half way) releases its digest unfinished: with chunks still
    /// on the queue and a buffer held. Disposing of a semaphore whose slots are not all back traps, which ends this
    /// test's process.
    @Test func aDigestReleasedUnfinishedGivesItsSlotsBack() {
        for length in [10, 5 * StreamingDigest.chunkBytes + 10] {
            let digest = StreamingDigest()
            Self.bytes(length).withUnsafeBytes { digest.update($0) }
        }
    }
}
