/// JSON written as it is produced, into a `ByteSink`: objects and arrays opened and closed in order, members in the
/// order they are given (so the same data gives the same bytes). Containers opened with `multiline` put each member
/// on its own indented line; the others stay on one line, which keeps a night of windows readable and small.
public struct JSONStreamWriter {
    private var out: ByteWriter
    private var levels: [(multiline: Bool, empty: Bool)] = []

    public init(sink: ByteSink) { out = ByteWriter(sink: sink) }

    // MARK: Containers

    public mutating func beginObject(_ key: String? = nil, multiline: Bool = false) { open(key, byte: 0x7B, multiline: multiline) }
    public mutating func endObject() { close(byte: 0x7D) }
    public mutating func beginArray(_ key: String? = nil, multiline: Bool = false) { open(key, byte: 0x5B, multiline: multiline) }
    public mutating func endArray() { close(byte: 0x5D) }

    // MARK: Members

    public mutating func string(_ key: String?, _ value: String?) {
        member(key)
        if let value { Self.quote(value, into: &out) } else { out.write("null") }
    }

    public mutating func number(_ key: String?, _ value: Double?) {
        member(key)
        if let value, value.isFinite { out.write(CSVText.number(value)) } else { out.write("null") }
    }

    /// A time in seconds, to the millisecond (see `CSVText.seconds`).
    public mutating func seconds(_ key: String?, _ value: Double?) {
        member(key)
        if let value, value.isFinite { out.write(CSVText.seconds(value)) } else { out.write("null") }
    }

    public mutating func number(_ key: String?, _ value: Float) {
        member(key)
        if value.isFinite { out.write(CSVText.number(value)) } else { out.write("null") }
    }

    public mutating func integer(_ key: String?, _ value: Int64?) {
        member(key)
        if let value { out.write(String(value)) } else { out.write("null") }
    }

    public mutating func integer(_ key: String?, _ value: Int?) { integer(key, value.map(Int64.init)) }

    public mutating func bool(_ key: String?, _ value: Bool) {
        member(key)
        out.write(value ? "true" : "false")
    }

    /// Ends the document with a line break and hands it to the sink.
    public mutating func finish() {
        precondition(levels.isEmpty, "unclosed JSON container")
        out.write(byte: 0x0A)
        out.flush()
    }

    // MARK: Layout

    private mutating func open(_ key: String?, byte: UInt8, multiline: Bool) {
        member(key)
        out.write(byte: byte)
        levels.append((multiline, true))
    }

    private mutating func close(byte: UInt8) {
        let level = levels.removeLast()
        if level.multiline, !level.empty { newline() }
        out.write(byte: byte)
    }

    private mutating func member(_ key: String?) {
        if let index = levels.indices.last {
            if !levels[index].empty { out.write(byte: 0x2C) }
            if levels[index].multiline { newline() } else if !levels[index].empty { out.write(byte: 0x20) }
            levels[index].empty = false
        }
        if let key {
            Self.quote(key, into: &out)
            out.write(": ")
        }
    }

    private mutating func newline() {
        out.write(byte: 0x0A)
        for _ in 0..<levels.count { out.write("  ") }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as UTF-8.
    static func quote(_ text: String, into sink: inout ByteWriter) {
        var text = text
        sink.write(byte: 0x22)
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                sink.write(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch byte {
                case 0x22: sink.write("\\\"")
                case 0x5C: sink.write("\\\\")
                case 0x0A: sink.write("\\n")
                case 0x0D: sink.write("\\r")
                case 0x09: sink.write("\\t")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    sink.write("\\u00")
                    sink.write(byte: hex[Int(byte >> 4)])
                    sink.write(byte: hex[Int(byte & 0xF)])
                }
                start = index + 1
            }
            sink.write(UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        sink.write(byte: 0x22)
    }
}
