import SomniqFeatures

/// The one-line notation a `ScoreTree` is written in (model format 2):
///
/// ```
/// spectral_rolloff_hz < 1562.0 or missing ? (mfcc_8 < 0.1891 ? -0.084 : 0.035) : 0.129
/// ```
///
/// `feature < threshold ? below : above`, read as in C: on each side either the points (a number) or a nested test
/// in parentheses. `or missing` after the threshold sends a missing feature (NaN) below; without it, it goes above.
/// Tokens are separated by spaces (any number) or parentheses.
///
/// Format 1 wrote each test as a JSON object, and JSONDecoder's cost is per value: model 3.4.0 (5,400 trees) took
/// 0.24 s a process to load that way, 0.024 s in this notation (`somniq-bench load`). It also reads as the formula it is.
extension ScoreTree {
    /// The tree in the notation above; `ScoreTree(notation:)` reads it back to the same tree, bit for bit.
    public var notation: String {
        switch self {
        case .points(let value):
            return "\(value)"
        case .test(let feature, let threshold, let missingBelow, let below, let above):
            func side(_ node: ScoreTree) -> String {
                if case .points = node { return node.notation }
                return "(\(node.notation))"
            }
            return "\(feature.rawValue) < \(threshold)\(missingBelow ? " or missing" : "") ? \(side(below)) : \(side(above))"
        }
    }

    /// Reads a tree written in the notation above.
    public init(notation: String) throws(ScoreTreeNotationError) {
        var parser = ScoreTreeParser(notation)
        self = try parser.whole()
    }
}

/// Why a tree's notation could not be read: what was expected, at which character (counted from 1).
public struct ScoreTreeNotationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var position: Int

    public var description: String { "\(reason) at character \(position)" }
}

/// A recursive-descent reader of the notation over its UTF-8 bytes. Nesting is bounded by
/// `PointsScore.maximumDepth`, so no input can run the stack out.
private struct ScoreTreeParser {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    private static let featuresByName = Dictionary(uniqueKeysWithValues: FeatureID.allCases.map { ($0.rawValue, $0) })
    private static let space = UInt8(ascii: " "), open = UInt8(ascii: "("), close = UInt8(ascii: ")")

    /// The whole text: points, or a test without parentheses.
    mutating func whole() throws(ScoreTreeNotationError) -> ScoreTree {
        skipSpaces()
        let tree: ScoreTree
        if position < bytes.count, Float(word(at: position)) != nil {
            tree = .points(try number("points"))
        } else {
            tree = try test(depth: 1)
        }
        skipSpaces()
        guard position == bytes.count else { throw failure("expected the end of the tree") }
        return tree
    }

    /// `feature < threshold [or missing] ? side : side`, the test at `depth` tests from the root.
    private mutating func test(depth: Int) throws(ScoreTreeNotationError) -> ScoreTree {
        guard depth <= PointsScore.maximumDepth else {
            throw failure("a tree more than \(PointsScore.maximumDepth) tests deep")
        }
        let start = position
        let name = nextWord()
        guard let feature = Self.featuresByName[name] else {
            position = start
            throw failure(name.isEmpty ? "expected a feature's name" : "unknown feature \"\(name)\"")
        }
        try expect("<")
        let threshold = try number("threshold")
        var missingBelow = false
        if word(at: position) == "or" {
            _ = nextWord()
            try expect("missing")
            missingBelow = true
        }
        try expect("?")
        let below = try side(depth: depth)
        try expect(":")
        let above = try side(depth: depth)
        return .test(feature: feature, threshold: threshold, missingBelow: missingBelow, below: below, above: above)
    }

    /// Points, or `(test)`.
    private mutating func side(depth: Int) throws(ScoreTreeNotationError) -> ScoreTree {
        skipSpaces()
        guard position < bytes.count, bytes[position] == Self.open else { return .points(try number("points")) }
        position += 1
        let tree = try test(depth: depth + 1)
        skipSpaces()
        guard position < bytes.count, bytes[position] == Self.close else { throw failure("expected \")\"") }
        position += 1
        return tree
    }

    private mutating func number(_ what: String) throws(ScoreTreeNotationError) -> Float {
        let start = position
        let text = nextWord()
        guard let value = Float(text), value.isFinite else {
            position = start
            throw failure(text.isEmpty ? "expected the \(what), a number"
                          : Float(text) == nil ? "\(what) \"\(text)\" is not a number" : "\(what) must be a finite number")
        }
        return value
    }

    private mutating func expect(_ token: String) throws(ScoreTreeNotationError) {
        let start = position
        guard nextWord() == token else {
            position = start
            throw failure("expected \"\(token)\"")
        }
    }

    private mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == Self.space { position += 1 }
    }

    /// The word starting at `start` (after spaces), without moving: the bytes up to a space or a parenthesis.
    private func word(at start: Int) -> String {
        var begin = start
        while begin < bytes.count, bytes[begin] == Self.space { begin += 1 }
        var end = begin
        while end < bytes.count, bytes[end] != Self.space, bytes[end] != Self.open, bytes[end] != Self.close { end += 1 }
        return String(decoding: bytes[begin..<end], as: UTF8.self)
    }

    /// The next word, moving past it.
    private mutating func nextWord() -> String {
        skipSpaces()
        let text = word(at: position)
        position += text.utf8.count
        return text
    }

    /// The error, at the next word.
    private func failure(_ reason: String) -> ScoreTreeNotationError {
        var at = position
        while at < bytes.count, bytes[at] == Self.space { at += 1 }
        return ScoreTreeNotationError(reason: reason, position: at + 1)
    }
}
