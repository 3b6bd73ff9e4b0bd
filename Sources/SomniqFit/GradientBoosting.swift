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
        /// Stochastic boosting (Friedman 2002), off at 1: the share of the row groups (a fit's clips) each tree is grown
        /// on, and the share of the features each tree may test. The rows left out of a round still take its tree's
        /// points; the draws are a hash of `seed`, the round and the group or feature, so a fit is deterministic.
        public var groupShare = 1.0
        public var featureShare = 1.0
        /// Draw only the class's own rows (`groupShare` of its groups a tree, each drawn row weighing 1/`groupShare`, so
        /// the class keeps its weight beside the rest), and grow every tree on every row of the rest: each tree hears
        /// a draw of what the class is, and all of what it is not.
        public var drawsClassOnly = false
        /// Feature indices this fit's trees may not test, beside those its table leaves out (one table serves every
        /// class of a fit; a class may be kept from features the others test).
        public var excludedFeatures: Set<Int> = []
        public var seed: UInt64 = 20261129

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
    /// `groups`, when given, is each row's group (the clip it comes from), which `Options.groupShare` draws whole.
    public init(samples: [[Float]], labels: [Bool], weights: [Double], features: [Int], groups: [Int]? = nil,
                options: Options = Options()) {
        self.init(table: BinnedTable(samples: samples, features: features, bins: options.bins), labels: labels,
                  weights: weights, groups: groups, options: options)
    }

    /// Fits to the rows of `table` (binned beforehand, as one table may serve several fits).
    init(table: BinnedTable, labels: [Bool], weights rawWeights: [Double], groups: [Int]? = nil, options: Options) {
        precondition(table.rowCount == labels.count && labels.count == rawWeights.count && table.bins == options.bins)
        precondition(groups.map { $0.count == labels.count } ?? true)
        let rawTotal = rawWeights.reduce(0, +)
        let weights = rawTotal > 0 ? rawWeights.map { $0 * Double(rawWeights.count) / rawTotal } : rawWeights
        let positive = zip(labels, weights).reduce(0.0) { $0 + ($1.0 ? $1.1 : 0) }
        let total = weights.reduce(0, +)
        // The prior log-odds, kept finite when one side is empty.
        base = log(max(positive, 1e-9 * total) / max(total - positive, 1e-9 * total))
        var scores = [Double](repeating: base, count: labels.count)
        var moments = [TreeGrower.Moments](repeating: .zero, count: labels.count)
        var grown: [Tree] = []
        let samplesGroups = options.groupShare < 1
        let groupOf = samplesGroups ? (groups ?? Array(labels.indices)) : []
        for round in 0..<options.rounds {
            var roundTotal = 0.0
            for row in labels.indices {
                // A row of a group left out of this round weighs nothing in its tree's growth.
                var weight = weights[row]
                if samplesGroups && (labels[row] || !options.drawsClassOnly) {
                    let drawn = Self.drawn(options.seed, round, groupOf[row], share: options.groupShare)
                    weight = !drawn ? 0 : options.drawsClassOnly ? weight / options.groupShare : weight
                }
                let p = 1 / (1 + exp(-scores[row]))
                moments[row] = TreeGrower.Moments(weight * (p - (labels[row] ? 1 : 0)), weight * max(p * (1 - p), 1e-6), weight, 0)
                roundTotal += weight
            }
            let allowed = Self.allowedColumns(table.features, round: round, options: options)
            let minLeafWeight = options.minLeafShare * (samplesGroups ? roundTotal : total)
            var grower = TreeGrower(table: table, moments: moments, l2: options.l2, minLeafWeight: minLeafWeight,
                                    shrinkage: options.learningRate, allowed: allowed)
            // Each training row's leaf is known from the growth: its points are added there, as `Tree.value` would.
            grown.append(grower.grow(rows: Array(labels.indices), depth: options.maxDepth, scores: &scores))
        }
        trees = grown
    }

    /// The columns a round's tree may test (nil: every one): a draw of `featureShare` of them, less the excluded
    /// features; at least one, taken in turn from those not excluded when the draw left none.
    static func allowedColumns(_ features: [Int], round: Int, options: Options) -> [Bool]? {
        guard options.featureShare < 1 || !options.excludedFeatures.isEmpty else { return nil }
        let permitted = features.map { !options.excludedFeatures.contains($0) }
        let open = permitted.indices.filter { permitted[$0] }
        precondition(!open.isEmpty, "every feature of the table is excluded")
        var mask = permitted
        if options.featureShare < 1 {
            for column in mask.indices where mask[column] {
                mask[column] = Self.drawn(options.seed ^ 0x5EED_F00D, round, column, share: options.featureShare)
            }
            if !mask.contains(true) { mask[open[round % open.count]] = true }
        }
        return mask
    }

    /// Whether item `item` of round `round` is in that round's draw of share `share`: a SplitMix64 hash of the three,
    /// as a fraction of 2^64.
    static func drawn(_ seed: UInt64, _ round: Int, _ item: Int, share: Double) -> Bool {
        var z = seed &+ UInt64(truncatingIfNeeded: round) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(truncatingIfNeeded: item) &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53) < share
    }
}

/// Feature values replaced by the index of their bin: `bin(row) ≤ k` exactly when `value < thresholds[k]`; a
/// missing value (NaN) has the bin after the last (`missingBin(column)`). Stored row by row, so that one pass over a
/// node's rows fills the histograms of every feature.
struct BinnedTable {
    let features: [Int]
    /// Per feature (in `features` order): ascending thresholds.
    let thresholds: [[Float]]
    /// `codes[row * features.count + column]`: the bin of a row's value of `features[column]`.
    let codes: [UInt8]
    /// Where each column's histogram slots begin in a histogram of all columns (`slotCount` slots): one per bin and
    /// one for missing values.
    let slotOffsets: [Int]
    let slotCount: Int
    let rowCount: Int
    /// The candidate thresholds asked for per feature.
    let bins: Int

