/// Cells a spreadsheet would take for a formula (OWASP "CSV injection"): one that starts with `=`, `@`, a tab or a
/// carriage return, or with `+` or `-` and is not a number. The tables the tool writes (CSV, and the tab-separated
/// DCASE tables, which spreadsheets open too) write such a cell with a leading `'`, which a spreadsheet shows as text.
public enum FormulaCells {
    /// Whether the cell whose UTF-8 bytes are `bytes` (first byte `first`) looks like a formula.
    public static func looksLikeFormula(first: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D: return true
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return Double(String(decoding: bytes, as: UTF8.self)) == nil
        default: return false
        }
    }

    public static func looksLikeFormula(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.first.map { looksLikeFormula(first: $0, bytes) } ?? false }
    }

    /// `text`, with a leading `'` where it looks like a formula.
    public static func neutralised(_ text: String) -> String { looksLikeFormula(text) ? "'" + text : text }

    /// The inverse of `neutralised`: a leading `'` taken off where what follows looks like a formula.
    public static func restored(_ text: String) -> String {
        guard text.hasPrefix("'") else { return text }
        let rest = String(text.dropFirst())
        return looksLikeFormula(rest) ? rest : text
    }
}
