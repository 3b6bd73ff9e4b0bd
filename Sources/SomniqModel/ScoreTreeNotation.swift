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
///
/// A model holds thousands of trees, read by every process that analyses: the reader makes no string of a word it
/// reads (a feature's name is found among the names' bytes, a number is read from its digits), only of one it cannot.
private struct ScoreTreeParser {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    /// The features' names as bytes, in byte order, for a binary search.
    private static let names: [(name: [UInt8], feature: FeatureID)] = FeatureID.allCases
        .map { (Array($0.rawValue.utf8), $0) }
        .sorted { $0.name.lexicographicallyPrecedes($1.name) }
    private static let space = UInt8(ascii: " "), open = UInt8(ascii: "("), close = UInt8(ascii: ")")

    /// The whole text: points, or a test without parentheses.
    mutating func whole() throws(ScoreTreeNotationError) -> ScoreTree {
        skipSpaces()
        let tree: ScoreTree
        if position < bytes.count, Self.number(bytes[word(at: position)]) != nil {
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
        guard let feature = Self.feature(named: bytes[name]) else {
            position = start
            throw failure(name.isEmpty ? "expected a feature's name" : "unknown feature \"\(text(name))\"")
        }
        try expect("<")
        let threshold = try number("threshold")
        var missingBelow = false
        if bytes[word(at: position)].elementsEqual("or".utf8) {
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
        let range = nextWord()
        guard let value = Self.number(bytes[range]), value.isFinite else {
            position = start
            let text = text(range)
            throw failure(text.isEmpty ? "expected the \(what), a number"
                          : Float(text) == nil ? "\(what) \"\(text)\" is not a number" : "\(what) must be a finite number")
        }
        return value
    }

    private mutating func expect(_ token: StaticString) throws(ScoreTreeNotationError) {
        let start = position
        let range = nextWord()
        let expected = UnsafeBufferPointer(start: token.utf8Start, count: token.utf8CodeUnitCount)
        guard bytes[range].elementsEqual(expected) else {
            position = start
            throw failure("expected \"\(token)\"")
        }
    }

    private mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == Self.space { position += 1 }
    }

    /// Where the word starting at `start` (after spaces) lies, without moving: the bytes up to a space or a parenthesis.
    private func word(at start: Int) -> Range<Int> {
        var begin = start
        while begin < bytes.count, bytes[begin] == Self.space { begin += 1 }
        var end = begin
        while end < bytes.count, bytes[end] != Self.space, bytes[end] != Self.open, bytes[end] != Self.close { end += 1 }
        return begin..<end
    }

    /// The next word, moving past it.
    private mutating func nextWord() -> Range<Int> {
        let range = word(at: position)
        position = range.upperBound
        return range
    }

    private func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    private static func feature(named name: ArraySlice<UInt8>) -> FeatureID? {
        var low = 0, high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle].name.lexicographicallyPrecedes(name) { low = middle + 1 } else { high = middle }
        }
        return low < names.count && names[low].name.elementsEqual(name) ? names[low].feature : nil
    }

    /// The number a word writes, as `Float(String)` reads it: bit for bit the same value, `nil` where it reads none.
    ///
    /// What the fitter writes (`-0.084`, `1562.0`: an optional minus, digits, and at most eight decimals; fifteen
    /// digits in all) is read here from its digits: `m / 10^e` with both exact in a `Double`, one correctly rounded
    /// division, then rounded to a `Float`. Rounding twice gives the float the decimal rounds to, because such a
    /// decimal never lies within 2⁻⁵² of its size of a point halfway between two floats without lying on it (that
    /// distance is at least 1 / (K · 10^e) of it, K < 2²⁵ the halfway point's odd significand, e ≤ 8), where the first
    /// rounding moves it by at most 2⁻⁵³ of its size. Any other form (an exponent, more digits) is read by
    /// `Float(String)` itself. `ScoreTreeNotationTests.numbersAreReadAsFloatReadsThem` holds the two to the same bits.
    static func number(_ word: ArraySlice<UInt8>) -> Float? {
        var index = word.startIndex
        let negative = index < word.endIndex && word[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: Int64 = 0, digits = 0, decimals = 0, point = false, plain = index < word.endIndex
        while index < word.endIndex, plain {
            let byte = word[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                mantissa = mantissa &* 10 &+ Int64(byte &- UInt8(ascii: "0"))
                digits += 1
                if point { decimals += 1 }
            } else if byte == UInt8(ascii: "."), !point, digits > 0, index + 1 < word.endIndex {
                point = true
            } else {
                plain = false
            }
            index += 1
        }
        guard plain, digits <= 15, decimals <= 8 else { return Float(String(decoding: word, as: UTF8.self)) }
        let magnitude = Double(mantissa) / powersOfTen[decimals]
        return Float(negative ? -magnitude : magnitude)
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]

    /// The error, at the next word.
    private func failure(_ reason: String) -> ScoreTreeNotationError {
        var at = position
        while at < bytes.count, bytes[at] == Self.space { at += 1 }
        return ScoreTreeNotationError(reason: reason, position: at + 1)
    }
}
