import SomniqPipeline
import SomniqFit
import SomniqModel
import SomniqStore

/// A whole clip's class under the clip-scoring rule (`CrossValidation.clipRule`).
public enum ClipVerdict {
    public static func predict(_ data: RecordingData, bundle: ModelBundle) -> (label: String, confidence: Float) {
        let count = data.featureIDs.count
        let rows = (0..<data.windowCount).map { Array(data.features[($0 * count)..<(($0 + 1) * count)]) }
        return CrossValidation.predict(windows: rows, classifier: Classifier(model: bundle.classifier),
                                       floor: bundle.classifier.detectionFloor)
    }
}
