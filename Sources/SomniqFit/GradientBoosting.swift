import Foundation

/// Gradient-boosted small trees for one class against the rest (binary logistic loss, Newton steps, as in
/// XGBoost and LightGBM): each round grows a tree of at most `maxDepth` tests on the current errors and adds a
/// shrunken step to every row's score. Split thresholds are taken from a fixed set per feature (midpoints
/// between quantiles of the training values), so that a node's best split is found from histograms.
///
/// Deterministic: ties go to the earlier feature and the lower threshold.
public struct GradientBoosting: Sendable {
    public struct Options: Sendable {
        public var rounds = 100
        public var maxDepth = 3
        public var learningRate = 0.1
        /// L2 penalty on a leaf's points (in units of the Hessian of rows of average weight).
        public var l2 = 1.0
        /// Least share of the total training weight on each side of a split.
        public var minLeafShare = 0.01
        /// Candidate thresholds per feature.
        public var bins = 32

        public init() {}
    }

    /// A grown tree over feature columns, thresholds as values: `row[feature] < threshold` goes below, and a
    /// missing value (NaN) goes below when `missingBelow`, above otherwise.
    public indirect enum Tree: Sendable, Equatable {
        case leaf(Double)
        case split(feature: Int, threshold: Float, missingBelow: Bool, below: Tree, above: Tree)

        public func value(_ row: [Float]) -> Double {
            switch self {
            case .leaf(let value): value
            case .split(let feature, let threshold, let missingBelow, let below, let above):
                row[feature] < threshold || (missingBelow && row[feature].isNaN) ? below.value(row) : above.value(row)
            }
        }
    }

    public let base: Double
    public let trees: [Tree]

    public func score(_ row: [Float]) -> Double { trees.reduce(base) { $0 + $1.value(row) } }

    /// Fits to `samples` (rows of feature values), `labels` and `weights`, splitting only on `features`.
    /// The weights' scale does not matter: they are rescaled to average 1, so that `l2` counts in rows.
    public init(samples: [[Float]], labels: [Bool], weights rawWeights: [Double], features: [Int], options: Options = Options()) {
        precondition(samples.count == labels.count && labels.count == rawWeights.count)
        let rawTotal = rawWeights.reduce(0, +)
        let weights = rawTotal > 0 ? rawWeights.map { $0 * Double(rawWeights.count) / rawTotal } : rawWeights
        let positive = zip(labels, weights).reduce(0.0) { $0 + ($1.0 ? $1.1 : 0) }
        let total = weights.reduce(0, +)
        // The prior log-odds, kept finite when one side is empty.
        base = log(max(positive, 1e-9 * total) / max(total - positive, 1e-9 * total))
        let table = BinnedTable(samples: samples, features: features, bins: options.bins)
        var scores = [Double](repeating: base, count: samples.count)
        var gradients = [Double](repeating: 0, count: samples.count)
        var hessians = [Double](repeating: 0, count: samples.count)
        var grown: [Tree] = []
        let minLeafWeight = options.minLeafShare * total
        for _ in 0..<options.rounds {
            for row in samples.indices {
                let p = 1 / (1 + exp(-scores[row]))
                gradients[row] = weights[row] * (p - (labels[row] ? 1 : 0))
                hessians[row] = weights[row] * max(p * (1 - p), 1e-6)
            }
            let grower = TreeGrower(table: table, gradients: gradients, hessians: hessians, weights: weights,
                                    l2: options.l2, minLeafWeight: minLeafWeight, shrinkage: options.learningRate)
            let tree = grower.grow(rows: Array(samples.indices), depth: options.maxDepth)
            for row in samples.indices { scores[row] += tree.value(samples[row]) }
            grown.append(tree)
        }
        trees = grown
    }
}

/// Feature values replaced by the index of their bin: `bin(row) ≤ k` exactly when `value < thresholds[k]`; a
/// missing value (NaN) has the bin `missing`.
struct BinnedTable {
    static let missing = UInt8.max
    let features: [Int]
    /// Per feature (in `features` order): ascending thresholds.
    let thresholds: [[Float]]
    /// Per feature: the bin of every row.
    let bins: [[UInt8]]

    init(samples: [[Float]], features: [Int], bins count: Int) {
        precondition(count < 256)
        self.features = features
        var thresholds: [[Float]] = [], bins: [[UInt8]] = []
        for feature in features {
            let cuts = DecisionTree.candidateThresholds(sortedValues: samples.map { $0[feature] }.filter { !$0.isNaN }.sorted(),
                                                        count: count)
            thresholds.append(cuts)
            bins.append(samples.map { row in
                guard !row[feature].isNaN else { return Self.missing }
                var lower = 0, upper = cuts.count
                while lower < upper {
                    let middle = (lower + upper) / 2
                    if cuts[middle] <= row[feature] { lower = middle + 1 } else { upper = middle }
                }
                return UInt8(lower)
            })
        }
        self.thresholds = thresholds
        self.bins = bins
    }
}

/// Grows one Newton tree on gradients and Hessians.
struct TreeGrower {
    let table: BinnedTable
    let gradients: [Double], hessians: [Double], weights: [Double]
    let l2: Double, minLeafWeight: Double, shrinkage: Double

