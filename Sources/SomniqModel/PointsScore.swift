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
    }

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

/// One tree of a `PointsScore`: a test `feature < threshold` leading `below` or `above`, down to points.
///
/// In JSON a test reads `{"feature": "mfcc_2", "threshold": 3.1, "below": {...}, "above": {...}}` and a leaf
/// `{"points": 0.35}`.
public indirect enum ScoreTree: Codable, Equatable, Sendable {
    case points(Float)
    case test(feature: FeatureID, threshold: Float, below: ScoreTree, above: ScoreTree)

    public func points(_ features: FeatureVector) -> Float {
        var node = self
        while true {
            switch node {
            case .points(let value): return value
            case .test(let feature, let threshold, let below, let above):
                node = features[feature] < threshold ? below : above
            }
        }
    }

    /// Deepest chain of tests.
    public var depth: Int {
        switch self {
        case .points: 0
        case .test(_, _, let below, let above): 1 + max(below.depth, above.depth)
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case points, feature, threshold, below, above }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try container.decodeIfPresent(Float.self, forKey: .points) {
            guard container.allKeys.count == 1, value.isFinite else {
                throw DecodingError.dataCorruptedError(forKey: .points, in: container,
                    debugDescription: "a leaf holds only a finite number of points")
            }
            self = .points(value)
            return
        }
        let name = try container.decode(String.self, forKey: .feature)
        guard let feature = FeatureID(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .feature, in: container, debugDescription:
                "unknown feature \"\(name)\" (known: \(FeatureID.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let threshold = try container.decode(Float.self, forKey: .threshold)
        guard threshold.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .threshold, in: container, debugDescription: "threshold must be finite")
        }
        self = .test(feature: feature, threshold: threshold,
                     below: try container.decode(ScoreTree.self, forKey: .below),
                     above: try container.decode(ScoreTree.self, forKey: .above))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .points(let value):
            try container.encode(value, forKey: .points)
        case .test(let feature, let threshold, let below, let above):
            try container.encode(feature.rawValue, forKey: .feature)
            try container.encode(threshold, forKey: .threshold)
            try container.encode(below, forKey: .below)
            try container.encode(above, forKey: .above)
        }
    }
}

/// A `PointsScore` laid out flat for speed: the classifier walks one array of nodes instead of nested enums.
struct CompiledPointsScore: Sendable {
    struct Node: Sendable {
        /// The feature index tested, or -1 for a leaf.
        var feature: Int32
        /// For a test: the index of its `above` child (its `below` child follows it directly).
        var above: Int32
        /// The threshold of a test, or the points of a leaf.
        var value: Float
    }

    private var nodes: [Node] = []
    private var roots: [Int32] = []
    let base: Float
    let calibration: PointsScore.Calibration

    init(_ score: PointsScore) {
        base = score.base
        calibration = score.calibration
        for tree in score.trees {
            roots.append(Int32(nodes.count))
            append(tree)
        }
    }

    private mutating func append(_ tree: ScoreTree) {
        let index = nodes.count
        switch tree {
        case .points(let points):
            nodes.append(Node(feature: -1, above: -1, value: points))
        case .test(let feature, let threshold, let below, let above):
            nodes.append(Node(feature: Int32(feature.index), above: -1, value: threshold))
            append(below)
            nodes[index].above = Int32(nodes.count)
            append(above)
        }
    }

    func confidence(_ features: FeatureVector) -> Float {
        var score = base
        features.values.withUnsafeBufferPointer { values in
            nodes.withUnsafeBufferPointer { nodes in
                for root in roots {
                    var node = nodes[Int(root)]
                    var index = Int(root)
                    while node.feature >= 0 {
                        index = values[Int(node.feature)] < node.value ? index + 1 : Int(node.above)
                        node = nodes[index]
                    }
                    score += node.value
                }
            }
        }
        return calibration.apply(score)
    }
}
