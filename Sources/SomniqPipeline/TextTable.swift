/// A plain-text table with aligned columns, for terminal reports.
public struct TextTable {
    public enum Alignment { case left, right }

    public var headers: [String]
    public var alignments: [Alignment]
    public private(set) var rows: [[String]] = []

    public init(headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    public mutating func append(_ row: [String]) {
        precondition(row.count == headers.count, "row has \(row.count) cells, table has \(headers.count) columns")
        rows.append(row.map(Formatting.printable))
    }

    public func render(indent: String = "") -> String {
        var widths = headers.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return alignments[index] == .left ? cell + padding : padding + cell
            }
            var text = indent + padded.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