    func leaf(_ rows: [Int]) -> GradientBoosting.Tree {
        var g = 0.0, h = 0.0
        for row in rows { g += gradients[row]; h += hessians[row] }
        return .leaf(-g / (h + l2) * shrinkage)
    }

    func grow(rows: [Int], depth: Int) -> GradientBoosting.Tree {
        guard depth > 0, rows.count >= 2 else { return leaf(rows) }
        var g = 0.0, h = 0.0, w = 0.0
        for row in rows { g += gradients[row]; h += hessians[row]; w += weights[row] }
        guard w >= 2 * minLeafWeight else { return leaf(rows) }
        let parent = g * g / (h + l2)
        var best: (gain: Double, column: Int, bin: Int, missingBelow: Bool)?
        for column in table.features.indices {
            let cuts = table.thresholds[column].count
            guard cuts > 0 else { continue }
            var histG = [Double](repeating: 0, count: cuts + 1)
            var histH = histG, histW = histG
            var missingG = 0.0, missingH = 0.0, missingW = 0.0
            let bins = table.bins[column]
            for row in rows {
                let bin = bins[row]
                if bin == BinnedTable.missing {
                    missingG += gradients[row]; missingH += hessians[row]; missingW += weights[row]
                    continue
                }
                histG[Int(bin)] += gradients[row]
                histH[Int(bin)] += hessians[row]
                histW[Int(bin)] += weights[row]
            }
            // Missing values go to whichever side gains more; with none here, to the heavier side.
            var leftG = 0.0, leftH = 0.0, leftW = 0.0
            for cut in 0..<cuts {
                leftG += histG[cut]; leftH += histH[cut]; leftW += histW[cut]
                func consider(missingBelow: Bool) {
                    let lg = leftG + (missingBelow ? missingG : 0), lh = leftH + (missingBelow ? missingH : 0)
                    let lw = leftW + (missingBelow ? missingW : 0)
                    guard lw >= minLeafWeight, w - lw >= minLeafWeight else { return }
                    let rightG = g - lg, rightH = h - lh
                    let gain = lg * lg / (lh + l2) + rightG * rightG / (rightH + l2) - parent
                    if gain > (best?.gain ?? 1e-12) { best = (gain, column, cut, missingBelow) }
                }
                if missingW > 0 {
                    consider(missingBelow: true)
                    consider(missingBelow: false)
                } else {
                    consider(missingBelow: leftW >= w - leftW)
                }
            }
        }
        guard let best else { return leaf(rows) }
        let bins = table.bins[best.column]
        let goesBelow = { (row: Int) -> Bool in
            let bin = bins[row]
            return bin == BinnedTable.missing ? best.missingBelow : Int(bin) <= best.bin
        }
        let below = rows.filter(goesBelow)
        let above = rows.filter { !goesBelow($0) }
        return .split(feature: table.features[best.column], threshold: table.thresholds[best.column][best.bin],
                      missingBelow: best.missingBelow,
                      below: grow(rows: below, depth: depth - 1), above: grow(rows: above, depth: depth - 1))
    }
}

/// Platt scaling: the logistic map `σ(slope × score + intercept)` that best fits held-out labels (weighted
/// log loss, Newton's method).
public enum PlattScaling {
    public static func fit(scores: [Double], labels: [Bool], weights: [Double]) -> (slope: Double, intercept: Double) {
        var a = 1.0, b = 0.0
        func loss(_ a: Double, _ b: Double) -> Double {
            var total = 0.0
            for (index, score) in scores.enumerated() {
                let z = a * score + b
                // log(1 + e^z) − y z, computed without overflow.
                let softplus = z > 0 ? z + log1p(exp(-z)) : log1p(exp(z))
                total += weights[index] * (softplus - (labels[index] ? z : 0))
            }
            return total
        }
        var current = loss(a, b)
        for _ in 0..<100 {
            var ga = 0.0, gb = 0.0, haa = 0.0, hab = 0.0, hbb = 0.0
            for (index, score) in scores.enumerated() {
                let p = 1 / (1 + exp(-(a * score + b)))
                let r = weights[index] * (p - (labels[index] ? 1 : 0))
                let s = weights[index] * max(p * (1 - p), 1e-12)
                ga += r * score; gb += r
                haa += s * score * score; hab += s * score; hbb += s
            }
            // A small ridge keeps the step defined when the scores separate the labels perfectly.
            haa += 1e-9; hbb += 1e-9
            let determinant = haa * hbb - hab * hab
            guard determinant > 0 else { break }
            var stepA = (hbb * ga - hab * gb) / determinant
            var stepB = (haa * gb - hab * ga) / determinant
            var improved = false
            for _ in 0..<30 {
                let candidate = loss(a - stepA, b - stepB)
                if candidate <= current {
                    a -= stepA; b -= stepB
                    improved = current - candidate > 1e-12 * max(1, abs(current))
                    current = candidate
                    break
                }
                stepA /= 2; stepB /= 2
            }
            if !improved { break }
        }
        return (a, b)
    }
}
