import Foundation
import SomniqFeatures
import SomniqFit
import SomniqModel

/// Writes a model folder: `model.json`, `profiles.json` and a README saying how the model was made. A report card's
/// `quality.tsv` left in the folder by the model it replaces is removed: it describes that model, not this one.
public enum ModelWriter {
    public static func write(model: ClassifierModel, profiles: ModelBundle, to folder: String, reports: [ModelFitter.ClassReport],
                             augmentation: String? = nil, sourceBalance: Double = 0, mixedBags: Int = 0, command: String, clips: Int,
                             scores: String?) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let card = (folder as NSString).appendingPathComponent(ClassQuality.fileName)
        if FileManager.default.fileExists(atPath: card) { try FileManager.default.removeItem(atPath: card) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (String(decoding: try encoder.encode(model), as: UTF8.self) + "\n")
            .write(toFile: (folder as NSString).appendingPathComponent(ModelBundle.modelFileName), atomically: true, encoding: .utf8)
        let profilesSource = (profiles.location as NSString).appendingPathComponent(ModelBundle.profilesFileName)
        let profilesTarget = (folder as NSString).appendingPathComponent(ModelBundle.profilesFileName)
        if URL(fileURLWithPath: profilesSource).standardizedFileURL != URL(fileURLWithPath: profilesTarget).standardizedFileURL {
            try? FileManager.default.removeItem(atPath: profilesTarget)
            try FileManager.default.copyItem(atPath: profilesSource, toPath: profilesTarget)
        }
        var readme = "# \(model.name) \(model.version)\n\nFitted from \(profiles.classifier.name)@\(profiles.classifier.version) "
            + "on \(clips) labelled recordings with:\n\n```\n\(command)\n```\n\n"
            + "Classes not fitted keep the base model's rules. Examples are labelled clips (or events) per class; a fitted "
            + "class has rule paths (one tree) or boosted trees (a points score; see `PointsScore` and docs/pipeline.md).\n\n"
            + (augmentation.map { "Augmentation (every training clip also heard as): \($0). Deterministic: the same data, "
                + "command and seed refit this model byte for byte.\n\n" } ?? "")
            + (sourceBalance > 0
                ? "Weights: a class and the rest weigh half each; a clip of the class weighs as much as any other, a clip of "
                    + "the rest from a source with n such clips weighs n^−\(String(format: "%g", sourceBalance)) "
                    + "(`fit --source-balance`), so that one corpus does not decide what a class is not.\n\n"
                : "")
            + (mixedBags > 0
                ? "Mixed bags: \(mixedBags) clips of a label the map gives as `~classes` (a bag that may hold those classes, which one "
                    + "not known clip by clip) train none of the classes they may hold; they are counter-examples of every other "
                    + "class, and examples of `other`.\n\n"
                : "")
            + "| class | fitted | examples | rule paths or trees | note |\n|---|---|---|---|---|\n"
        for report in reports {
            readme += "| \(report.classID) | \(report.fitted ? "yes" : "no") | \(report.positiveExamples) | \(report.paths) | \(report.note) |\n"
        }
        let scored = model.classes.filter { $0.score != nil }
        if !scored.isEmpty {
            let clipCalibrated = scored.contains { $0.score!.clipCalibration != nil }
            readme += "\n## What each boosted class listens to\n\nThe features its trees test most (share of all tests), and its "
                + "calibration (confidence = σ(slope × score + intercept))"
                + (clipCalibrated ? "; then the calibration a clip's class is chosen by (fitted on the recorded clips alone: "
                    + "`classify`, `evaluate --clips`)" : "")
                + ".\n\n| class | most tested features | slope | intercept |" + (clipCalibrated ? " clip slope | clip intercept |" : "")
                + "\n|---|---|---|---|" + (clipCalibrated ? "---|---|" : "") + "\n"
            for definition in scored {
                let score = definition.score!
                let usage = featureUsage(score.trees)
                let total = usage.values.reduce(0, +)
                let top = usage.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }.prefix(5)
                    .map { "\($0.key.rawValue) \(Int((Double($0.value) / Double(total) * 100).rounded()))%" }
                readme += "| \(definition.id) | \(top.joined(separator: ", ")) | \(score.calibration.slope) | \(score.calibration.intercept) |"
                    + (clipCalibrated ? " \(score.clipCalibration.map { "\($0.slope) | \($0.intercept)" } ?? "— | —") |" : "") + "\n"
            }
        }
        if let scores, !scores.isEmpty { readme += "\n## Cross-validated scores\n\n```\n\(scores)```\n" }
        try readme.write(toFile: (folder as NSString).appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
    }

    /// How many tests of `trees` look at each feature.
    static func featureUsage(_ trees: [ScoreTree]) -> [FeatureID: Int] {
        var usage: [FeatureID: Int] = [:]
        func walk(_ node: ScoreTree) {
            if case .test(let feature, _, _, let below, let above) = node {
                usage[feature, default: 0] += 1
                walk(below)
                walk(above)
            }
        }
        trees.forEach(walk)
        return usage
    }
}
