import CTreeWalk
import Foundation
import SomniqFeatures

/// A class's confidence as a sum of points from small decision trees, read through a logistic calibration:
///
/// ```
/// score      = base + Σ points of the leaf each tree's tests lead to
/// confidence = σ(slope × score + intercept)
/// ```
///
/// Each tree is a handful of yes/no tests on features ("mfcc_2 below 3.1, then spectral_flatness below 0.2:
/// +0.35 points"); the fitter grows them one after another, each correcting what the ones before got wrong
/// (gradient boosting). The calibration maps the score onto how often the class was really there in the
/// fitter's held-out data, so that a confidence of 0.8 is right about 80% of the time on that data.
public struct PointsScore: Codable, Equatable, Sendable {
    public struct Calibration: Codable, Equatable, Sendable {
        public var slope: Float
        public var intercept: Float

        public init(slope: Float, intercept: Float) {
            self.slope = slope
            self.intercept = intercept
        }

        public static let identity = Calibration(slope: 1, intercept: 0)
    }

    public var base: Float
    /// What the alerts read: fitted on the training clips and their augmented copies in rooms.
    public var calibration: Calibration
    /// What a whole clip's class is chosen by (`ClassifierModel.choosingClips`: `classify`, `evaluate --clips`): fitted
    /// on the recorded clips alone (`fit --clip-calibration`). Absent, `calibration` serves both.
    public var clipCalibration: Calibration?
    public var trees: [ScoreTree]

    public init(base: Float, calibration: Calibration = .identity, clipCalibration: Calibration? = nil, trees: [ScoreTree]) {
        self.base = base
        self.calibration = calibration
        self.clipCalibration = clipCalibration
        self.trees = trees
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case base, calibration, clipCalibration, trees }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        base = try container.decode(Float.self, forKey: .base)
        calibration = try container.decodeIfPresent(Calibration.self, forKey: .calibration) ?? .identity
        clipCalibration = try container.decodeIfPresent(Calibration.self, forKey: .clipCalibration)
        trees = try container.decode([ScoreTree].self, forKey: .trees)
        guard base.isFinite, calibration.isValid else {
            throw DecodingError.dataCorruptedError(forKey: .calibration, in: container,
                debugDescription: "base and intercept must be finite numbers and the calibration's slope positive")
        }
        guard clipCalibration?.isValid ?? true else {
            throw DecodingError.dataCorruptedError(forKey: .clipCalibration, in: container,
                debugDescription: "the clip calibration's intercept must be a finite number and its slope positive")
        }
        if let deepest = trees.map(\.depth).max(), deepest > Self.maximumDepth {
            throw DecodingError.dataCorruptedError(forKey: .trees, in: container, debugDescription:
                "a tree \(deepest) tests deep; at most \(Self.maximumDepth) are allowed (the fitter grows at most 6)")
        }
    }

    /// Deepest chain of tests a tree may hold: the classifier lays every tree out as a complete one.
    public static let maximumDepth = 10

    /// The score before calibration.
    public func rawScore(_ features: FeatureVector) -> Float {
        trees.reduce(base) { $0 + $1.points(features) }
    }

    public func confidence(_ features: FeatureVector) -> Float {
        calibration.apply(rawScore(features))
    }
}

extension PointsScore.Calibration {
    @inline(__always)
    public func apply(_ score: Float) -> Float { 1 / (1 + exp(-(slope * score + intercept))) }

    /// A finite intercept and a finite, positive slope (a confidence that rises with the score).
    var isValid: Bool { slope.isFinite && intercept.isFinite && slope > 0 }
}

