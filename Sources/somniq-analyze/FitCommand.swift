import ArgumentParser
import Foundation
import SomniqEvaluation
import SomniqFit
import SomniqModel
import SomniqPipeline

extension ModelFitter.Method: ExpressibleByArgument {}

struct FitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit",
        abstract: "Fit a model's rules to labelled audio and write it as a new model folder.",
        discussion: """
            Each class with enough examples is fitted against the rest. --method boosted (the default) grows \
            --rounds small trees of --max-depth tests by gradient boosting and writes them as a points score with \
            a logistic calibration fitted on held-out folds, so that confidences mean what they say; --method tree \
            writes one decision tree as weighted rule paths. Both are plain JSON in model.json, readable and \
            editable by hand. Classes without enough examples, silence, the tiers and the profiles are taken \
            from --base.
            Labelled clips: --clips <folder of label-named folders | manifest.tsv with path and label columns>.
            Labelled recordings: --clips <recordings> --labels <DCASE tsv | folder of Audacity label exports \
            named like the recordings>; a window takes the label of an event covering half of it.
            --cross-validate K prints scores of models fitted without each of K folds (clips of one source \
            recording stay together), the honest measure of what the fitted model will do.
            """)

    @Option(help: ArgumentHelp("Labelled clips (folder or manifest), or recordings with --labels.", valueName: "path"))
    var clips: String

    @Option(help: ArgumentHelp("Event labels for recordings: a DCASE table, or a folder of Audacity label files.", valueName: "path"))
    var labels: String?

    @Option(help: ArgumentHelp("Dataset label to class mapping (see evaluate --help).", valueName: "tsv"))
    var map: String?

    @Option(help: ArgumentHelp("Model folder to start from.", valueName: "path"))
    var base: String?

    @Option(help: ArgumentHelp("Folder to write the fitted model to (model.json, profiles.json, README.md).", valueName: "path"))
    var out: String?

    @Option(help: "The fitted model's name (default: the output folder's name).")
    var name: String?

    @Option(help: "The fitted model's version.")
    var version = "1.0.0"

    @Option(help: ArgumentHelp("Also score K-fold cross-validated predictions.", valueName: "K"))
    var crossValidate: Int?

    @Option(help: "How a class is fitted: boosted (points from many small trees, calibrated) or tree (one tree as rule paths).")
    var method: ModelFitter.Method = .boosted

    @Option(help: "Deepest tree (tests on one path).")
    var maxDepth = 3

    @Option(help: "Trees per class (boosted).")
    var rounds = 100

    @Option(help: "Step size of each boosted tree, (0, 1].")
    var learningRate = 0.1

    @Option(help: "Fewest labelled examples (clips or events) to fit a class.")
    var minExamples = 5

    @Option(help: "Output format of the scores: table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        if out == nil, crossValidate == nil { throw ValidationError("give --out to write a model, --cross-validate to score, or both") }
        if let k = crossValidate, k < 2 { throw ValidationError("--cross-validate needs at least 2 folds") }
        if !(1...6).contains(maxDepth) { throw ValidationError("--max-depth must lie in 1...6") }
        if !(1...1000).contains(rounds) { throw ValidationError("--rounds must lie in 1...1000") }
        if !(learningRate > 0 && learningRate <= 1) { throw ValidationError("--learning-rate must lie in (0, 1]") }
        if format == .csv { throw ValidationError("fit supports --format table or json") }
    }

    func run() throws {
        let baseBundle = try ModelOptions.load(base)
        let labelMap = try LabelMapLoading.load(map)
        let builder = FitDataBuilder(analyzer: RecordingAnalyzer(bundle: baseBundle), map: labelMap)
        let dataset: FitDataset
        var failures = 0
        if let labels {
            let files = InputCollector.collect([clips])
            let events: [SoundEvent]
            do {
                events = try Self.loadEvents(labels, files: files)
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.nothingDone
            }
            dataset = builder.fromEvents(files: files, events: events, progress: { Terminal.progress("analysing \($0 + 1)/\(files.count)") },
                                         failure: { failures += 1; Terminal.error($0.description) })
        } else {
            let clipList: [ClipSource.Clip]
            do {
                clipList = try ClipSource.load(clips)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.nothingDone
            }
            dataset = builder.fromClips(clipList, progress: { Terminal.progress("analysing \($0 + 1)/\(clipList.count)") },
                                        failure: { failures += 1; Terminal.error($0.description) })
        }
        Terminal.clearProgress()
        guard !dataset.clips.isEmpty else { throw ValidationError("no labelled audio could be read from \(clips)") }

        var options = ModelFitter.Options()
        options.method = method
        options.maxDepth = maxDepth
        options.rounds = rounds
        options.learningRate = learningRate
        options.minExamples = minExamples
        let fitter = ModelFitter(options: options)
        var scoresText = ""
        if let folds = crossValidate {
            let predictions = CrossValidation.run(dataset, folds: folds, fitter: fitter, base: baseBundle.classifier)
            var evaluation = ClipEvaluation(map: labelMap)
            for (clip, prediction) in zip(dataset.clips, predictions) {
                evaluation.add(path: clip.path, label: clip.label, predicted: prediction.label, confidence: prediction.confidence)
            }
            scoresText = format == .json ? try EvaluationReport.clipsJSON(evaluation)
                : "\(folds)-fold cross-validation (clips of one source recording in one fold)\n" + EvaluationReport.clipsTable(evaluation)
            Terminal.output(scoresText)
        }
        guard let out else { return }
        let (fitted, reports) = fitter.fit(dataset, base: baseBundle.classifier)
        var model = fitted
        model.name = name ?? (out as NSString).lastPathComponent
        model.version = version
        model.description = "Fitted by `somniq-analyze fit` on \(dataset.clips.count) labelled recordings from \(baseBundle.classifier.name)@"
            + "\(baseBundle.classifier.version); see README.md in this folder."
        do {
            try ModelWriter.write(model: model, profiles: baseBundle, to: out, reports: reports,
                                  command: "somniq-analyze " + CommandLine.arguments.dropFirst().joined(separator: " "),
                                  clips: dataset.clips.count, scores: format == .table ? scoresText : nil)
        } catch {
            Terminal.error("\(out): error: cannot write the model: \(error.localizedDescription)")
            throw ExitStatus.nothingDone
        }
        Terminal.error("wrote \(out)/model.json: " + reports.filter { $0.fitted }.map { "\($0.classID) (\($0.paths) \(method == .tree ? "paths" : "trees"))" }.joined(separator: ", "))
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }

    static func loadEvents(_ labels: String, files: [String]) throws -> [SoundEvent] {
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: labels, isDirectory: &isDirectory)
        guard isDirectory.boolValue else { return try DCASETable.parse(contentsOf: labels) }
        return try files.flatMap { file -> [SoundEvent] in
            let name = (file as NSString).lastPathComponent
            let labelFile = (labels as NSString).appendingPathComponent((name as NSString).deletingPathExtension + ".txt")
            guard let text = try? String(contentsOfFile: labelFile, encoding: .utf8) else { return [] }
            return try AudacityLabels.parse(text, file: name, path: labelFile)
        }
    }
}
