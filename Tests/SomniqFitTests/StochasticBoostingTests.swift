import SomniqFeatures
@testable import SomniqFit
import Testing

/// `fit --clip-share` and `--feature-share`: each tree grown on a draw of the clips and may test a draw of the features.
@Suite struct StochasticBoostingTests {
    let centroid = FeatureID.spectralCentroidHz.index, flatness = FeatureID.spectralFlatness.index

    /// 40 clips of 10 rows: the class shows in the centroid and, less cleanly, in the flatness.
    func rows() -> (rows: [[Float]], labels: [Bool], groups: [Int]) {
        var rows: [[Float]] = [], labels: [Bool] = [], groups: [Int] = []
        for clip in 0..<40 {
            for index in 0..<10 {
                let positive = clip % 2 == 0
                var vector = FeatureVector()
                vector[.spectralCentroidHz] = (positive ? 1_500 : 500) + Float((clip * 10 + index) % 37)
                vector[.spectralFlatness] = (positive ? 0.4 : 0.2) + Float(index % 5) * 0.06
                rows.append(vector.values)
                labels.append(positive)
                groups.append(clip)
            }
        }
        return (rows, labels, groups)
    }

    func features(_ tree: GradientBoosting.Tree) -> Set<Int> {
        guard case .split(let feature, _, _, let below, let above) = tree else { return [] }
        return Set([feature]).union(features(below)).union(features(above))
    }

    @Test func theDrawsTakeTheirShare() {
        for share in [0.1, 0.5, 0.8] {
            let drawn = (0..<10_000).filter { GradientBoosting.drawn(7, 3, $0, share: share) }.count
            #expect(abs(Double(drawn) / 10_000 - share) < 0.02, "share \(share): \(drawn) of 10,000")
        }
        #expect((0..<1_000).map { GradientBoosting.drawn(7, 3, $0, share: 0.5) } != (0..<1_000).map { GradientBoosting.drawn(7, 4, $0, share: 0.5) },
                "each round draws anew")
    }

    @Test func eachTreeTestsOnlyTheFeaturesDrawnForItsRound() {
        let (samples, labels, _) = rows()
        var options = GradientBoosting.Options()
        options.rounds = 40
        options.featureShare = 0.5
        let columns = [centroid, flatness]
        let model = GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 }, features: columns, options: options)
        var used = Set<Int>()
        for (round, tree) in model.trees.enumerated() {
            var allowed = columns.indices.map { GradientBoosting.drawn(options.seed ^ 0x5EED_F00D, round, $0, share: 0.5) }
            if !allowed.contains(true) { allowed[round % allowed.count] = true }
            let permitted = Set(columns.indices.filter { allowed[$0] }.map { columns[$0] })
            #expect(features(tree).isSubset(of: permitted), "round \(round)")
            used.formUnion(features(tree))
        }
        // Without the draw every tree would split on the centroid, which alone separates the classes.
        #expect(used == Set(columns))
        for (row, label) in zip(samples, labels) { #expect((model.score(row) > 0) == label) }
    }

    @Test func aTreeIsGrownOnItsRoundsClipsAlone() {
        // The clips drawn for the first round show the class as a high centroid; the others, weighing three times as
        // much, as a low one. One tree grown on the drawn clips alone follows them; grown on all, the others.
        let (samples, _, groups) = rows()
        var options = GradientBoosting.Options()
        options.rounds = 1
        options.maxDepth = 1
        options.groupShare = 0.5
        let drawn = (0..<40).map { GradientBoosting.drawn(options.seed, 0, $0, share: 0.5) }
        #expect(drawn.contains(true) && drawn.contains(false))
        let labels = zip(samples, groups).map { row, clip in (row[centroid] > 1_000) == drawn[clip] }
        let weights = groups.map { drawn[$0] ? 1.0 : 3.0 }
        let high = samples.first { $0[centroid] > 1_000 }!, low = samples.first { $0[centroid] < 1_000 }!
        let sampled = GradientBoosting(samples: samples, labels: labels, weights: weights, features: [centroid], groups: groups,
                                       options: options)
        #expect(sampled.score(high) > sampled.score(low))
        options.groupShare = 1
        let whole = GradientBoosting(samples: samples, labels: labels, weights: weights, features: [centroid], groups: groups,
                                     options: options)
        #expect(whole.score(high) < whole.score(low))
    }

    @Test func aStochasticFitIsDeterministic() {
        let (samples, labels, groups) = rows()
        func fit(clips: Double, features: Double) -> [GradientBoosting.Tree] {
            var options = GradientBoosting.Options()
            options.rounds = 20
            options.groupShare = clips
            options.featureShare = features
            return GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 }, features: [centroid, flatness],
                                    groups: groups, options: options).trees
        }
        #expect(fit(clips: 0.6, features: 0.5) == fit(clips: 0.6, features: 0.5))
        #expect(fit(clips: 0.6, features: 0.5) != fit(clips: 1, features: 1))
    }
}
