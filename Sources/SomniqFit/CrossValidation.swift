import SomniqFeatures
import SomniqModel

/// Fit on some folds, predict the one left out: the honest way to report a fitted model.
public enum CrossValidation {
    /// How a clip is scored, in words (printed with the scores).
    public static let clipRule = "a clip's prediction is the class on top in the most of its loud windows (within 10 dB of its "
        + "loudest, the windows the label is about), silence, other and unclassified aside; silence if nothing else is on top"

    /// A clip's prediction by a model (see `clipRule`), and the mean confidence of that class over the loud
    /// windows where it is on top.
    public static func predict(_ clip: FitDataset.Clip, classifier: Classifier, floor: Float) -> (label: String, confidence: Float) {
        predict(windows: clip.windows, classifier: classifier, floor: floor)
    }

    public static func predict(windows rows: [[Float]], classifier: Classifier, floor: Float) -> (label: String, confidence: Float) {
        let loud = FitDataset.activeWindows(levels: rows.map { $0[FeatureID.rmsDbfs.index] })
        var seconds: [String: Double] = [:], confidenceSum: [String: Float] = [:], windows: [String: Int] = [:]
        for (row, isLoud) in zip(rows, loud) where isLoud {
            let confidences = classifier.classify(FeatureVector(values: row))
            let (label, confidence) = TopClass.of(confidences, classIDs: classifier.model.classIDs, floor: floor)
            seconds[label, default: 0] += AnalysisGrid.hopSeconds
            confidenceSum[label, default: 0] += confidence
            windows[label, default: 0] += 1
        }
        let label = TopClass.dominant(seconds)
        return (label, windows[label].map { confidenceSum[label]! / Float($0) } ?? 0)
    }

    /// The prediction of every window of a clip, for event-labelled recordings.
    public static func predictWindows(_ clip: FitDataset.Clip, classifier: Classifier, floor: Float) -> [(label: String, confidence: Float)] {
        clip.windows.map { TopClass.of(classifier.classify(FeatureVector(values: $0)), classIDs: classifier.model.classIDs, floor: floor) }
    }

    /// For each clip, the prediction of the model fitted without the clip's fold.
    public static func run(_ dataset: FitDataset, folds: Int, fitter: ModelFitter, base: ClassifierModel)
        -> [(label: String, confidence: Float)] {
        let assignment = dataset.folds(folds)
        var predictions = [(label: String, confidence: Float)](repeating: ("", 0), count: dataset.clips.count)
        for fold in 0..<folds {
            let training = assignment.indices.filter { assignment[$0] != fold }
            let (model, _) = fitter.fit(dataset, clipIndices: training, base: base)
            let classifier = Classifier(model: model)
            for index in assignment.indices where assignment[index] == fold {
                predictions[index] = predict(dataset.clips[index], classifier: classifier, floor: model.detectionFloor)
            }
        }
        return predictions
    }
}
