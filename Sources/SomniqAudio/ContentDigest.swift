import Crypto
import CXXHash

/// How a recording's content hash is computed: what identifies its audio in the database (`recordings.content_hash`).
public enum ContentHashKind: Sendable {
    /// XXH3-128 (xxHash), 32 hex digits: every analysis since it replaced SHA-256. Not cryptographic, and need not be:
    /// it tells recordings apart, it does not defend them. About a tenth of SHA-256's cost, where SHA-256 (with the
    /// processor's own instructions) was a tenth of an 8-hour night's analysis (docs/performance.md).
    case xxh3
    /// SHA-256, 64 hex digits: the identity of nights stored before, still computed to check a file against one
    /// (`ClipCutter.AnalysedFile`, `AnalysisStore.adoptIdentity`).
    case sha256

    /// The kind of a stored identity, by its length; `nil` for a value neither gives.
    public init?(identity: String) {
        switch identity.utf8.count {
        case 32: self = .xxh3
        case 64: self = .sha256
        default: return nil
        }
    }
}

/// A content hash taken over a stream of bytes, as they are decoded.
final class ContentDigest {
    let kind: ContentHashKind
    private var sha256 = SHA256()
    private let xxh3: OpaquePointer

    init(kind: ContentHashKind) {
        self.kind = kind
        guard let state = XXH3_createState() else { fatalError("xxHash could not allocate its state") }
        XXH3_128bits_reset(state)
        xxh3 = state
    }

    deinit { XXH3_freeState(xxh3) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        switch kind {
        case .xxh3: XXH3_128bits_update(xxh3, bytes.baseAddress, bytes.count)
        case .sha256: sha256.update(bufferPointer: bytes)
        }
    }

    /// The hash (lower-case hex) of every byte given so far; more may follow, and a later call covers them too.
    func finalize() -> String {
        switch kind {
        case .xxh3:
            // The canonical form (as `xxhsum -H2` prints it): the high half, then the low, each big-endian.
            let hash = XXH3_128bits_digest(xxh3)
            return hex(UInt64(hash.high64)) + hex(UInt64(hash.low64))
        case .sha256:
            return sha256.finalize().map { hex(UInt64($0), digits: 2) }.joined()
        }
    }

    private func hex(_ value: UInt64, digits: Int = 16) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
