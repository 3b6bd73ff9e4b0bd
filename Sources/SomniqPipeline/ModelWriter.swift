import Foundation
import SomniqFit
import SomniqModel

/// Writes a model folder: `model.json`, `profiles.json` and a README saying how the model was made.
public enum ModelWriter {
    public static func write(model: ClassifierModel, profiles: ModelBundle, to folder: String, reports: [ModelFitter.ClassReport],
                             command: String, clips: Int, scores: String?) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
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
            + "| class | fitted | examples | rule paths | note |\n|---|---|---|---|---|\n"
        for report in reports {
            readme += "| \(report.classID) | \(report.fitted ? "yes" : "no") | \(report.positiveExamples) | \(report.paths) | \(report.note) |\n"
        }
        if let scores, !scores.isEmpty { readme += "\n## Cross-validated scores\n\n```\n\(scores)```\n" }
        try readme.write(toFile: (folder as NSString).appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
    }
}
