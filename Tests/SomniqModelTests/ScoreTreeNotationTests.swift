import Foundation
import SomniqFeatures
import SomniqModel
import SomniqSynth
import Testing

/// The one-line notation of a boosted tree (model format 2) and the nested objects of format 1, which are still read.
@Suite struct ScoreTreeNotationTests {
    let example: ScoreTree = .test(
        feature: .spectralRolloffHz, threshold: 1562, missingBelow: true,
        below: .test(feature: .mfcc8, threshold: 0.1891, missingBelow: false, below: .points(-0.084), above: .points(0.035)),
        above: .points(0.129))

    @Test func aTreeReadsAsItsFormula() throws {
        let text = "spectral_rolloff_hz < 1562.0 or missing ? (mfcc_8 < 0.1891 ? -0.084 : 0.035) : 0.129"
        #expect(example.notation == text)
        #expect(try ScoreTree(notation: text) == example)
        // Spaces are only separators: more of them, or none beside a parenthesis, read the same.
        #expect(try ScoreTree(notation: "  spectral_rolloff_hz <  1562 or  missing ?(mfcc_8 < 0.1891 ? -0.084 : 0.035): 0.129 ")
                == example)
        #expect(try ScoreTree(notation: "-0.5") == .points(-0.5), "a tree may be a leaf alone")
        #expect(ScoreTree.points(0.25).notation == "0.25")
    }

    /// Random trees of every depth up to the limit, with thresholds and points from the whole range of floats (tiny,
    /// huge, negative zero), read back bit for bit.
    @Test func everyTreeIsReadBackBitForBit() throws {
        var generator = SeededGenerator(seed: 11)
        func randomFloat() -> Float {
            switch generator.next() % 5 {
            case 0: return Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()) & 0x7F7F_FFFF)  // any finite magnitude
            case 1: return -Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()) & 0x7F7F_FFFF)
            case 2: return -0.0
            case 3: return .leastNonzeroMagnitude
            default: return Float(Int(generator.next() % 20_001) - 10_000) / 1_000
            }
        }
        func randomTree(_ depth: Int) -> ScoreTree {
            guard depth > 0, generator.next() % 5 != 0 else { return .points(randomFloat()) }
            return .test(feature: FeatureID.allCases[Int(generator.next() % UInt64(FeatureID.count))], threshold: randomFloat(),
                         missingBelow: generator.next() % 2 == 0, below: randomTree(depth - 1), above: randomTree(depth - 1))
        }
        func bits(_ tree: ScoreTree) -> [UInt32] {
            switch tree {
            case .points(let value): [value.bitPattern]
            case .test(let feature, let threshold, let missingBelow, let below, let above):
                [UInt32(feature.index), threshold.bitPattern, missingBelow ? 1 : 0] + bits(below) + bits(above)
            }
        }
        for _ in 0..<2_000 {
            let tree = randomTree(PointsScore.maximumDepth)
            let read = try ScoreTree(notation: tree.notation)
            #expect(bits(read) == bits(tree), "\(tree.notation)")
        }
    }

    /// A tree's numbers are read from their digits where they are as the fitter writes them: every such number, and the
    /// forms that go to `Float(String)` instead, reads as `Float(String)` reads it, bit for bit; and where it reads none,
    /// neither does the tree.
    @Test func numbersAreReadAsFloatReadsThem() throws {
        var generator = SeededGenerator(seed: 12)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(generator.next() % 10)) }) }
        var words: [String] = []
        for _ in 0..<200_000 {
            let whole = digits(1 + Int(generator.next() % 9)), decimals = Int(generator.next() % 11)
            let sign = generator.next() % 2 == 0 ? "-" : ""
            words.append(decimals == 0 ? sign + whole : sign + whole + "." + digits(decimals))
        }
        // Halfway between two floats (ties to even), the largest whole numbers a float holds, the shortest forms Swift
        // writes, and what is not a plain decimal.
        words += ["16777217", "16777219", "-16777217", "33554434", "33554438", "9007199254740993", "0.0", "-0.0", "0",
                  "1562.0", "0.1891", "-6.806e-14", "1e5", "+1.5", ".5", "5.", "00012.50", "1.2.3", "-", "1.x", "inf",
                  "nan", "0x1p3", "340282350000000000000000000000000000000", "3.4028236e38"]
        for value in [Float.leastNormalMagnitude, .greatestFiniteMagnitude, 0.1, 1 / 3, 1e-7, 123_456.79] {
            words.append("\(value)")
        }
        for word in words {
            let read = try? ScoreTree(notation: word)
            guard let expected = Float(word), expected.isFinite else {
                #expect(read == nil, "\(word) is no finite number")
                continue
            }
            guard case .points(let value) = read else {
                Issue.record("\(word) not read")
                continue
            }
            #expect(value.bitPattern == expected.bitPattern, "\(word): \(value) against \(expected)")
        }
    }

    /// The shipped default written in format 1 (nested objects) and in format 2 (notation) is the same model.
    @Test func bothFormatsHoldTheSameModel() throws {
        let model = try ModelBundle.load(path: defaultModelPath).classifier
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // as the fitter writes (the order of an object's keys is otherwise free)
        let written = try encoder.encode(model)
        let object = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(object["formatVersion"] as? Int == 2)
        let classes = try #require(object["classes"] as? [[String: Any]])
        let snoring = try #require(classes.first { $0["id"] as? String == "snoring" })
        let trees = try #require((snoring["score"] as? [String: Any])?["trees"] as? [Any])
        #expect(trees.allSatisfy { $0 is String }, "format 2 writes a tree as one string")

        func formatOne(_ tree: ScoreTree) -> Any {
            switch tree {
            case .points(let value): return ["points": Double(value)]
            case .test(let feature, let threshold, let missingBelow, let below, let above):
                var node: [String: Any] = ["feature": feature.rawValue, "threshold": Double(threshold),
                                           "below": formatOne(below), "above": formatOne(above)]
                if missingBelow { node["missing"] = "below" }
                return node
            }
        }
        var old = object
        old["formatVersion"] = 1
        old["classes"] = zip(classes, model.classes).map { entry, definition -> [String: Any] in
            guard let score = definition.score, var scoreObject = entry["score"] as? [String: Any] else { return entry }
            var entry = entry
            scoreObject["trees"] = score.trees.map(formatOne)
            entry["score"] = scoreObject
            return entry
        }
        let fromFormatOne = try JSONDecoder().decode(ClassifierModel.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(fromFormatOne.formatVersion == 1)
        #expect(fromFormatOne.classes == model.classes)
        // Written again, a format-1 model is written in format 2, byte for byte as the model read from format 2.
        #expect(try encoder.encode(fromFormatOne) == written)
    }
}
