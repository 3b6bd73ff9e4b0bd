import Dispatch
import Foundation
import SomniqFiles
import SomniqFeatures
import SomniqModel

/// Fits a class's rules to labelled windows, one class against the rest, by one of two methods:
/// - `tree`: one shallow decision tree, written as weighted rule paths (see `RulePath`);
/// - `boosted`: gradient-boosted small trees, written as a calibrated points score (see `PointsScore`); the
///   calibration is fitted to scores of models that did not see the windows they score (grouped folds of the
///   training clips), so that confidences match how often the class was really there.
///
/// Everything else of the base model (tiers, adjustments, the classes without enough examples) is kept.
public struct ModelFitter: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case tree, boosted
    }

    public struct Options: Sendable {
        public var method = Method.boosted
        /// Deepest tree (tests on one path), for either method.
        public var maxDepth = 3
        /// Boosting rounds (trees per class) and step size.
        public var rounds = 300
        public var learningRate = 0.1
        /// Stochastic boosting, off at 1 (`GradientBoosting.Options`): the share of the training clips each tree is
        /// grown on, and the share of the features it may test.
        public var clipShare = 1.0
        public var featureShare = 1.0
        /// `clipShare` draws only the class's own clips; every tree is grown on all of the rest.
        public var drawsClassOnly = false
        /// Grouped folds of the training clips whose held-out scores fit a boosted class's calibration.
        public var calibrationFolds = 3
        /// Least share of the (balanced) training weight a leaf may hold.
        public var minLeafShare = 0.02
        /// Least weighted share of the class in a leaf for it to become a rule path.
        public var minPathWeight = 0.5
        /// Least number of clips (or labelled events) of a class to fit it.
        public var minExamples = 5
        /// How far one corpus is kept from deciding what a class is not: each clip of the rest (every window that is
        /// not the class) weighs n^−sourceBalance, n being the rest's clips from its source (the manifest's `source`;
        /// one corpus gives half the development set's clips). 0: every clip the same; 1: every source the same.
        /// The class's own clips are not balanced: a class with few sources would rest on single clips (weighed by
        /// source at full strength, the smoke alarm's one clip of a third source would be a third of the class).
        /// Half way, held out by source the classes are heard better, and the development nights too (docs/classifier-history.md, "One
        /// corpus is not what a sound is not").
        public var sourceBalance = 0.5
        /// The same for the class's own clips: each weighs n^−classSourceBalance, n being the class's clips from its
        /// source, so that the corpus that gave most of a class's clips is not all it is learnt as. 0, every clip of the
        /// class the same, is how every shipped model was fitted (docs/classifier.md, "What is left", measures 0.5).
        public var classSourceBalance = 0.0
        /// How much more a recorded clip of none of our classes (a household, street or body sound; its copies too) weighs
        /// among the rest of each class than another clip of the rest, before the rest is balanced against the class: what
        /// a class learns it is not. 1: as much.
        public var noneWeight = 1.0
        /// How much an augmented copy weighs beside the recorded clip it was made from (on either side of a class): 1, as
        /// much; 1/N with N copies a clip, all of them together as much as the clip. The copies teach other rooms,
        /// levels and microphones, and the clip what the sound is.
        public var copyWeight = 1.0
        /// Whether a boosted class's calibration is fitted on the held-out scores of the recorded clips alone, the
        /// augmented copies left out (by default every clip and copy weighs the same).
        public var calibrateOnRecorded = false
        /// Whether each boosted class also gets a calibration fitted on the held-out scores of the recorded clips alone
        /// (`PointsScore.clipCalibration`), for choosing a whole clip's class, beside the one the alerts read.
        public var clipCalibration = false
        /// A condition's softness, as a share of its feature's interquartile range.
        public var softnessShare: Float = 0.05
        /// Features the trees may use: level and context features are left out, since absolute levels depend on
        /// the recorder's gain and short clips have no context; so is the alarm pattern, which a hand-written rule
        /// reads (`always` of the smoke alarm). The spectrum's shape band by band (`FeatureID.bandShapes`) is left out
        /// unless asked for (`fit --shape-features`, `withBandShapes`): the shipped recipe was fitted without it and
        /// refits byte for byte, and with it it was measured and not taken (docs/classifier.md).
        public var features: [FeatureID] = FeatureID.allCases.filter {
            ![.rmsDbfs, .peakDbfs, .noiseFloorDbfs, .snrDb, .activeFraction, .breathingPeriodicity, .breathingPeriodSeconds,
              .precedingQuietSeconds, .bandRatio4kUp, .alarmPatternCycles].contains($0) && !FeatureID.bandShapes.contains($0)
        }

        /// Per class, features of `features` its trees may not test (`fit --leave-out-feature CLASS:FEATURE`): a class
        /// may be kept from what a recorder moves in its sound while the others still test it.
        public var featuresLeftOut: [String: Set<FeatureID>] = [:]

        /// The features the trees of class `id` may test, in `FeatureID` order.
        public func features(for id: String) -> [FeatureID] {
            guard let leftOut = featuresLeftOut[id], !leftOut.isEmpty else { return features }
            return features.filter { !leftOut.contains($0) }
        }

        /// `features` with the spectrum's shape band by band added, in `FeatureID` order.
        public static func withBandShapes(_ features: [FeatureID]) -> [FeatureID] {
            let chosen = Set(features).union(FeatureID.bandShapes)
            return FeatureID.allCases.filter { chosen.contains($0) }
        }
        /// Classes never fitted (their hand-written rules stay).
        public var keep: Set<String> = ["silence"]
        /// Classes whose hand-written rule stays beside the fitted score as a backstop (the larger confidence wins):
        /// the smoke alarm, which a sleeper must never miss and which has a textbook form the rule describes; and
        /// snoring and speech, whose rules (written from the sounds' acoustics, not fitted) hear the textbook forms of
        /// those sounds that the scores, fitted on recordings, may not. Cough's rule stood beside its score until model
        /// 3.5.0: on the 28-source development set it raised two thirds of the development nights' false coughs
        /// (docs/classifier.md, "The hand-written rules beside the scores").
        public var backstops: Set<String> = ["smoke_detector", "snoring", "speech"]

        public init() {}
    }

    /// What was fitted, for the model's provenance.
    public struct ClassReport: Sendable, Equatable {
        public var classID: String
        public var fitted: Bool
        public var positiveExamples: Int
        /// Rule paths (tree) or trees (boosted).
        public var paths: Int
        public var note: String
    }

    public let options: Options

    public init(options: Options = Options()) { self.options = options }

    /// Fits every class of `base` that has enough examples in `dataset` (restricted to `clipIndices`).
    public func fit(_ dataset: FitDataset, clipIndices: [Int]? = nil, base: ClassifierModel) -> (ClassifierModel, [ClassReport]) {
        let indices = clipIndices ?? Array(dataset.clips.indices)
        var gatheredRows: [[Float]] = [], gatheredClasses: [String?] = [], gatheredClips: [Int] = [], gatheredExamples: [Int64] = []
        for index in indices {
            let clip = dataset.clips[index]
            for (window, features) in clip.windows.enumerated() where clip.used[window] {
                gatheredRows.append(features)
                gatheredClasses.append(clip.windowClasses[window])
                gatheredClips.append(index)
                // An example is a clip, or one labelled event of a recording labelled by events.
                gatheredExamples.append(Int64(index) << 32 | Int64((clip.windowEvents?[window] ?? -1) + 1))
            }
        }
        let (rows, rowClass, rowClip, rowExample) = (gatheredRows, gatheredClasses, gatheredClips, gatheredExamples)
        // Clips without a source (synthesised examples, event-labelled recordings) count as one source.
        let sources = dataset.clips.map { $0.source ?? "" }
        let noneOfOurs = noneOfOurs(dataset)
        let softness = featureSoftness(rows)
        // The rows a class learns from: all but those of clips that may hold it (a mixed bag; see below).
        let keptRows = { @Sendable (id: String) -> [Int] in
            rowClip.indices.filter { !dataset.clips[rowClip[$0]].uncertainClasses.contains(id) }
        }
        // Binning reads the values only, so the boosted classes that learn from the same rows share one table of them
        // and one of each calibration fold's training rows.
        var sharing: [[Int]: BoostingTables] = [:]
        if options.method == .boosted {
            for kept in Set(base.classes.filter { !options.keep.contains($0.id) }.map { keptRows($0.id) }) where !kept.isEmpty {
                sharing[kept] = sharedTables(rows: kept.map { rows[$0] },
                                             rowFold: calibrationFolds(clips: kept.map { rowClip[$0] }, dataset: dataset))
            }
        }
        let shared = sharing
        // Classes are fitted independently, on as many threads as there are cores; each result goes to its own slot,
        // so the model is the same whatever the scheduling.
        let outcomes = Self.concurrentMap(base.classes.count) { classIndex -> (SoundClassDefinition?, ClassReport) in
            let definition = base.classes[classIndex]
            // The `other` class learns the windows that are none of the classes.
            let isPositive: (String?) -> Bool = definition.id == TopClass.other ? { $0 == nil } : { $0 == definition.id }
            // A clip that may hold the class, which it is not known (a mixed bag), teaches it nothing either way. It
            // still teaches `other`, whose confidence raises nothing: most of such a bag is what `other` is (clocks,
            // motors, a street), and without it `other` no longer held the top of a household noise (docs/classifier-history.md,
            // "A bag of everything but snoring").
            let kept = keptRows(definition.id)
            let (rows, rowClip) = kept.count == rowClip.count ? (rows, rowClip) : (kept.map { rows[$0] }, kept.map { rowClip[$0] })
            let rowClass = kept.count == rowClass.count ? rowClass : kept.map { rowClass[$0] }
            let rowExample = kept.count == rowExample.count ? rowExample : kept.map { rowExample[$0] }
            let examples = Set(rowClip.indices.filter { isPositive(rowClass[$0]) && !dataset.clips[rowClip[$0]].augmented }
                .map { rowExample[$0] }).count
            guard !options.keep.contains(definition.id) else {
                return (nil, ClassReport(classID: definition.id, fitted: false, positiveExamples: examples, paths: 0,
                                         note: "kept as written"))
            }
            guard examples >= options.minExamples else {
                return (nil, ClassReport(classID: definition.id, fitted: false, positiveExamples: examples, paths: 0,
                                         note: examples == 0 ? "no examples; kept as written" : "too few examples; kept as written"))
            }
            let labels = rowClass.map(isPositive)
            var fitted = definition
            if options.backstops.contains(definition.id), !(definition.all.isEmpty && definition.any.isEmpty) {
                fitted.backstop = .init(maxConfidence: definition.maxConfidence, all: definition.all, any: definition.any,
                                        none: definition.none)
            }
            fitted.all = []
            fitted.any = []
            fitted.none = []
            fitted.maxConfidence = 1
            fitted.paths = []
            fitted.score = nil
            let parts: Int
            switch options.method {
            case .tree:
                let weights = balancedWeights(labels: labels, clips: rowClip, sources: sources, noneOfOurs: noneOfOurs,
                                              copies: copies(dataset))
                let tree = DecisionTree(samples: rows, labels: labels, weights: weights,
                                        features: options.features(for: definition.id).map(\.index), maxDepth: options.maxDepth,
                                        minLeafWeight: options.minLeafShare * weights.reduce(0, +))
                fitted.paths = tree.branches.filter { $0.total > 0 && $0.positive / $0.total >= options.minPathWeight }.map { branch in
                    RulePath(weight: Float((branch.positive / branch.total * 1000).rounded() / 1000),
                             all: conditions(branch.tests, softness: softness), support: branch.count)
                }
                parts = fitted.paths.count
                fitted.description = parts == 0
                    ? "Fitted, but no rule separates it from the rest; confidence 0."
                    : "Fitted: a depth-\(options.maxDepth) tree against the rest on \(examples) labelled examples."
            case .boosted:
                fitted.score = boostedScore(rows: rows, labels: labels, clips: rowClip, sources: sources, dataset: dataset,
                                            tables: shared[kept], leavingOut: options.featuresLeftOut[definition.id] ?? [])
                parts = fitted.score!.trees.count
                fitted.description = "Fitted: \(parts) boosted trees of depth \(options.maxDepth) against the rest on \(examples) "
                    + "labelled examples, calibrated on held-out folds."
            }
            fitted.status = parts == 0 ? .unsupported : .supported
            return (fitted, ClassReport(classID: definition.id, fitted: true, positiveExamples: examples, paths: parts,
                                        note: parts == 0 ? "no separating rule"
                                            : fitted.backstop != nil ? "fitted; the hand-written rule kept as a backstop" : "fitted"))
        }
        var model = base
        for (classIndex, outcome) in outcomes.enumerated() { if let fitted = outcome.0 { model.classes[classIndex] = fitted } }
        let reports = outcomes.map(\.1)
        return (model, reports)
    }

    /// `body(0..<count)` on one thread per core (each with an 8 MB stack: growing trees recurses over large values),
    /// each result in its own slot, so the outcome does not depend on the scheduling.
    static func concurrentMap<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let work = ConcurrentWork<T>(count: count)
        let workers = max(1, min(count, ProcessorSupport.usableCores))
        let done = DispatchGroup()
        for _ in 0..<workers {
            done.enter()
            let thread = Thread {
                while let index = work.take() { work.store(body(index), at: index) }
                done.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        done.wait()
        return work.results.map { $0! }
    }

    /// The binned rows of a fit, and of each calibration fold's training rows.
    struct BoostingTables: Sendable {
        var all: BinnedTable
        var folds: [BinnedTable]
    }

    var boostingOptions: GradientBoosting.Options {
        var boosting = GradientBoosting.Options()
        boosting.rounds = options.rounds
        boosting.maxDepth = options.maxDepth
        boosting.learningRate = options.learningRate
        boosting.minLeafShare = options.minLeafShare
        boosting.groupShare = options.clipShare
        boosting.featureShare = options.featureShare
        boosting.drawsClassOnly = options.drawsClassOnly
        return boosting
    }

    /// Each row's calibration fold: grouped folds of the clips its rows come from.
    func calibrationFolds(clips rowClip: [Int], dataset: FitDataset) -> [Int] {
        let clipIDs = Array(Set(rowClip)).sorted()
        let subset = FitDataset(clips: clipIDs.map { dataset.clips[$0] })
        let foldOfClip = Dictionary(uniqueKeysWithValues: zip(clipIDs, subset.folds(options.calibrationFolds)))
        return rowClip.map { foldOfClip[$0]! }
    }

    func sharedTables(rows: [[Float]], rowFold: [Int]) -> BoostingTables {
        let features = options.features.map(\.index), bins = boostingOptions.bins
        let tables = Self.concurrentMap(options.calibrationFolds + 1) { index -> BinnedTable in
            let fold = index - 1
            return BinnedTable(samples: rows, rows: fold < 0 ? nil : rows.indices.filter { rowFold[$0] != fold },
                               features: features, bins: bins)
        }
        return BoostingTables(all: tables[0], folds: Array(tables.dropFirst()))
    }

    /// A boosted points score for one class, calibrated on held-out scores of grouped folds of the clips. `tables`,
    /// when given, are the binned `rows` and calibration folds (`sharedTables`); `leftOut`, features its trees may
    /// not test.
    func boostedScore(rows: [[Float]], labels: [Bool], clips rowClip: [Int], sources: [String], dataset: FitDataset,
                      tables: BoostingTables? = nil, leavingOut leftOut: Set<FeatureID> = []) -> PointsScore {
        var boosting = boostingOptions
        boosting.excludedFeatures = Set(leftOut.map(\.index))
        let features = options.features.map(\.index)
        let boosted = GradientBoosting(table: tables?.all ?? BinnedTable(samples: rows, features: features, bins: boosting.bins),
                                       labels: labels, weights: balancedWeights(labels: labels, clips: rowClip, sources: sources,
                                                                                noneOfOurs: noneOfOurs(dataset), copies: copies(dataset)),
                                       groups: rowClip, options: boosting)
        // Held-out scores: each row scored by a model fitted without its clip's group.
        let rowFold = calibrationFolds(clips: rowClip, dataset: dataset)
        var heldOut = [Double](repeating: 0, count: rows.count)
        for fold in 0..<options.calibrationFolds {
            let training = rows.indices.filter { rowFold[$0] != fold }
            let trainingLabels = training.map { labels[$0] }
            guard trainingLabels.contains(true), trainingLabels.contains(false) else {
                for row in rows.indices where rowFold[row] == fold { heldOut[row] = boosted.score(rows[row]) }
                continue
            }
            let table = tables?.folds[fold] ?? BinnedTable(samples: rows, rows: training, features: features, bins: boosting.bins)
            let model = GradientBoosting(table: table, labels: trainingLabels,
                                         weights: balancedWeights(labels: trainingLabels, clips: training.map { rowClip[$0] }, sources: sources,
                                                                  noneOfOurs: noneOfOurs(dataset), copies: copies(dataset)),
                                         groups: training.map { rowClip[$0] }, options: boosting)
            for row in rows.indices where rowFold[row] == fold { heldOut[row] = model.score(rows[row]) }
        }
        // Every clip weighs the same, whatever its class: confidences then match the share of clips that were right.
        let windows = Self.windowsPerClip(rowClip)
        func calibration(recordedOnly: Bool) -> PointsScore.Calibration {
            let fitted = PlattScaling.fit(scores: heldOut, labels: labels, weights: rowClip.map {
                recordedOnly && dataset.clips[$0].augmented ? 0 : 1 / Double(windows[$0]!)
            })
            return .init(slope: Self.rounded(Float(max(fitted.slope, 1e-3))), intercept: Self.rounded(Float(fitted.intercept)))
        }
        return PointsScore(base: Self.rounded(Float(boosted.base)), calibration: calibration(recordedOnly: options.calibrateOnRecorded),
                           clipCalibration: options.clipCalibration ? calibration(recordedOnly: true) : nil,
                           trees: boosted.trees.map(scoreTree))
    }

    /// A grown tree as the model writes it: thresholds to four significant digits, points to 1/1000.
    func scoreTree(_ tree: GradientBoosting.Tree) -> ScoreTree {
        switch tree {
        case .leaf(let value): .points(Float((value * 1000).rounded() / 1000))
        case .split(let feature, let threshold, let missingBelow, let below, let above):
            .test(feature: FeatureID.allCases[feature], threshold: Self.rounded(threshold), missingBelow: missingBelow,
                  below: scoreTree(below), above: scoreTree(above))
        }
    }

    /// How many training windows each clip contributes.
    static func windowsPerClip(_ clips: [Int]) -> [Int: Int] {
        clips.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// Per clip of `dataset`, whether it is a recorded clip of none of our classes (weighed `noneWeight` among the rest);
    /// empty when that weight is 1.
    func noneOfOurs(_ dataset: FitDataset) -> [Bool] {
        options.noneWeight == 1 ? [] : dataset.clips.map { $0.classID == nil && $0.source != nil }
    }

    /// Per clip of `dataset`, whether it is an augmented copy (weighed `copyWeight`); empty when that weight is 1.
    func copies(_ dataset: FitDataset) -> [Bool] {
        options.copyWeight == 1 ? [] : dataset.clips.map(\.augmented)
    }

    /// Weights that give both sides (class, rest) half each. A clip of the class weighs n^−`classSourceBalance` (1 by
    /// default), a clip of the rest n^−`sourceBalance`, n being its side's clips from its source (`sources[clip]`); a
    /// clip of the rest `noneWeight` times that when `noneOfOurs[clip]`; an augmented copy (`copies[clip]`)
    /// `copyWeight` times what its clip would. A clip's windows share its weight.
    func balancedWeights(labels: [Bool], clips: [Int], sources: [String], noneOfOurs: [Bool] = [],
                         copies: [Bool] = []) -> [Double] {
        let windowsPerClip = Self.windowsPerClip(clips)
        var clipsPerSide = [false: Set<Int>(), true: Set<Int>()]
        for (label, clip) in zip(labels, clips) { clipsPerSide[label]!.insert(clip) }
        // Each clip's share of its side, once per clip: its weight over its side's total (summed in clip order, so that
        // the total, and the model, is the same whatever the sets' order).
        var share: [Int: Double] = [:]
        for (side, sideClips) in clipsPerSide {
            let balance = side ? options.classSourceBalance : options.sourceBalance
            var perSource: [String: Int] = [:]
            for clip in sideClips { perSource[sources[clip], default: 0] += 1 }
            let ordered = sideClips.sorted()
            let weights = ordered.map { clip in
                (balance == 0 ? 1 : pow(Double(perSource[sources[clip]]!), -balance))
                    * (!side && !noneOfOurs.isEmpty && noneOfOurs[clip] ? options.noneWeight : 1)
                    * (!copies.isEmpty && copies[clip] ? options.copyWeight : 1)
            }
            let total = max(weights.reduce(0, +), .leastNormalMagnitude)
            for (clip, weight) in zip(ordered, weights) { share[clip] = 0.5 * weight / total }
        }
        return clips.map { share[$0]! / Double(windowsPerClip[$0]!) }
    }

    /// Softness per feature column: a share of its interquartile range (a small floor where that is 0).
    func featureSoftness(_ rows: [[Float]]) -> [Float] {
        (0..<FeatureID.count).map { column in
            let values = rows.map { $0[column] }.filter { !$0.isNaN }.sorted()
            guard !values.isEmpty else { return 1 }
            let spread = values[values.count * 3 / 4] - values[values.count / 4]
            return max(spread * options.softnessShare, 1e-3)
        }
    }

    /// A branch's tests as conditions, one per feature: repeated tests on a feature collapse into the
    /// tightest bound, and a lower and an upper bound into `between`.
    func conditions(_ tests: [(feature: Int, threshold: Float, above: Bool)], softness: [Float]) -> [Condition] {
        var lower: [Int: Float] = [:], upper: [Int: Float] = [:]
        var order: [Int] = []
        for test in tests {
            if !order.contains(test.feature) { order.append(test.feature) }
            if test.above {
                lower[test.feature] = max(lower[test.feature] ?? -.infinity, test.threshold)
            } else {
                upper[test.feature] = min(upper[test.feature] ?? .infinity, test.threshold)
            }
        }
        return order.map { column in
            let feature = FeatureID.allCases[column]
            let round = { (value: Float) in Self.rounded(value) }
            let test: Condition.Test = switch (lower[column], upper[column]) {
            case (let low?, let high?): .between(round(low), round(high))
            case (let low?, nil): .above(round(low))
            case (nil, let high?): .below(round(high))
            case (nil, nil): .above(0)
            }
            return Condition(feature: feature, test: test, softness: round(softness[column]))
        }
    }

    /// Four significant digits: enough for a threshold, short enough to read.
    static func rounded(_ value: Float) -> Float {
        guard value != 0, value.isFinite else { return value }
        let magnitude = pow(10, Float(3 - Int(floor(log10(abs(value))))))
        return (value * magnitude).rounded() / magnitude
    }
}

/// Indices handed out to worker threads, and their results, under one lock.
private final class ConcurrentWork<T>: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var results: [T?]
    init(count: Int) { results = [T?](repeating: nil, count: count) }
    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }
    func store(_ value: T, at index: Int) {
        lock.lock()
        results[index] = value
        lock.unlock()
    }
}
