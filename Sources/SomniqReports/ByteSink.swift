import Foundation
import SomniqFiles
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Where a report's bytes go, in large writes: standard output, memory, or a file that appears whole.
///
/// A file is written beside its destination under a hidden temporary name and renamed into place by `finish()`, so an
/// export cut short (a full disk, an error, a kill) never leaves half a file where the whole one is expected, and an
/// earlier file of that name stays as it was until the new one is complete. Writes never throw: the first failure is
/// kept, later writes are dropped, and `finish()` reports it (as `ferror` does for stdio), which keeps the writers'
/// hot loops free of error plumbing. Writers buffer in front of it (`ByteWriter`).
public final class ByteSink {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): error: cannot write: \(reason)" }
    }

    private enum Target {
        case descriptor(Int32, name: String)
        case file(descriptor: Int32, partial: String, final: String)
        /// A character device or a named pipe, written in place and closed at the end.
        case stream(descriptor: Int32, path: String)
        case memory
    }

    private let target: Target
    private var kept: [UInt8] = []
    private var failure: Failure?
    private var finished = false

    private init(_ target: Target) { self.target = target }

    deinit { discard() }

    public static func standardOutput() -> ByteSink { descriptor(STDOUT_FILENO, name: "standard output") }

    /// An open descriptor the caller owns (it is not closed).
    public static func descriptor(_ descriptor: Int32, name: String) -> ByteSink { ByteSink(.descriptor(descriptor, name: name)) }

    /// Collects the bytes, for `text` (small reports, tests).
    public static func memory() -> ByteSink { ByteSink(.memory) }

    /// A file that appears at `path` only when `finish()` succeeds.
    public static func file(_ path: String) throws -> ByteSink {
        PartialFiles.removeStale(besides: path)
        switch PartialFiles.create(for: path) {
        case .success(let (descriptor, partial)):
            return ByteSink(.file(descriptor: descriptor, partial: partial, final: path))
        case .failure(let error):
            throw Failure(path: path, reason: "\(error.reason) (is the folder there and writable?)")
        }
    }

    /// A character device (`/dev/null`, a terminal) or a named pipe at `path`, written in place: it is never replaced
    /// by a file, nor read.
    public static func stream(_ path: String) throws -> ByteSink {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        return ByteSink(.stream(descriptor: descriptor, path: path))
    }

    /// What a memory sink holds.
    public var text: String { String(decoding: kept, as: UTF8.self) }

    /// Hands bytes on (a `ByteWriter` calls this with its buffer); after a failure, drops them.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !finished, !bytes.isEmpty else { return }
        let descriptor: Int32, name: String
        switch target {
        case .memory:
            kept.append(contentsOf: bytes)
            return
        case .descriptor(let d, let n): (descriptor, name) = (d, n)
        case .file(let d, _, let final): (descriptor, name) = (d, final)
        case .stream(let d, let path): (descriptor, name) = (d, path)
        }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = Failure(path: name, reason: String(cString: strerror(errno)))
                return
            }
            offset += written
        }
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes what is left and, for a file, puts it in place; throws the first failure of any write.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        if case .file(let descriptor, let partial, let final) = target {
            if failure == nil, fsync(descriptor) != 0 { failure = Failure(path: final, reason: String(cString: strerror(errno))) }
            close(descriptor)
            if failure == nil, case .failure(let error) = PartialFiles.commit(partial, to: final) {
                failure = Failure(path: final, reason: error.reason)
            }
            if failure != nil { PartialFiles.abandon(partial) }
        }
        if case .stream(let descriptor, let path) = target, close(descriptor) != 0, failure == nil {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        }
        if let failure { throw failure }
    }

    /// Drops what was written: a file sink removes its temporary file and leaves the destination as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        if case .file(let descriptor, let partial, _) = target {
            close(descriptor)
            PartialFiles.abandon(partial)
        }
        if case .stream(let descriptor, _) = target { close(descriptor) }
    }
}

/// A buffer in front of a `ByteSink`, handing it 64 KB at a time. A struct, so that the writers' per-byte appends
/// are checked for exclusive access at compile time (as a class's stored buffer would be, at run time, per call).
public struct ByteWriter {
    public let sink: ByteSink
    private var buffer: [UInt8] = []
    static let flushSize = 1 << 16

    public init(sink: ByteSink) {
        self.sink = sink
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    @inline(__always)
    public mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    @inline(__always)
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushSize { flush() }
    }

    @inline(__always)
    public mutating func write(byte: UInt8) {
        buffer.append(byte)
        if buffer.count >= Self.flushSize { flush() }
    }

    /// Hands what is buffered to the sink.
    public mutating func flush() {
        buffer.withUnsafeBytes { sink.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
