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
    public var calibration: Calibration
    public var trees: [ScoreTree]

    public init(base: Float, calibration: Calibration = .identity, trees: [ScoreTree]) {
        self.base = base
        self.calibration = calibration
        self.trees = trees
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case base, calibration, trees }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        base = try container.decode(Float.self, forKey: .base)
        calibration = try container.decodeIfPresent(Calibration.self, forKey: .calibration) ?? .identity
        trees = try container.decode([ScoreTree].self, forKey: .trees)
        guard base.isFinite, calibration.slope.isFinite, calibration.intercept.isFinite, calibration.slope > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .calibration, in: container,
                debugDescription: "base and intercept must be finite numbers and the calibration's slope positive")
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
}

/// One tree of a `PointsScore`: a test `feature < threshold` leading `below` or `above`, down to points. A
/// missing feature (NaN: the recording lacks its band) goes where the test's `missing` says, `below` or `above`
/// (the fitter learns which from training copies that lack the band).
///
/// In JSON a test reads `{"feature": "mfcc_2", "threshold": 3.1, "missing": "below", "below": {...}, "above": {...}}`
/// (`missing` absent: above) and a leaf `{"points": 0.35}`.
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

    /// Deepest chain of tests.
    public var depth: Int {
        switch self {
        case .points: 0
        case .test(_, _, _, let below, let above): 1 + max(below.depth, above.depth)
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case points, feature, threshold, missing, below, above }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        try container.rejectUnknownKeys(CodingKeys.self)
        if let value = try container.decodeIfPresent(Float.self, forKey: AnyCodingKey(CodingKeys.points)) {
            guard container.allKeys.count == 1, value.isFinite else {
                throw DecodingError.dataCorruptedError(forKey: AnyCodingKey(CodingKeys.points), in: container,
                    debugDescription: "a leaf holds only a finite number of points")
            }
            self = .points(value)
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
        self = .test(feature: feature, threshold: threshold, missingBelow: missing == "below",
                     below: try container.decode(ScoreTree.self, forKey: AnyCodingKey(CodingKeys.below)),
                     above: try container.decode(ScoreTree.self, forKey: AnyCodingKey(CodingKeys.above)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .points(let value):
            try container.encode(value, forKey: .points)
        case .test(let feature, let threshold, let missingBelow, let below, let above):
            try container.encode(feature.rawValue, forKey: .feature)
            try container.encode(threshold, forKey: .threshold)
            if missingBelow { try container.encode("below", forKey: .missing) }
            try container.encode(below, forKey: .below)
            try container.encode(above, forKey: .above)
        }
    }
}

/// A `PointsScore` laid out flat for speed. Every tree is padded to the same depth D and stored as a complete
/// binary tree in heap order (the children of test `i` are `2i + 1`, below, and `2i + 2`, above; a leaf above
/// depth D becomes tests that always go below, down to copies of its points). Walking a tree is then D steps
/// with no test for leaves, and four trees are walked side by side so that their memory reads overlap. The
/// points are added in tree order, so the score is bit for bit the tree walk's.
struct CompiledPointsScore: Sendable {
    private let depth: Int
    private let treeCount: Int
    /// Tests per tree (2^D − 1) and leaves per tree (2^D).
    private let testsPerTree: Int
    private let leavesPerTree: Int
    private var features: [Int32]
    private var thresholds: [Float]
    /// Tests that send a missing (NaN) feature below.
    private var missingBelow: [Bool]
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
        features = [Int32](repeating: 0, count: treeCount * testsPerTree)
        thresholds = [Float](repeating: .infinity, count: treeCount * testsPerTree)
        // A padding test (feature 0 < +∞) must also send a missing feature 0 below, to the copies of its leaf.
        missingBelow = [Bool](repeating: true, count: treeCount * testsPerTree)
        leaves = [Float](repeating: 0, count: treeCount * leavesPerTree)
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
            features[tree * testsPerTree + heapIndex] = Int32(feature.index)
            thresholds[tree * testsPerTree + heapIndex] = threshold
            missingBelow[tree * testsPerTree + heapIndex] = sendsMissingBelow
            lay(below, tree: tree, at: 2 * heapIndex + 1, level: level + 1)
            lay(above, tree: tree, at: 2 * heapIndex + 2, level: level + 1)
        }
    }

    func confidence(_ vector: FeatureVector) -> Float {
        var score = base
        let depth = depth, tests = testsPerTree, leafCount = leavesPerTree
        vector.values.withUnsafeBufferPointer { values in
            features.withUnsafeBufferPointer { features in
                thresholds.withUnsafeBufferPointer { thresholds in
                  missingBelow.withUnsafeBufferPointer { missingBelow in
                    leaves.withUnsafeBufferPointer { leaves in
                        /// The heap index below `index` in tree `tree` that the features lead to.
                        @inline(__always) func step(_ tree: Int, _ index: Int) -> Int {
                            let test = tree * tests + index
                            let value = values[Int(features[test])]
                            return 2 * index + (value < thresholds[test] || (missingBelow[test] && value.isNaN) ? 1 : 2)
                        }
                        var tree = 0
                        while tree + 4 <= treeCount {
                            var i0 = 0, i1 = 0, i2 = 0, i3 = 0
                            for _ in 0..<depth {
                                i0 = step(tree, i0); i1 = step(tree + 1, i1); i2 = step(tree + 2, i2); i3 = step(tree + 3, i3)
                            }
                            score += leaves[tree * leafCount + i0 - tests]
                            score += leaves[(tree + 1) * leafCount + i1 - tests]
                            score += leaves[(tree + 2) * leafCount + i2 - tests]
                            score += leaves[(tree + 3) * leafCount + i3 - tests]
                            tree += 4
                        }
                        while tree < treeCount {
                            var index = 0
                            for _ in 0..<depth { index = step(tree, index) }
                            score += leaves[tree * leafCount + index - tests]
                            tree += 1
                        }
                    }
                  }
                }
            }
        }
        return calibration.apply(score)
    }
}
