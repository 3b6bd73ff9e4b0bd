import Foundation
import SomniqFeatures
import SomniqFit
import SomniqModel
import Testing

/// A feature row with `snr_db` and `spectral_centroid_hz` set, the rest 0.
func row(snr: Float, centroid: Float) -> [Float] {
    var vector = FeatureVector()
    vector[.snrDb] = snr
    vector[.spectralCentroidHz] = centroid
    return vector.values
}

/// Clips whose class is decided by one feature: "cough" when the centroid is above 1000 Hz.
func thresholdDataset(clips: Int = 60) -> FitDataset {
    return FitDataset(clips: (0..<clips).map { index in
        let isCough = index % 2 == 0
        // Deterministic spread: positives 1100–2000 Hz, negatives 200–900 Hz, snr uninformative.
        let centroid = isCough ? 1100 + Float(index * 15 % 900) : 200 + Float(index * 11 % 700)
        let windows = (0..<4).map { window in row(snr: Float((index + window) % 20), centroid: centroid + Float(window)) }
        return FitDataset.Clip(path: "clip\(index).wav", label: isCough ? "cough" : "other", classID: isCough ? "cough" : nil,
                               group: "g\(index)", windows: windows, windowClasses: windows.map { _ in isCough ? "cough" : nil },
                               used: windows.map { _ in true })
    })
}

let baseModel = ClassifierModel(name: "base", version: "1", classes: [
    SoundClassDefinition(id: "silence", tier: .none, all: [Condition(feature: .snrDb, test: .below(3), softness: 1)]),
    SoundClassDefinition(id: "other", tier: .none, status: .unsupported),
    SoundClassDefinition(id: "cough", tier: .high, status: .unsupported, adjust: ClassAdjustment(debounceScale: 0)),
    SoundClassDefinition(id: "sneeze", tier: .low, status: .unsupported),
])

@Suite struct ModelFitterTests {
    @Test func findsTheSeparatingThreshold() throws {
        var options = ModelFitter.Options()
        options.method = .tree
        options.maxDepth = 1
        let (model, reports) = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel)
        let cough = try #require(model.classes.first { $0.id == "cough" })
        #expect(cough.status == .supported)
        #expect(cough.paths.count == 1)
        let condition = try #require(cough.paths.first?.all.first)
        #expect(condition.feature == .spectralCentroidHz)
        guard case .above(let threshold) = condition.test else {
            Issue.record("expected an 'above' test, got \(condition.test)")
            return
        }
        #expect(threshold > 900 && threshold <= 1100, "the best threshold lies in the gap between the classes: \(threshold)")
        #expect(cough.paths[0].weight == 1)
        #expect(cough.adjust == ClassAdjustment(debounceScale: 0), "the base class's adjustment is kept")
        #expect(reports.first { $0.classID == "sneeze" }?.note == "no examples; kept as written")
        #expect(reports.first { $0.classID == "silence" }?.fitted == false)