/// One tree of a `PointsScore`: a test `feature < threshold` leading `below` or `above`, down to points. A
/// missing feature (NaN: the recording lacks its band) goes where the test's `missing` says, `below` or `above`
/// (the fitter learns which from training copies that lack the band).
///
/// In JSON a tree is one string in the notation of `ScoreTree.notation`:
/// `"mfcc_2 < 3.1 or missing ? 0.35 : (spectral_flatness < 0.2 ? -0.1 : 0.2)"`. Model format 1 wrote it as nested
/// objects, `{"feature": "mfcc_2", "threshold": 3.1, "missing": "below", "below": {...}, "above": {...}}` (`missing`
/// absent: above) with leaves `{"points": 0.35}`; those are still read.
public indirect enum ScoreTree: Codable, Equatable, Sendable {
    case points(Float)
    case test(feature: FeatureID, threshold: Float, missingBelow: Bool, below: ScoreTree, above: ScoreTree)

    public func points(_ features: FeatureVector) -> Float {
        var node = self
        while true {
            switch node {
            case .points(let value): return value
            case .test(let feature, let threshold, let missingBelow, let below, let above):
                let value = features[feature]
                node = value < threshold || (missingBelow && value.isNaN) ? below : above
            }
        }
    }

    /// Adds every feature the tree tests to `features`: one set for a whole model's trees, where a set per node (the
    /// union of its sides') made reading which features a model needs cost as much as parsing its trees.
    public func collectFeatures(into features: inout Set<FeatureID>) {
        var node = self
        while case .test(let feature, _, _, let below, let above) = node {
            features.insert(feature)
            below.collectFeatures(into: &features)
            node = above
        }
    }

    /// Deepest chain of tests.
    public var depth: Int {
        switch self {
        case .points: 0
        case .test(_, _, _, let below, let above): 1 + max(below.depth, above.depth)
        }
    }

    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        guard let text = try? single.decode(String.self) else {
            self = try FormatOneNode(from: decoder).tree
            return
        }
        do {
            self = try ScoreTree(notation: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "\(error.description) of \"\(text)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(notation)
    }
}

/// A tree as model format 1 wrote it: a test `{"feature", "threshold", "missing", "below", "above"}` or a leaf
/// `{"points"}`, nested.
private struct FormatOneNode: Decodable {
    let tree: ScoreTree

    enum CodingKeys: String, CodingKey, CaseIterable { case points, feature, threshold, missing, below, above }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        try container.rejectUnknownKeys(CodingKeys.self)
        if let value = try container.decodeIfPresent(Float.self, forKey: AnyCodingKey(CodingKeys.points)) {
            guard container.allKeys.count == 1, value.isFinite else {
                throw DecodingError.dataCorruptedError(forKey: AnyCodingKey(CodingKeys.points), in: container,
                    debugDescription: "a leaf holds only a finite number of points")
            }
            tree = .points(value)
            return
        }
        let name = try container.decode(String.self, forKey: AnyCodingKey(CodingKeys.feature))
        guard let feature = FeatureID(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: AnyCodingKey(CodingKeys.feature), in: container, debugDescription:
                "unknown feature \"\(name)\" (known: \(FeatureID.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let threshold = try container.decode(Float.self, forKey: AnyCodingKey(CodingKeys.threshold))
        guard threshold.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: AnyCodingKey(CodingKeys.threshold), in: container,
                                                   debugDescription: "threshold must be finite")
        }
        let missing = try container.decodeIfPresent(String.self, forKey: AnyCodingKey(CodingKeys.missing)) ?? "above"
        guard missing == "below" || missing == "above" else {
            throw DecodingError.dataCorruptedError(forKey: AnyCodingKey(CodingKeys.missing), in: container,
                                                   debugDescription: "missing is \"below\" or \"above\"")
        }
        tree = .test(feature: feature, threshold: threshold, missingBelow: missing == "below",
                     below: try container.decode(FormatOneNode.self, forKey: AnyCodingKey(CodingKeys.below)).tree,
                     above: try container.decode(FormatOneNode.self, forKey: AnyCodingKey(CodingKeys.above)).tree)
    }
}

/// A `PointsScore` laid out flat for speed. Every tree is padded to the same depth D and stored as a complete
/// binary tree in heap order (the children of test `i` are `2i + 1`, below, and `2i + 2`, above; a leaf above
/// depth D becomes tests that always go below, down to copies of its points). Walking a tree is then D steps
/// with no test for leaves and no branch, and eight trees are walked side by side so that their memory reads
/// overlap (`somniq-bench classify`, an hour of windows: 0.14 s instead of 0.19 s with four trees and a branch a
/// test). The points are added in tree order, so the score is bit for bit the tree walk's.
struct CompiledPointsScore: Sendable {
    private let depth: Int
    private let treeCount: Int
    /// Tests per tree (2^D − 1) and leaves per tree (2^D).
    private let testsPerTree: Int
    private let leavesPerTree: Int
    /// A test, packed in 8 bytes so that one read brings all of it (`threshold`, `feature`, and `missing_below`: 1 if a
    /// missing (NaN) feature goes below, else 0), as the C walk of eight windows reads it too.
    private typealias Test = somniq_tree_test
    private var tests: [Test]
    /// The trees' leaves, and eight zeros after them: the eight-window walk reads eight leaves of each tree at once.
    private var leaves: [Float]
    let base: Float
    let calibration: PointsScore.Calibration

    init(_ score: PointsScore) {
        base = score.base
        calibration = score.calibration
        depth = score.trees.map(\.depth).max() ?? 0
        treeCount = score.trees.count
        leavesPerTree = 1 << depth
        testsPerTree = leavesPerTree - 1
        // A padding test (feature 0 < +∞) must also send a missing feature 0 below, to the copies of its leaf.
        tests = [Test](repeating: Test(threshold: .infinity, feature: 0, missing_below: 1, padding: 0), count: treeCount * testsPerTree)
        leaves = [Float](repeating: 0, count: treeCount * leavesPerTree + 8)
        for (index, tree) in score.trees.enumerated() { lay(tree, tree: index, at: 0, level: 0) }
    }

