/// A weighted CART classification tree for one class against the rest, grown to a small depth so that
/// each branch reads as a rule: "snr_db above 12 and low_high_ratio_db above 4".
public struct DecisionTree: Sendable {
    public struct Split: Equatable, Sendable {
        public var feature: Int
        public var threshold: Float
    }

    public indirect enum Node: Sendable {
        /// `positive` and `total` are sample weights; `count` the number of samples.
        case leaf(positive: Double, total: Double, positives: Int, count: Int)
        case split(Split, below: Node, above: Node)
    }

    /// One path to a leaf: the tests on the way, as (feature, threshold, `true` for "above").
    public struct Branch: Sendable {
        public var tests: [(feature: Int, threshold: Float, above: Bool)]
        public var positive: Double, total: Double
        public var positives: Int, count: Int
    }

    public let root: Node

    /// Grows a tree.
    /// - Parameters:
    ///   - samples: feature rows; `labels[i]` says whether row `i` is the class; `weights[i]` its weight.
    ///   - features: the columns a split may use.
    ///   - maxDepth: tests on the longest path.
    ///   - minLeafWeight: the least total weight a leaf may hold.
    ///   - candidates: thresholds tried per feature (at quantiles of the node's values).
    public init(samples: [[Float]], labels: [Bool], weights: [Double], features: [Int], maxDepth: Int,
                minLeafWeight: Double, candidates: Int = 32) {
        precondition(samples.count == labels.count && labels.count == weights.count)
        root = Self.grow(Array(samples.indices), samples, labels, weights, features, maxDepth, minLeafWeight, candidates)
    }

    static func leaf(_ rows: [Int], _ labels: [Bool], _ weights: [Double]) -> Node {
        var positive = 0.0, total = 0.0, positives = 0
        for row in rows {
            total += weights[row]
            if labels[row] { positive += weights[row]; positives += 1 }
        }
        return .leaf(positive: positive, total: total, positives: positives, count: rows.count)
    }

    static func gini(_ positive: Double, _ total: Double) -> Double {
        guard total > 0 else { return 0 }
        let p = positive / total
        return total * 2 * p * (1 - p)
    }

    static func grow(_ rows: [Int], _ samples: [[Float]], _ labels: [Bool], _ weights: [Double], _ features: [Int],
                     _ depth: Int, _ minLeafWeight: Double, _ candidates: Int) -> Node {
        var positive = 0.0, total = 0.0
        for row in rows {
            total += weights[row]
            if labels[row] { positive += weights[row] }
        }
        guard depth > 0, positive > 0, positive < total, total >= 2 * minLeafWeight else { return leaf(rows, labels, weights) }
        let parentImpurity = gini(positive, total)
        var best: (gain: Double, split: Split)?
        for feature in features {
            let thresholds = Self.candidateThresholds(sortedValues: rows.map { samples[$0][feature] }.filter { !$0.isNaN }.sorted(), count: candidates)
            for threshold in thresholds {
                var belowPositive = 0.0, belowTotal = 0.0
                for row in rows where samples[row][feature] < threshold {
                    belowTotal += weights[row]
                    if labels[row] { belowPositive += weights[row] }
                }
                let abovePositive = positive - belowPositive, aboveTotal = total - belowTotal
                guard belowTotal >= minLeafWeight, aboveTotal >= minLeafWeight else { continue }
                let gain = parentImpurity - gini(belowPositive, belowTotal) - gini(abovePositive, aboveTotal)
                // Ties go to the earlier feature and the lower threshold, so growth is deterministic.
                if gain > (best?.gain ?? 1e-12) { best = (gain, Split(feature: feature, threshold: threshold)) }
            }
        }
        guard let split = best?.split else { return leaf(rows, labels, weights) }
        let below = rows.filter { samples[$0][split.feature] < split.threshold }
        let above = rows.filter { samples[$0][split.feature] >= split.threshold }
        return .split(split, below: grow(below, samples, labels, weights, features, depth - 1, minLeafWeight, candidates),
                      above: grow(above, samples, labels, weights, features, depth - 1, minLeafWeight, candidates))
    }

    /// Every path from the root to a leaf.
    public var branches: [Branch] {
        var result: [Branch] = []
        func walk(_ node: Node, _ tests: [(feature: Int, threshold: Float, above: Bool)]) {
            switch node {
            case .leaf(let positive, let total, let positives, let count):
                result.append(Branch(tests: tests, positive: positive, total: total, positives: positives, count: count))
            case .split(let split, let below, let above):
                walk(below, tests + [(split.feature, split.threshold, false)])
                walk(above, tests + [(split.feature, split.threshold, true)])
            }
        }
        walk(root, [])
        return result
    }

    /// Split candidates for a feature: at `count` quantiles of its sorted values, each moved to the middle of the
    /// gap below it (as CART does), ascending and without repeats.
    static func candidateThresholds(sortedValues values: [Float], count: Int) -> [Float] {
        guard !values.isEmpty else { return [] }
        var thresholds: [Float] = []
        for step in 1..<count {
            let value = values[values.count * step / count]
            var lower = 0, upper = values.count
            while lower < upper {
                let middle = (lower + upper) / 2
                if values[middle] < value { lower = middle + 1 } else { upper = middle }
            }
            guard lower > 0 else { continue }
            let threshold = (values[lower - 1] + value) / 2
            if thresholds.last.map({ $0 < threshold }) ?? true { thresholds.append(threshold) }
        }
        return thresholds
    }
}
