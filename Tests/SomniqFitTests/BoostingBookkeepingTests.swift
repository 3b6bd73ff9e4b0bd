import Foundation
@testable import SomniqFit
import SomniqSynth
import Testing

/// The boosting keeps each training row's score from the leaf the row reached while the tree grew, and a fit may
/// share one binned table among classes: both must be what evaluating the trees and binning afresh would give.
@Suite struct BoostingBookkeepingTests {
    /// Rows with ties, missing values and values exactly on the thresholds the binning will choose.
    func samples() -> (rows: [[Float]], labels: [Bool]) {
        var generator = SeededGenerator(seed: 7)
        var rows: [[Float]] = [], labels: [Bool] = []
        for index in 0..<600 {
            let a = Float(Int(generator.next() % 40)) / 4, b = Float(generator.next() % 1000) / 100
            let c: Float = index % 7 == 0 ? .nan : Float(index % 5)
            rows.append([a, b, c])
            labels.append(a + (c.isNaN ? 3 : c) > 6 + Float(generator.next() % 3))
        }
        return (rows, labels)
    }

    @Test func theScoresKeptWhileGrowingAreTheTreesOwn() {
        let (rows, labels) = samples()
        let table = BinnedTable(samples: rows, features: [0, 1, 2], bins: 32)
        var scores = [Double](repeating: 0.25, count: rows.count)
        let moments = labels.map { TreeGrower.Moments($0 ? -0.5 : 0.5, 0.25, 1, 0) }
        var grower = TreeGrower(table: table, moments: moments, l2: 1, minLeafWeight: 5, shrinkage: 0.1)
        let tree = grower.grow(rows: Array(rows.indices), depth: 3, scores: &scores)
        guard case .split = tree else {
            Issue.record("the tree did not split")
            return
        }
        for (row, score) in zip(rows, scores) { #expect(score == 0.25 + tree.value(row), "row \(row)") }
        // Rows on a threshold go above, as `Tree.value` sends them.
        guard case .split(let feature, let threshold, _, _, _) = tree else { return }
        var onThreshold = rows[0]
        onThreshold[feature] = threshold
        let extended = rows + [onThreshold]
        var extendedScores = [Double](repeating: 0, count: extended.count)
        var again = TreeGrower(table: BinnedTable(samples: extended, features: [0, 1, 2], bins: 32),
                               moments: moments + [.init(0.5, 0.25, 1, 0)], l2: 1, minLeafWeight: 5, shrinkage: 0.1)
        let regrown = again.grow(rows: Array(extended.indices), depth: 3, scores: &extendedScores)
        for (row, score) in zip(extended, extendedScores) { #expect(score == regrown.value(row), "row \(row)") }
    }

    @Test func aTableOfSomeRowsIsTheTableOfThoseRowsAlone() {
        let (rows, labels) = samples()
        let subset = rows.indices.filter { $0 % 3 != 1 }
        let shared = BinnedTable(samples: rows, rows: subset, features: [0, 1, 2], bins: 32)
        let alone = BinnedTable(samples: subset.map { rows[$0] }, features: [0, 1, 2], bins: 32)
        #expect(shared.thresholds == alone.thresholds)
        #expect(shared.codes == alone.codes)
        #expect(shared.rowCount == subset.count)
        var options = GradientBoosting.Options()
        options.rounds = 20
        let fromShared = GradientBoosting(table: shared, labels: subset.map { labels[$0] }, weights: subset.map { _ in 1 },
                                          options: options)
        let fromSamples = GradientBoosting(samples: subset.map { rows[$0] }, labels: subset.map { labels[$0] },
                                           weights: subset.map { _ in 1 }, features: [0, 1, 2], options: options)
        #expect(fromShared.trees == fromSamples.trees)
        #expect(fromShared.base == fromSamples.base)
    }
}