        // The fitted rule classifies new windows on either side of the gap.
        let classifier = Classifier(model: model)
        let coughIndex = model.classIDs.firstIndex(of: "cough")!
        #expect(classifier.classify(FeatureVector(values: row(snr: 10, centroid: 1500)))[coughIndex] > 0.9)
        #expect(classifier.classify(FeatureVector(values: row(snr: 10, centroid: 500)))[coughIndex] < 0.1)
    }

    @Test func learnsOtherFromClipsOfNoClass() throws {
        var options = ModelFitter.Options()
        options.method = .tree
        options.maxDepth = 1
        let (model, _) = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel)
        let other = try #require(model.classes.first { $0.id == "other" })
        #expect(other.status == .supported)
        guard case .below = other.paths.first?.all.first?.test else {
            Issue.record("other should be the low-centroid side")
            return
        }
    }

    @Test func crossValidationKeepsGroupsTogetherAndPredictsHeldOutClips() {
        var dataset = thresholdDataset()
        for index in dataset.clips.indices { dataset.clips[index].group = "g\(index / 6)" }
        let folds = dataset.folds(5)
        for index in dataset.clips.indices where index % 6 != 0 { #expect(folds[index] == folds[index - index % 6]) }
        #expect(Set(folds).count == 5)
        for method in ModelFitter.Method.allCases {
            var options = ModelFitter.Options()
            options.method = method
            options.maxDepth = 1
            options.rounds = 20
            let predictions = CrossValidation.run(dataset, folds: 5, fitter: ModelFitter(options: options), base: baseModel)
            #expect(predictions.count == dataset.clips.count)
            let correct = dataset.clips.indices.filter { index in
                let label = predictions[index]!.label
                return dataset.clips[index].classID == "cough" ? label == "cough" : label != "cough"
            }.count
            #expect(correct == dataset.clips.count, "\(method)")
        }
    }

    @Test func holdingOutASourceLeavesItsClipsAndCopiesOverItsBackgroundsOut() {
        var dataset = thresholdDataset(clips: 12)
        for index in dataset.clips.indices { dataset.clips[index].source = index < 4 ? "corpus-a" : "corpus-b" }
        // A copy of a corpus-b clip mixed over a corpus-a background, and a corpus-a clip's own copy: neither may train
        // a model scored on corpus-a; a corpus-b copy over a corpus-b background may.
        for (original, background) in [(5, "corpus-a"), (1, "corpus-b"), (6, "corpus-b")] {
            var copy = dataset.clips[original]
            copy.augmented = true
            copy.backgroundSource = background
            dataset.clips.append(copy)
        }
        let split = CrossValidation.holdout(dataset, sources: ["corpus-a"])
        #expect(split.scored == [0, 1, 2, 3])
        #expect(split.training == Array(4..<12) + [14])
        #expect(CrossValidation.holdout(dataset, sources: ["corpus-c"]).scored.isEmpty)
        // Two sources out at once: their clips scored, and nothing of either trains (not even a copy of a third
        // source's clip over one of their backgrounds).
        for index in 8..<12 { dataset.clips[index].source = "corpus-c" }
        let both = CrossValidation.holdout(dataset, sources: ["corpus-a", "corpus-c"])
        #expect(both.scored == [0, 1, 2, 3, 8, 9, 10, 11])
        #expect(both.training == Array(4..<8) + [14])
    }

    /// `fit --leave-out-feature cough:spectral_centroid_hz`: the one feature that tells cough apart is kept from
    /// cough's trees alone; `other`, fitted on the same rows, still tests it; by either method.
    @Test func aFeatureLeftOutOfOneClassIsStillTestedByTheOthers() throws {
        func tested(_ definition: SoundClassDefinition) -> Set<FeatureID> {
            func walk(_ node: ScoreTree) -> Set<FeatureID> {
                guard case .test(let feature, _, _, let below, let above) = node else { return [] }
                return Set([feature]).union(walk(below)).union(walk(above))
            }
            return (definition.score?.trees ?? []).reduce(into: Set(definition.paths.flatMap { $0.all.map(\.feature) })) {
                $0.formUnion(walk($1))
            }
        }
        for method in ModelFitter.Method.allCases {
            var options = ModelFitter.Options()
            options.method = method
            options.rounds = 10
            options.featureShare = method == .boosted ? 0.5 : 1
            let free = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel).0
            #expect(try tested(#require(free.classes.first { $0.id == "cough" })).contains(.spectralCentroidHz), "\(method)")
            options.featuresLeftOut = ["cough": [.spectralCentroidHz]]
            #expect(options.features(for: "cough") == options.features.filter { $0 != .spectralCentroidHz })
            #expect(options.features(for: "other") == options.features)
            let (model, reports) = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel)
            let cough = try #require(model.classes.first { $0.id == "cough" })
            let other = try #require(model.classes.first { $0.id == "other" })
            #expect(!tested(cough).contains(.spectralCentroidHz), "\(method): \(tested(cough))")
            #expect(tested(other).contains(.spectralCentroidHz), "\(method): \(tested(other))")
            #expect(reports.first { $0.classID == "cough" }?.fitted == true)
            // Without the centroid nothing tells a cough apart: its confidence no longer follows the centroid.
            let classifier = Classifier(model: model), coughIndex = model.classIDs.firstIndex(of: "cough")!
            let high = classifier.classify(FeatureVector(values: row(snr: 10, centroid: 1500)))[coughIndex]
            let low = classifier.classify(FeatureVector(values: row(snr: 10, centroid: 500)))[coughIndex]
            #expect(abs(high - low) < 0.2, "\(method): \(high) against \(low)")
        }
    }

    @Test func fittingTheSameDataTwiceGivesTheSameModel() {
        for method in ModelFitter.Method.allCases {
            var options = ModelFitter.Options()
            options.method = method
            options.rounds = 10
            let first = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel).0
            let second = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel).0
            #expect(first == second, "\(method)")
        }
    }

    @Test func boostingFindsTheSeparatingThresholdAndCalibratesIt() throws {
        var options = ModelFitter.Options()
        options.maxDepth = 1
        options.rounds = 20
        let (model, reports) = ModelFitter(options: options).fit(thresholdDataset(), base: baseModel)
        let cough = try #require(model.classes.first { $0.id == "cough" })
        let score = try #require(cough.score)
        #expect(cough.status == .supported && cough.paths.isEmpty && cough.all.isEmpty)
        #expect(score.trees.count == 20)
        #expect(reports.first { $0.classID == "cough" }?.paths == 20)
        for tree in score.trees {
            guard case .test(let feature, let threshold, _, .points(let below), .points(let above)) = tree else {
                Issue.record("expected one test per tree, got \(tree)")
                continue
            }
            #expect(feature == .spectralCentroidHz)
            #expect(threshold > 900 && threshold <= 1100, "the threshold lies in the gap between the classes: \(threshold)")
            #expect(below < 0 && above > 0, "points for the class above the threshold, against it below")
        }
        // The two sides are cleanly apart in held-out data, so the calibration keeps them far apart.
        let classifier = Classifier(model: model)
        let coughIndex = model.classIDs.firstIndex(of: "cough")!
        #expect(classifier.classify(FeatureVector(values: row(snr: 10, centroid: 1500)))[coughIndex] > 0.95)
        #expect(classifier.classify(FeatureVector(values: row(snr: 10, centroid: 500)))[coughIndex] < 0.05)
    }

    /// The base class's hand-written conditions give way to the fitted score (its `none` too), but what the sound
    /// never is (`never`) stays beside it: the fitted class is vetoed where the base said so.
    @Test func fittingKeepsWhatASoundNeverIs() throws {
        var base = baseModel
        let index = try #require(base.classes.firstIndex { $0.id == "cough" })
        base.classes[index].never = [Condition(feature: .toneSteadiness, test: .above(0.5), softness: 0.05)]
        base.classes[index].none = [Condition(feature: .crestDb, test: .above(20), softness: 1)]
        var options = ModelFitter.Options()
        options.maxDepth = 1
        options.rounds = 20
        let (model, _) = ModelFitter(options: options).fit(thresholdDataset(), base: base)
        let cough = try #require(model.classes.first { $0.id == "cough" })
        #expect(cough.score != nil && cough.none.isEmpty)
        #expect(cough.never == base.classes[index].never)
        var held = FeatureVector(values: row(snr: 10, centroid: 1500))
        let coughIndex = model.classIDs.firstIndex(of: "cough")!
        #expect(Classifier(model: model).classify(held)[coughIndex] > 0.9)
        held[.toneSteadiness] = 0.9
        #expect(Classifier(model: model).classify(held)[coughIndex] < 0.01)
    }

    @Test func deeperBoostedTreesLearnAnInteraction() {
        // The class is "a and b on the same side of 3": one test per tree cannot express it, two can. (Exactly
        // symmetric XOR would give a greedy first split no gain at all; real interactions are rarely that balanced.)
        var samples: [[Float]] = [], labels: [Bool] = []
        for index in 0..<400 {
            let a = Float(index % 20) - 9.5, b = Float(index / 20) - 9.5
            samples.append([a, b])
            labels.append((a > 3) == (b > 3))
        }
        func accuracy(depth: Int) -> Double {
            var options = GradientBoosting.Options()
            options.maxDepth = depth
            options.rounds = 30
            let model = GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 }, features: [0, 1],
                                         options: options)
            return Double(zip(samples, labels).filter { (model.score($0) > 0) == $1 }.count) / Double(samples.count)
        }
        #expect(accuracy(depth: 2) == 1)
        #expect(accuracy(depth: 1) < 0.95, "a sum of single tests gets at best 364 of 400 right")
    }

    @Test func plattScalingRecoversAKnownLogisticMap() {
        // At each score, the share of positives follows σ(2 s − 1).
        var scores: [Double] = [], labels: [Bool] = []
        for step in 0...40 {
            let score = Double(step) / 5 - 4
            let share: Double = 1 / (1 + exp(1 - 2 * score))
            let positives = Int((100 * share).rounded())
            for index in 0..<100 {
                scores.append(score)
                labels.append(index < positives)
            }
        }
        let fit = PlattScaling.fit(scores: scores, labels: labels, weights: scores.map { _ in 1 })
        #expect(abs(fit.slope - 2) < 0.05, "slope \(fit.slope)")
        #expect(abs(fit.intercept + 1) < 0.05, "intercept \(fit.intercept)")
    }

    @Test func groupsClipsBySourceRecording() {
        #expect(FitDataset.group(of: "/d/crying/gveres_donateacry-corpus__belly_pain_643D64AD-B711-469A-AF69-55C0D5D3E30F-1430138506-1.0-m-72-bp.wav")
            == "643d64ad-b711-469a-af69-55c0d5d3e30f")
        #expect(FitDataset.group(of: "alarm/Sharwin24_Machine-Learning-and-Sensing__A1_21524_alarm_file5.wav") == "21524")
        #expect(FitDataset.group(of: "speech/Jakobovski_free-spoken-digit-dataset__0_nicolas_11.wav") == "nicolas")
        #expect(FitDataset.group(of: "snoring/adrianagaler_Snoring-Detection__1_104.wav") == "adrianagaler_Snoring-Detection__1_104")
    }
}

/// The features the trees may test: the shipped recipe leaves the spectrum's shape band by band out (so that it
/// refits byte for byte, as it was fitted before those features existed); `fit --shape-features` adds all 78 back,
/// in the order a feature row holds them, and nothing else.
@Suite struct FittedFeatureTests {
    @Test func theBandShapesAreLeftOutUnlessAskedFor() {
        let chosen = ModelFitter.Options().features
        #expect(FeatureID.bandShapes.count == 78)
        #expect(chosen.allSatisfy { !FeatureID.bandShapes.contains($0) })
        #expect(chosen.contains(.mfcc3) && chosen.contains(.contextCrestMean) && !chosen.contains(.rmsDbfs))
        let widened = ModelFitter.Options.withBandShapes(chosen)
        #expect(widened.count == chosen.count + 78)
        #expect(Set(widened).subtracting(chosen) == FeatureID.bandShapes)
        #expect(widened.map(\.index) == widened.map(\.index).sorted())
        #expect(ModelFitter.Options.withBandShapes(widened) == widened)
    }
}