    private mutating func lay(_ node: ScoreTree, tree: Int, at heapIndex: Int, level: Int) {
        if level == depth {
            guard case .points(let points) = node else { preconditionFailure("a tree deeper than the score's depth") }
            leaves[tree * leavesPerTree + heapIndex - testsPerTree] = points
            return
        }
        switch node {
        case .points:  // feature 0 < +∞ holds for every finite value: both children carry the points
            lay(node, tree: tree, at: 2 * heapIndex + 1, level: level + 1)
            lay(node, tree: tree, at: 2 * heapIndex + 2, level: level + 1)
        case .test(let feature, let threshold, let sendsMissingBelow, let below, let above):
            tests[tree * testsPerTree + heapIndex] = Test(threshold: threshold, feature: UInt16(feature.index),
                                                          missing_below: Self.bit(sendsMissingBelow), padding: 0)
            lay(below, tree: tree, at: 2 * heapIndex + 1, level: level + 1)
            lay(above, tree: tree, at: 2 * heapIndex + 2, level: level + 1)
        }
    }

    /// 1 for true, 0 for false, without a branch.
    @inline(__always)
    private static func bit(_ value: Bool) -> UInt8 { unsafeBitCast(value, to: UInt8.self) }

    func confidence(_ vector: FeatureVector) -> Float {
        var score = base
        let depth = depth, testCount = testsPerTree, leafCount = leavesPerTree
        vector.values.withUnsafeBufferPointer { values in
            tests.withUnsafeBufferPointer { tests in
                leaves.withUnsafeBufferPointer { leaves in
                    /// The heap index below `index` in tree `tree` that the features lead to. Branch-free: which way a
                    /// test goes is as likely as not, and a mispredicted branch per test cost more than the test.
                    @inline(__always) func step(_ tree: Int, _ index: Int) -> Int {
                        let test = tests[tree &* testCount &+ index]
                        let value = values[Int(test.feature)]
                        let below = Self.bit(value < test.threshold) | (Self.bit(value.isNaN) & test.missing_below)
                        return 2 &* index &+ 2 &- Int(below)
                    }
                    // Eight trees side by side: their reads overlap instead of waiting on each other.
                    var tree = 0
                    while tree + 8 <= treeCount {
                        var i0 = 0, i1 = 0, i2 = 0, i3 = 0, i4 = 0, i5 = 0, i6 = 0, i7 = 0
                        for _ in 0..<depth {
                            i0 = step(tree, i0); i1 = step(tree + 1, i1); i2 = step(tree + 2, i2); i3 = step(tree + 3, i3)
                            i4 = step(tree + 4, i4); i5 = step(tree + 5, i5); i6 = step(tree + 6, i6); i7 = step(tree + 7, i7)
                        }
                        // In tree order, so that the sum is bit for bit the trees' one by one.
                        let first = tree &* leafCount &- testCount
                        score += leaves[first &+ i0]; score += leaves[first &+ leafCount &+ i1]
                        score += leaves[first &+ 2 &* leafCount &+ i2]; score += leaves[first &+ 3 &* leafCount &+ i3]
                        score += leaves[first &+ 4 &* leafCount &+ i4]; score += leaves[first &+ 5 &* leafCount &+ i5]
                        score += leaves[first &+ 6 &* leafCount &+ i6]; score += leaves[first &+ 7 &* leafCount &+ i7]
                        tree += 8
                    }
                    while tree < treeCount {
                        var index = 0
                        for _ in 0..<depth { index = step(tree, index) }
                        score += leaves[tree &* leafCount &+ index &- testCount]
                        tree += 1
                    }
                }
            }
        }
        return calibration.apply(score)
    }

    /// Whether `rawScores(ofEight:)` walks this score's trees here: on x86-64 with AVX2, trees of depth 3 or less.
    var walksEightAtOnce: Bool { depth <= 3 && Self.eightAtOnce }
    private static let eightAtOnce = somniq_trees_score8_available() != 0

    /// The scores before calibration of eight windows at once, their features side by side (feature `f` of window `w` at
    /// `values[8f + w]`), by `somniq_trees_score8`: each tree's tests made for the eight windows at once (2^D − 1 vector
    /// tests a tree) where `confidence` makes D scalar steps a window. Each lane adds its trees' points in tree order, so
    /// lane `w` is bit for bit what `confidence` sums for window `w`. Only where `walksEightAtOnce`.
    func rawScores(ofEight values: UnsafePointer<Float>) -> SIMD8<Float> {
        precondition(walksEightAtOnce)
        var scores = SIMD8<Float>()
        tests.withUnsafeBufferPointer { tests in
            leaves.withUnsafeBufferPointer { leaves in
                withUnsafeMutableBytes(of: &scores) { out in
                    somniq_trees_score8(tests.baseAddress, leaves.baseAddress, Int32(treeCount), Int32(depth), values, base,
                                        out.baseAddress!.assumingMemoryBound(to: Float.self))
                }
            }
        }
        return scores
    }
}
