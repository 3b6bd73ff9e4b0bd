import ArgumentParser
import Foundation
import SomniqAudio
import SomniqModel
import SomniqPipeline

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Classify recordings window by window, without a database.",
        discussion: "Prints each window's top class and confidence, and per file the seconds each class was on top and its "
            + "dominant class: the rule `evaluate` scores clips by (\(TopClass.clipRule)). Classes are chosen here through the "
            + "model's clip calibrations, fitted on recorded clips, where it has them (`fit --clip-calibration`; the default "
            + "model has since 3.7.0), so the confidences printed differ from those `analyze` stores for the alerts.")

    @Argument(help: ArgumentHelp("Audio files or folders.", valueName: "files"))
    var inputs: [String]

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Output format: table, json or csv.")
    var format: OutputFormat = .table

    @Flag(help: "Also print every feature of every window (json and csv).")
    var features = false

    @Flag(help: ArgumentHelp("Also print every class's confidence in every window, and whether the window is one the "
                             + "dominant class is read from (json and csv)."))
    var confidences = false

    func validate() throws {
        if format == .table, features || confidences {
            throw ValidationError("--\(features ? "features" : "confidences") is printed with --format json or csv, not in the table")
        }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let analyzer = RecordingAnalyzer(bundle: bundle.choosingClips)
        let files = try InputCollector.collectNamed(inputs)
        var reports: [ClassificationReport.File] = []
        var failed = 0
        for (number, file) in files.enumerated() {
            Terminal.progress("[\(number + 1)/\(files.count)] \(file)")
            do {
                let data = try analyzer.analyze(path: file, keeping: features ? .inMemory : .levels)
                Terminal.warnIfCutShort(data)
                reports.append(ClassificationReport.File(data, detectionFloor: bundle.classifier.detectionFloor,
                                                        includeFeatures: features, includeConfidences: confidences))
            } catch {
                Terminal.clearProgress()
                Terminal.error(error.description)
                failed += 1
            }
        }
        Terminal.clearProgress()
        if reports.isEmpty {
            Terminal.error(files.count == 1 ? "the file could not be classified" : "none of the \(files.count) files could be classified")
            throw ExitStatus.nothingDone
        }
        switch format {
        case .table: Terminal.output(ClassificationReport.table(reports))
        case .json: Terminal.output(try ClassificationReport.json(reports, bundle: bundle))
        case .csv: Terminal.output(ClassificationReport.csv(reports))
        }
        if failed > 0 { throw ExitStatus.someInputsFailed }
    }
}
