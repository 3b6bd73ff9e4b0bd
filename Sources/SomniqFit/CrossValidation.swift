import SomniqFeatures
import SomniqModel

/// Fit on some folds, predict the one left out: the honest way to report a fitted model.
public enum CrossValidation {
    /// How a clip is scored, in words (printed with the scores).
    public static let clipRule = TopClass.clipRule

    /// A clip's prediction by a model (`TopClass.clip`), and that class's geometric mean confidence over the loud
    /// windows.
    public static func predict(_ clip: FitDataset.Clip, classifier: Classifier, floor: Float) -> (label: String, confidence: Float) {
        predict(windows: clip.windows, classifier: classifier, floor: floor)
    }

    public static func predict(windows rows: [[Float]], classifier: Classifier, floor: Float) -> (label: String, confidence: Float) {
        let levels = rows.map { $0[FeatureID.rmsDbfs.index] }
        let classCount = classifier.model.classIDs.count
        // Only the loud windows count, so only they are classified.
        var confidences = [Float](repeating: 0, count: rows.count * classCount)
        for (window, isLoud) in TopClass.loudWindows(levels: levels).enumerated() where isLoud {
            let scored = classifier.classify(FeatureVector(values: rows[window]))
            confidences.replaceSubrange((window * classCount)..<((window + 1) * classCount), with: scored)
        }
        return TopClass.clip(confidences, classIDs: classifier.model.classIDs, levels: levels, floor: floor)
    }

    /// The prediction of every window of a clip, for event-labelled recordings.
    public static func predictWindows(_ clip: FitDataset.Clip, classifier: Classifier, floor: Float) -> [(label: String, confidence: Float)] {
        clip.windows.map { TopClass.of(classifier.classify(FeatureVector(values: $0)), classIDs: classifier.model.classIDs, floor: floor) }
    }

    /// A scored clip's prediction, and the predictions of its probes (perturbed versions), in the clip's order.
    public struct Prediction: Sendable {
        public var label: String
        public var confidence: Float
        public var probeLabels: [String]
        /// For a recording labelled by events, each window's prediction (its top class), in window order.
        public var windows: [(label: String, confidence: Float)] = []
    }

    /// For each scored clip (not an augmented copy), the prediction of the model fitted without the clip's fold.
    /// A model scored on a fold never trains on an augmented copy mixed over a background from that fold.
    /// `unfitted` hears the clips of each fold without which no class had enough examples to fit: the base model scored
    /// them as it is, so their scores say nothing of the fit.
    public static func run(_ dataset: FitDataset, folds: Int, fitter: ModelFitter, base: ClassifierModel,
                           unfitted: ([Int]) -> Void = { _ in }) -> [Int: Prediction] {
        let assignment = dataset.folds(folds)
        let splits = (0..<folds).map { fold in
            dataset.clips.indices.filter { assignment[$0] == fold && !dataset.clips[$0].augmented }
        }
        return holdOut(dataset, splits: splits, bySource: false, fitter: fitter, base: base, unfitted: unfitted)
    }

    /// Fold `fold` of `folds` as `run` cuts them: its clips (recordings, not copies), and every clip that may train a
    /// model scored on them. What `fit --holdout-fold` fits on, so that audio built from the held-out clips (the
    /// development nights) scores a model that never heard them.
    public static func holdout(_ dataset: FitDataset, fold: Int, of folds: Int) -> (scored: [Int], training: [Int]) {
        precondition((0..<folds).contains(fold), "fold \(fold) of \(folds)")
        let assignment = dataset.folds(folds)
        let scored = dataset.clips.indices.filter { assignment[$0] == fold && !dataset.clips[$0].augmented }
        let groups = Set(scored.map { dataset.clips[$0].group })
        let training = dataset.clips.indices.filter { dataset.clips[$0].mayTrain(scoredGroups: groups, sources: []) }
        return (scored, training)
    }

    /// The clips of `sources` (recordings, not copies) and every clip that may train a model scored on them, as
    /// `leaveOneSourceOut` splits the set for one source: what `fit --holdout-source` fits on, so that a few sources'
    /// held-out predictions are had without fitting for every source, or every source's by fitting for groups of them.
    public static func holdout(_ dataset: FitDataset, sources: Set<String>) -> (scored: [Int], training: [Int]) {
        let scored = dataset.clips.indices.filter {
            dataset.clips[$0].source.map(sources.contains) == true && !dataset.clips[$0].augmented
        }
        let groups = Set(scored.map { dataset.clips[$0].group })
        let training = dataset.clips.indices.filter { dataset.clips[$0].mayTrain(scoredGroups: groups, sources: sources) }
        return (scored, training)
    }

    /// Leave one source out: for each source (the manifest's `source` column), the predictions for its clips of a
    /// model fitted on every other source (and on no copy mixed over a background from it). Clips without a source
    /// are not scored.
    public static func leaveOneSourceOut(_ dataset: FitDataset, fitter: ModelFitter, base: ClassifierModel,
                                         unfitted: ([Int]) -> Void = { _ in }) -> [Int: Prediction] {
        let sources = Set(dataset.clips.compactMap(\.source)).sorted()
        let splits = sources.map { source in
            dataset.clips.indices.filter { dataset.clips[$0].source == source && !dataset.clips[$0].augmented }
        }
        return holdOut(dataset, splits: splits, bySource: true, fitter: fitter, base: base, unfitted: unfitted)
    }

    /// Fits, for each split, on every clip that may train a model scored on it, and predicts the split's clips.
    static func holdOut(_ dataset: FitDataset, splits: [[Int]], bySource: Bool, fitter: ModelFitter, base: ClassifierModel,
                        unfitted: ([Int]) -> Void) -> [Int: Prediction] {
        var predictions: [Int: Prediction] = [:]
        for scored in splits where !scored.isEmpty {
            let groups = Set(scored.map { dataset.clips[$0].group })
            let sources = bySource ? Set(scored.compactMap { dataset.clips[$0].source }) : []
            let training = dataset.clips.indices.filter { dataset.clips[$0].mayTrain(scoredGroups: groups, sources: sources) }
            let (model, reports) = fitter.fit(dataset, clipIndices: training, base: base)
            if !reports.contains(where: \.fitted) { unfitted(scored) }
            let classifier = Classifier(model: model.choosingClips)
            for index in scored {
                let clip = dataset.clips[index]
                let prediction = predict(clip, classifier: classifier, floor: model.detectionFloor)
                predictions[index] = Prediction(
                    label: prediction.label, confidence: prediction.confidence,
                    probeLabels: clip.probes.map { predict(windows: $0.windows, classifier: classifier, floor: model.detectionFloor).label },
                    windows: clip.eventLabelled ? predictWindows(clip, classifier: classifier, floor: model.detectionFloor) : [])
            }
        }
        return predictions
    }
}
