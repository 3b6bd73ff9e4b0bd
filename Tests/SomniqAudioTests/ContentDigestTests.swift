import Crypto
import Foundation
@testable import SomniqAudio
import Testing

@Suite struct ContentDigestTests {
    /// Bytes that differ from position to position (a piece hashed twice or out of order changes the digest).
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) } }

    /// Known answers of XXH3-128 in its canonical form, from `xxhsum -H2` (xxHash 0.8.1, Debian's `xxhash`): of no bytes,
    /// of "abc", and of `bytes(100_000)` (written to a file by the same formula).
    @Test(arguments: [(Array<UInt8>(), "99aa06d3014798d86001c324468d497f"),
                      (Array("abc".utf8), "06b05ab6733a618578af5f94892f3950"),
                      (ContentDigestTests.bytes(100_000), "18580bb0190de1db1d43ec753d462301")])
    func xxh3IsTheCanonicalXXH3Of128BitsWhateverTheReads(data: [UInt8], expected: String) {
        for readSize in [1, 7, 1_001, 65_536, 200_000] {
            let digest = ContentDigest(kind: .xxh3)
            data.withUnsafeBytes { all in
                var start = 0
                while start < all.count {
                    let end = min(all.count, start + readSize)
                    digest.update(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
            }
            #expect(digest.finalize() == expected, "\(data.count) bytes read \(readSize) at a time")
        }
    }

    @Test func sha256IsSHA256OfEveryByteInOrder() {
        let data = Self.bytes(300_001)
        let digest = ContentDigest(kind: .sha256)
        data.withUnsafeBytes { all in
            for start in stride(from: 0, to: all.count, by: 4_099) {
                digest.update(UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + 4_099)]))
            }
        }
        let expected = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        #expect(digest.finalize() == expected && expected.count == 64)
    }

    @Test(arguments: [ContentHashKind.xxh3, .sha256])
    func aDigestTakenMidStreamCoversWhatCameBeforeAndTheNextCoversAll(kind: ContentHashKind) {
        let data = Self.bytes(70_000)
        let cut = 33_333
        let digest = ContentDigest(kind: kind)
        func whole(_ bytes: ArraySlice<UInt8>) -> String {
            let fresh = ContentDigest(kind: kind)
            Array(bytes).withUnsafeBytes { fresh.update($0) }
            return fresh.finalize()
        }
        data.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<cut])) }
        #expect(digest.finalize() == whole(data[..<cut]))
        data.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[cut...])) }
        #expect(digest.finalize() == whole(data[...]) && whole(data[...]) != whole(data[..<cut]))
    }

    @Test func aStoredIdentitysKindIsToldByItsLength() {
        #expect(ContentHashKind(identity: String(repeating: "a", count: 32)) == .xxh3)
        #expect(ContentHashKind(identity: String(repeating: "b", count: 64)) == .sha256)
        #expect(ContentHashKind(identity: "abc") == nil && ContentHashKind(identity: "") == nil)
    }
}