    /// The table of `samples`, or of the samples at `rows` (in that order) when given.
    init(samples: [[Float]], rows: [Int]? = nil, features: [Int], bins count: Int) {
        precondition(count < 255)
        self.features = features
        bins = count
        let rows = rows ?? Array(samples.indices)
        rowCount = rows.count
        var thresholds: [[Float]] = []
        var codes = [UInt8](repeating: 0, count: rows.count * features.count)
        var slotOffsets: [Int] = [], slots = 0
        for (column, feature) in features.enumerated() {
            let cuts = DecisionTree.candidateThresholds(sortedValues: rows.map { samples[$0][feature] }.filter { !$0.isNaN }.sorted(),
                                                        count: count)
            thresholds.append(cuts)
            slotOffsets.append(slots)
            slots += cuts.count + 2
            for (row, sample) in rows.enumerated() {
                let value = samples[sample][feature]
                var lower = 0
                if value.isNaN {
                    lower = cuts.count + 1
                } else {
                    var upper = cuts.count
                    while lower < upper {
                        let middle = (lower + upper) / 2
                        if cuts[middle] <= value { lower = middle + 1 } else { upper = middle }
                    }
                }
                codes[row * features.count + column] = UInt8(lower)
            }
        }
        self.thresholds = thresholds
        self.codes = codes
        self.slotOffsets = slotOffsets
        slotCount = slots
    }

    func missingBin(_ column: Int) -> Int { thresholds[column].count + 1 }
}

/// Grows one Newton tree on gradients and Hessians.
struct TreeGrower {
    /// A row's gradient, Hessian and weight (and a spare lane): summed lane by lane, in row order, so every sum is
    /// the one a scalar loop would make.
    typealias Moments = SIMD4<Double>

    let table: BinnedTable
    let moments: [Moments]
    let l2: Double, minLeafWeight: Double, shrinkage: Double
    /// The columns the tree may split on (`nil`: all).
    let allowed: [Bool]?
    /// A histogram of every column, reused from node to node.
    private var histogram: [Moments]

    init(table: BinnedTable, moments: [Moments], l2: Double, minLeafWeight: Double, shrinkage: Double, allowed: [Bool]? = nil) {
        self.table = table
        self.moments = moments
        self.l2 = l2
        self.minLeafWeight = minLeafWeight
        self.shrinkage = shrinkage
        self.allowed = allowed
        histogram = [Moments](repeating: .zero, count: table.slotCount)
    }

    func sum(_ rows: [Int]) -> Moments {
        var total = Moments.zero
        for row in rows { total += moments[row] }
        return total
    }

    func leaf(_ rows: [Int], scores: inout [Double]) -> GradientBoosting.Tree {
        let total = sum(rows)
        let value = -total[0] / (total[1] + l2) * shrinkage
        for row in rows { scores[row] += value }
        return .leaf(value)
    }

    /// Fills `histogram` with the moments of `rows`, per column and bin.
    private mutating func fillHistogram(_ rows: [Int]) {
        let columns = table.features.count
        table.codes.withUnsafeBufferPointer { codes in
            table.slotOffsets.withUnsafeBufferPointer { offsets in
                moments.withUnsafeBufferPointer { moments in
                    histogram.withUnsafeMutableBufferPointer { histogram in
                        for slot in histogram.indices { histogram[slot] = .zero }
                        for row in rows {
                            let value = moments[row]
                            let rowCodes = codes.baseAddress! + row * columns
                            for column in 0..<columns { histogram[offsets[column] + Int(rowCodes[column])] += value }
                        }
                    }
                }
            }
        }
    }

    mutating func grow(rows: [Int], depth: Int, scores: inout [Double]) -> GradientBoosting.Tree {
        guard depth > 0, rows.count >= 2 else { return leaf(rows, scores: &scores) }
        let total = sum(rows)
        let g = total[0], h = total[1], w = total[2]
        guard w >= 2 * minLeafWeight else { return leaf(rows, scores: &scores) }
        let parent = g * g / (h + l2)
        fillHistogram(rows)
        var best: (gain: Double, column: Int, bin: Int, missingBelow: Bool)?
        for column in table.features.indices where allowed?[column] ?? true {
            let cuts = table.thresholds[column].count
            guard cuts > 0 else { continue }
            let offset = table.slotOffsets[column]
            let missing = histogram[offset + cuts + 1]
            let missingG = missing[0], missingH = missing[1], missingW = missing[2]
            // Missing values go to whichever side gains more; with none here, to the heavier side.
            var leftG = 0.0, leftH = 0.0, leftW = 0.0
            for cut in 0..<cuts {
                let slot = histogram[offset + cut]
                leftG += slot[0]; leftH += slot[1]; leftW += slot[2]
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
        guard let best else { return leaf(rows, scores: &scores) }
        let columns = table.features.count, missingBin = table.missingBin(best.column)
        var below: [Int] = [], above: [Int] = []
        table.codes.withUnsafeBufferPointer { codes in
            for row in rows {
                let bin = Int(codes[row * columns + best.column])
                if bin == missingBin ? best.missingBelow : bin <= best.bin { below.append(row) } else { above.append(row) }
            }
        }
        return .split(feature: table.features[best.column], threshold: table.thresholds[best.column][best.bin],
                      missingBelow: best.missingBelow,
                      below: grow(rows: below, depth: depth - 1, scores: &scores),
                      above: grow(rows: above, depth: depth - 1, scores: &scores))
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
