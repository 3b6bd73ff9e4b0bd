import ArgumentParser
import Foundation
import SomniqPipeline
import SomniqRegression

struct RegressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regress",
        abstract: "Run every fixture under every profile and compare with the committed goldens.",
        discussion: """
            Labels, tiers, kinds, severities and counts must match exactly; times within \
            \(GoldenComparison.timeTolerance) s and confidences within \(GoldenComparison.confidenceTolerance). \
            Bad-input fixtures have golden errors: code, message and exit status. Exit status 0 when everything \
            matches, 1 when anything differs. --update rewrites the goldens that differ and lists what changed: read \
            that list before committing them.
            Without --model, the goldens are checked against the model they were made with: models/<name> beside \
            the fixtures folder, <name> as the goldens record it (the shipped goldens: models/rules, the \
            hand-written model the synthetic fixtures were designed with).
            """)

    @Option(help: ArgumentHelp("Fixtures folder; goldens live in its expected/ folder.", valueName: "path"))
    var fixtures = "fixtures"

    @Flag(help: "Rewrite the goldens that differ (and remove those whose fixture is gone).")
    var update = false

    @OptionGroup var modelOptions: ModelOptions

    func run() throws {
        let bundle = try ModelOptions.load(modelOptions.model ?? goldensModel())
        let suite = RegressionSuite(fixturesFolder: fixtures, analyzer: RecordingAnalyzer(bundle: bundle))
        guard !suite.fixtures().isEmpty else { throw ValidationError("no audio fixtures found in \(fixtures)"
                                                                      + (FileManager.default.fileExists(atPath: fixtures) ? "" : " (no such folder)")
                                                                      + "; run regress from the repository's top folder, or pass --fixtures PATH") }
        let outcomes = suite.check { Terminal.progress("regress \($0)") }
        Terminal.clearProgress()
        var report = ""
        for outcome in outcomes {
            switch outcome.status {
            case .matches:
                report += "ok       \(outcome.fixture)\n"
            case .differs, .noGolden, .staleGolden:
                report += (update ? "updated  " : "DIFFERS  ") + outcome.fixture + "\n"
                for difference in outcome.differences { report += "         - \(difference)\n" }
            }
        }
        let changed = outcomes.filter { $0.status != .matches }.count
        report += "\(outcomes.count - changed) of \(outcomes.count) fixtures match their goldens"
            + " (model \(bundle.versionTag), \(bundle.profiles.profiles.count) profiles)\n"
        Terminal.output(report)
        if update {
            do {
                try suite.update(outcomes)
            } catch {
                Terminal.error("\(fixtures): error: cannot write goldens: \(error.localizedDescription)")
                throw ExitStatus.nothingDone
            }
            Terminal.error(changed == 0 ? "no golden changed" : "\(changed) goldens rewritten: review the changes above and the git diff before committing")
            return
        }
        if changed > 0 {
            // The hint repeats the options this run was given, so that it updates these goldens against this model.
            var rerun = ["somniq-analyze", "regress", "--update"]
            if fixtures != "fixtures" { rerun += ["--fixtures", Formatting.shellQuoted(fixtures)] }
            if let model = modelOptions.model { rerun += ["--model", Formatting.shellQuoted(model)] }
            Terminal.error("\(changed) fixtures differ from their goldens; if the change is intended, run '\(rerun.joined(separator: " "))' and review the diff")
            throw ExitStatus.someInputsFailed
        }
    }

    /// The folder of the model the goldens name (`"model": "rules@0.3.0+profiles@1.0.0"` → `<fixtures>/../models/rules`),
    /// or `nil` (the default model) when there are no goldens or the folder does not exist.
    func goldensModel() -> String? {
        let expected = (fixtures as NSString).appendingPathComponent("expected")
        guard let files = FileManager.default.enumerator(atPath: expected) else { return nil }
        for case let file as String in files where file.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: (expected as NSString).appendingPathComponent(file)),
                  let golden = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let tag = golden["model"] as? String, let name = tag.split(separator: "@").first else { continue }
            let folder = (((fixtures as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("models") as NSString).appendingPathComponent(String(name))
            return FileManager.default.fileExists(atPath: folder) ? folder : nil
        }
        return nil
    }
}
