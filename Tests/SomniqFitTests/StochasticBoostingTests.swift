import Foundation
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

    /// One tree of one test grown on half the clips, and which of `rows()`'s 40 clips its round draws.
    func oneStumpOnHalfTheClips() -> (options: GradientBoosting.Options, drawn: [Bool]) {
        var options = GradientBoosting.Options()
        options.rounds = 1
        options.maxDepth = 1
        options.groupShare = 0.5
        return (options, (0..<40).map { GradientBoosting.drawn(options.seed, 0, $0, share: 0.5) })
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

    /// An excluded feature is never tested, whatever the round's draw of features; and a draw that leaves a round
    /// only excluded ones falls back to one that is not.
    @Test func anExcludedFeatureIsTestedByNoTree() {
        let (samples, labels, _) = rows()
        for share in [1.0, 0.5, 0.01] {
            var options = GradientBoosting.Options()
            options.rounds = 30
            options.featureShare = share
            options.excludedFeatures = [centroid]
            let model = GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 },
                                         features: [centroid, flatness], options: options)
            let used = model.trees.reduce(into: Set<Int>()) { $0.formUnion(features($1)) }
            // The flatness alone tells the classes apart less cleanly; every tree still finds it.
            #expect(used == [flatness], "share \(share): \(used)")
            #expect(model.trees.allSatisfy { !features($0).isEmpty }, "share \(share)")
        }
        var options = GradientBoosting.Options()
        options.excludedFeatures = [flatness]
        #expect(GradientBoosting.allowedColumns([centroid, flatness], round: 0, options: options) == [true, false])
        options.excludedFeatures = []
        #expect(GradientBoosting.allowedColumns([centroid, flatness], round: 0, options: options) == nil, "no mask: the shipped fit")
    }

    @Test func aTreeIsGrownOnItsRoundsClipsAlone() {
        // The clips drawn for the first round show the class as a high centroid; the others, weighing three times as
        // much, as a low one. One tree grown on the drawn clips alone follows them; grown on all, the others.
        let (samples, _, groups) = rows()
        var (options, drawn) = oneStumpOnHalfTheClips()
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

    @Test func drawingTheClassAloneGrowsEachTreeOnAllOfTheRest() {
        // The class sits at a middle centroid. The clips of the rest drawn for the first round are low; the others,
        // weighing three times as much, high. Drawing every clip, one split keeps the high ones with the class (the
        // tree never sees them); drawing the class's clips alone, the tree parts the class from the heavy high rest.
        let (samples, labels, groups) = rows()
        var (options, drawn) = oneStumpOnHalfTheClips()
        #expect(drawn.enumerated().contains { $0.offset % 2 == 1 && $0.element } && drawn.enumerated().contains { $0.offset % 2 == 1 && !$0.element })
        let placed = zip(samples, zip(labels, groups)).map { row, labelled in
            var row = row
            row[centroid] = labelled.0 ? 1_000 : drawn[labelled.1] ? 500 : 1_500
            row[centroid] += Float(labelled.1 % 7)
            return row
        }
        let weights = zip(labels, groups).map { label, clip in !label && !drawn[clip] ? 3.0 : 1.0 }
        let middle = placed[labels.firstIndex(of: true)!], high = placed.first { $0[centroid] > 1_400 }!
        let low = placed.first { $0[centroid] < 600 }!
        let every = GradientBoosting(samples: placed, labels: labels, weights: weights, features: [centroid], groups: groups, options: options)
        #expect(every.score(middle) > every.score(low), "the plain draw's stump parts the class from the drawn rest")
        #expect(every.score(high) == every.score(middle))
        options.drawsClassOnly = true
        let classOnly = GradientBoosting(samples: placed, labels: labels, weights: weights, features: [centroid], groups: groups, options: options)
        #expect(classOnly.score(high) < classOnly.score(middle))
    }

    @Test func drawingTheClassAloneKeepsItsWeight() {
        // Nothing tells the class apart, so every tree is one leaf: the fit stays at the class's share (one half) only
        // when the drawn clips of the class weigh for those left out.
        var options = GradientBoosting.Options()
        options.rounds = 50
        options.groupShare = 0.5
        options.drawsClassOnly = true
        let clips = 0..<800
        let samples = clips.map { _ in FeatureVector().values }, labels = clips.map { $0 % 2 == 0 }
        let model = GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 }, features: [centroid],
                                     groups: Array(clips), options: options)
        let probability = 1 / (1 + exp(-model.score(samples[0])))
        #expect(abs(probability - 0.5) < 0.03, "\(probability)")
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
