import Foundation

/// A recording's per-window feature rows, written once in window order and read back in order, kept in an
/// unlinked temporary file rather than in memory: 55 floats a window is 19 MB for a 12-hour night, the one
/// part of an analysis that grew with the recording's length.
///
/// Writes go out a block of rows at a time. If the temporary folder cannot take them (no space, no
/// permission), the rows from then on stay in memory: the analysis goes on as it would have without a spool.
public final class FeatureSpool: @unchecked Sendable {
    /// Values a row.
    public let width: Int
    public private(set) var rowCount = 0
    /// Rows a write (and a read) moves at once.
    static let blockRows = 1024

    private var descriptor: Int32
    /// Rows in the file, then rows not written (yet, or at all after a failed write).
    private var rowsInFile = 0
    private var pending: [Float] = []

    /// A spool in `directory` (the system's temporary folder by default); `nil` if no file can be made there.
    public init?(width: Int, directory: String = NSTemporaryDirectory()) {
        precondition(width > 0)
        self.width = width
        var template = Array((directory + "/somniq-features-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }  // gone when closed, whatever happens
        pending.reserveCapacity(Self.blockRows * width)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds one row (`width` values).
    public func append(_ row: UnsafeBufferPointer<Float>) {
        precondition(row.count == width)
        pending.append(contentsOf: row)
        rowCount += 1
        if descriptor >= 0, pending.count >= Self.blockRows * width { writePending() }
    }

    public func append(_ row: [Float]) { row.withUnsafeBufferPointer { append($0) } }

    private func writePending() {
        let written = pending.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let result = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset,
                                    off_t(rowsInFile * width * 4 + offset))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                offset += result
            }
            return true
        }
        guard written else {
            // Keep everything from here on in memory; the file's complete rows stay valid.
            close(descriptor)
            descriptor = -1
            return
        }
        rowsInFile += pending.count / width
        pending.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with consecutive blocks of rows in order: the index of the block's first row and its rows
    /// (row-major). Throws when the file cannot be read back.
    public func forEachBlock(_ body: (Int, UnsafeBufferPointer<Float>) throws -> Void) throws {
        var block = [Float](repeating: 0, count: Self.blockRows * width)
        var row = 0
        while row < rowsInFile {
            let rows = min(Self.blockRows, rowsInFile - row)
            try block.withUnsafeMutableBytes { bytes in
                var offset = 0
                let wanted = rows * width * 4
                while offset < wanted {
                    let result = pread(descriptor, bytes.baseAddress! + offset, wanted - offset, off_t(row * width * 4 + offset))
                    if result < 0, errno == EINTR { continue }
                    guard result > 0 else {
                        throw SpoolError(reason: "cannot read back the temporary feature file: " + String(cString: strerror(errno)))
                    }
                    offset += result
                }
            }
            try block.withUnsafeBufferPointer { try body(row, UnsafeBufferPointer(rebasing: $0[0..<(rows * width)])) }
            row += rows
        }
        if !pending.isEmpty {
            try pending.withUnsafeBufferPointer { try body(rowsInFile, $0) }
        }
    }

    public struct SpoolError: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }
}
