import Foundation
import SomniqFeatures
import SomniqFit
import SomniqModel
import Testing

@Suite struct MissingFeatureTests {
    /// Rows where the class shows in the centroid when the band is there; in "narrow-band" rows the centroid is
    /// missing and the class then shows as a low `band_ratio_0_250`.
    func rows() -> (rows: [[Float]], labels: [Bool]) {
        var rows: [[Float]] = [], labels: [Bool] = []
        for index in 0..<400 {
            let positive = index % 2 == 0, narrow = index % 4 >= 2
            var vector = FeatureVector()
            vector[.spectralCentroidHz] = narrow ? .nan : (positive ? 1_500 : 500) + Float(index % 50)
            vector[.bandRatio0To250] = narrow ? (positive ? 0.2 : 0.8) : 0.5
            rows.append(vector.values)
            labels.append(positive)
        }
        return (rows, labels)
    }

    @Test func boostingLearnsWhereMissingValuesGo() {
        let (samples, labels) = rows()
        var options = GradientBoosting.Options()
        options.rounds = 30
        options.maxDepth = 2
        let model = GradientBoosting(samples: samples, labels: labels, weights: labels.map { _ in 1 },
                                     features: [FeatureID.spectralCentroidHz.index, FeatureID.bandRatio0To250.index], options: options)
        for (row, label) in zip(samples, labels) {
            #expect((model.score(row) > 0) == label, "centroid \(row[FeatureID.spectralCentroidHz.index])")
        }
        // Some test of the centroid sends its missing values below: the fitter chose, rather than NaN falling "above".
        func sendsMissingBelow(_ tree: GradientBoosting.Tree) -> Bool {
            guard case .split(let feature, _, let missingBelow, let below, let above) = tree else { return false }
            return (feature == FeatureID.spectralCentroidHz.index && missingBelow) || sendsMissingBelow(below) || sendsMissingBelow(above)
        }
        #expect(model.trees.contains(where: sendsMissingBelow))
    }

    @Test func aScoreTreeReadsAndWritesItsMissingDirection() throws {
        let json = #"{"feature": "mfcc_2", "threshold": 3.5, "missing": "below", "below": {"points": 1}, "above": {"points": -1}}"#
        let tree = try JSONDecoder().decode(ScoreTree.self, from: Data(json.utf8))
        var vector = FeatureVector()
        vector[.mfcc2] = .nan
        #expect(tree.points(vector) == 1)
        vector[.mfcc2] = 4
        #expect(tree.points(vector) == -1)
        let again = try JSONDecoder().decode(ScoreTree.self, from: try JSONEncoder().encode(tree))
        #expect(again == tree)
        let plain = try JSONDecoder().decode(ScoreTree.self, from: Data(json.replacingOccurrences(of: #""missing": "below", "#, with: "").utf8))
        vector[.mfcc2] = .nan
        #expect(plain.points(vector) == -1, "without a direction, a missing value goes above")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ScoreTree.self, from: Data(json.replacingOccurrences(of: "\"below\", \"below\"", with: "\"sideways\", \"below\"").utf8))
        }
    }

    @Test func aConditionOnAMissingFeatureIsNeitherInNorOut() {
        #expect(Condition(feature: .spectralCentroidHz, test: .above(1_000), softness: 50).membership(.nan) == 0.5)
    }
}
