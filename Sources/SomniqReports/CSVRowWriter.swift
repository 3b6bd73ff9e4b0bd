import SomniqEvaluation

/// RFC 4180 rows (comma-separated, CRLF line ends, a cell quoted when it holds a comma, quote or line break, its
/// quotes doubled) written straight into a `ByteSink`.
///
/// Text cells are neutralised against spreadsheet formula injection (OWASP "CSV injection"): a cell that starts with
/// `=`, `@`, a tab or a carriage return, or with `+` or `-` without being a number, gets a leading `'`, so a class id
/// from a crafted model or a label from someone's annotation file is shown, never run. Numbers are written as they are.
///
/// Written here rather than through CSV.swift (which the tests use to read the output back, an independent check):
/// that writer hands its stream one byte at a time, about 2 MB/s, and an 8-hour night's windows are 18 MB.
public struct CSVRowWriter {
    private var out: ByteWriter
    private var atRowStart = true

    public init(sink: ByteSink) { out = ByteWriter(sink: sink) }

    /// Hands the buffered rows to the sink; call it when done.
    public mutating func flush() { out.flush() }

    /// A whole row of text cells (numbers given as text are recognised and left alone).
    public mutating func write(row cells: [String]) {
        for cell in cells { text(cell) }
        endRow()
    }

    public mutating func endRow() {
        out.write(byte: 0x0D)
        out.write(byte: 0x0A)
        atRowStart = true
    }

    @inline(__always)
    private mutating func separate() {
        if atRowStart { atRowStart = false } else { out.write(byte: 0x2C) }
    }

    /// A cell known to need neither quoting nor neutralising (a number, a UTC timestamp, an enum word).
    public mutating func plain(_ value: String) {
        separate()
        out.write(value)
    }

    public mutating func number(_ value: Double) { plain(CSVText.number(value)) }
    public mutating func number(_ value: Float) { plain(CSVText.number(value)) }
    /// A time in seconds, to the millisecond (57.861, not 57.861000000000004).
    public mutating func seconds(_ value: Double) { plain(CSVText.seconds(value)) }
    public mutating func integer(_ value: Int) { plain(String(value)) }
    public mutating func integer(_ value: Int64) { plain(String(value)) }

    public mutating func text(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { bytes in
            guard let first = bytes.first else { return }
            var needsQuotes = false
            for byte in bytes where byte == 0x2C || byte == 0x22 || byte == 0x0D || byte == 0x0A {
                needsQuotes = true
                break
            }
            let neutralise = FormulaCells.looksLikeFormula(first: first, bytes)
            if needsQuotes { out.write(byte: 0x22) }
            if neutralise { out.write(byte: 0x27) }
            if needsQuotes {
                var start = 0
                for (index, byte) in bytes.enumerated() where byte == 0x22 {
                    out.write(UnsafeBufferPointer(rebasing: bytes[start...index]))
                    out.write(byte: 0x22)
                    start = index + 1
                }
                out.write(UnsafeBufferPointer(rebasing: bytes[start...]))
                out.write(byte: 0x22)
            } else {
                out.write(bytes)
            }
        }
    }
}

/// CSV text in memory, for the small reports.
public enum CSVText {
    public static func make(_ body: (inout CSVRowWriter) throws -> Void) rethrows -> String {
        let sink = ByteSink.memory()
        var writer = CSVRowWriter(sink: sink)
        try body(&writer)
        writer.flush()
        return sink.text
    }

    /// Shortest round-tripping decimal form, locale-free.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A time in seconds rounded to the millisecond, in its shortest form: the analysis's times are multiples of a
    /// millisecond or finer than anyone reads, and sums of them carry binary noise (17.939999999999998).
    public static func seconds(_ value: Double) -> String {
        value.isFinite ? number((value * 1000).rounded() / 1000) : ""
    }

    /// Shortest decimal that reads back as the same `Float` (0.3, not 0.30000001192092896); an empty cell for a
    /// missing value (NaN).
    public static func number(_ value: Float) -> String {
        guard !value.isNaN else { return "" }
        return value == value.rounded() && abs(value) < 1e7 ? String(Int64(value)) : String(value)
    }
}
