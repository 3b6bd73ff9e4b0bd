import SomniqFeatures
@testable import SomniqFit
import SomniqModel
import Testing

/// `fit --calibrate-on-recorded`: a boosted class's calibration is fitted on the held-out scores of the recorded clips
/// alone, its augmented copies left out (they still train the trees).
@Suite struct CalibrationOnRecordedTests {
    /// `thresholdDataset`, and with `copies` a copy of each cough clip heard as the rest sounds (its centroid among
    /// theirs), as a copy buried in a loud room is: labelled cough, and scored as the rest.
    func dataset(copies: Bool) -> FitDataset {
        var dataset = thresholdDataset()
        guard copies else { return dataset }
        for clip in dataset.clips where clip.classID == "cough" {
            var copy = clip
            copy.windows = clip.windows.indices.map { row(snr: Float($0), centroid: 300 + Float($0) * 40) }
            copy.augmented = true
            dataset.clips.append(copy)
        }
        return dataset
    }

    func cough(_ dataset: FitDataset, onRecorded: Bool, clipCalibration: Bool = false) throws -> PointsScore {
        try #require(fit(dataset, onRecorded: onRecorded, clipCalibration: clipCalibration).classes.first { $0.id == "cough" }?.score)
    }

    func fit(_ dataset: FitDataset, onRecorded: Bool, clipCalibration: Bool = false) -> ClassifierModel {
        var options = ModelFitter.Options()
        options.maxDepth = 1
        options.rounds = 20
        options.calibrateOnRecorded = onRecorded
        options.clipCalibration = clipCalibration
        return ModelFitter(options: options).fit(dataset, base: baseModel).0
    }

    /// `fit --clip-calibration`: both calibrations in one model, the alerts' as without the option and the clip's as
    /// `--calibrate-on-recorded` fits it; `choosingClips` reads the clip's.
    @Test func theClipCalibrationIsTheRecordedOneBesideTheAlerts() throws {
        let withCopies = dataset(copies: true)
        let both = try cough(withCopies, onRecorded: false, clipCalibration: true)
        let alerts = try cough(withCopies, onRecorded: false), recorded = try cough(withCopies, onRecorded: true)
        #expect(both.trees == alerts.trees && both.base == alerts.base)
        #expect(both.calibration == alerts.calibration)
        #expect(both.clipCalibration == recorded.calibration)
        #expect(alerts.clipCalibration == nil, "off by default")
        let model = fit(withCopies, onRecorded: false, clipCalibration: true)
        let chosen = try #require(model.choosingClips.classes.first { $0.id == "cough" }?.score)
        #expect(chosen.calibration == recorded.calibration)
        #expect(confidence(chosen, centroid: 400) < confidence(both, centroid: 400) - 0.2,
                "the clip's choice hears a sound of the rest as none, where the alerts' calibration is unsure")
        let other = model.classes.filter { $0.score == nil }
        #expect(model.choosingClips.classes.filter { $0.score == nil } == other, "classes without a score are as they were")
    }

    func confidence(_ score: PointsScore, centroid: Float) -> Float {
        var vector = FeatureVector()
        vector[.snrDb] = 10
        vector[.spectralCentroidHz] = centroid
        return score.confidence(vector)
    }

    @Test func theCopiesTrainTheTreesButNotTheCalibration() throws {
        let withCopies = dataset(copies: true)
        let all = try cough(withCopies, onRecorded: false), recorded = try cough(withCopies, onRecorded: true)
        #expect(all.trees == recorded.trees, "the trees are fitted the same way")
        // Calibrated on the copies too, a sound of the rest is as likely a buried cough as not; on the recordings, a
        // sound of the rest is none.
        #expect(confidence(recorded, centroid: 400) < confidence(all, centroid: 400) - 0.2)
        #expect(confidence(recorded, centroid: 400) < 0.2)
        #expect(confidence(recorded, centroid: 1500) > 0.8)
    }

    @Test func withoutCopiesItChangesNothing() throws {
        let clean = dataset(copies: false)
        #expect(try cough(clean, onRecorded: true) == cough(clean, onRecorded: false))
    }
}
