import ArgumentParser
import Foundation
import SomniqAudio
import SomniqDetection
import SomniqEvaluation
import SomniqModel
import SomniqLabelledAudio
import SomniqPipeline
import SomniqStore

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score detections against labelled audio, as sed_eval does.",
        discussion: """
            With --labels (a DCASE table: filename, onset, offset, event_label; or a folder of Audacity label \
            tracks named like the recordings, as fit takes them), each profile's episodes are scored \
            segment-based (1 s segments) and event-based (onset collar 0.2 s, offset collar the larger of 0.2 s \
            and 50% of the event): precision, recall, F1 and error rate per class, micro and macro averaged.
            With --clips (a folder whose sub-folders name the labels, or a manifest TSV with 'path' and 'label' \
            columns), each clip's dominant class is scored against its label: per-class precision, recall and F1, \
            macro F1, and a confusion matrix.
            --map names which of our classes count for a dataset's label (label<TAB>class,class; empty: nothing of \
            ours, so only silence is right; ?: do not score; ~class,class: a mixed bag that may hold those classes, \
            which one not known clip by clip, so predicting one of them is not judged). A third column, a file-name \
            pattern (label<TAB>classes<TAB>bag__0_*), makes the line decide only for the clips of the label it matches.
            """)

    @Argument(help: ArgumentHelp("Audio files or folders (with --labels).", valueName: "files-or-folders"))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Ground truth: a DCASE table, or a folder of Audacity label files named like the recordings.", valueName: "tsv|folder"))
    var labels: String?

    @Option(help: ArgumentHelp("Labelled clips: a folder of label-named folders, or a manifest TSV.", valueName: "folder|tsv"))
    var clips: String?

    @Option(help: ArgumentHelp("Dataset label to class mapping.", valueName: "tsv"))
    var map: String?

    @Option(help: ArgumentHelp("Profile to score, or 'all' (with --labels).", valueName: "name|all"))
    var profile = "all"

    @Option(help: "Output format: table, json or csv.")
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Also write each profile's detected events as DCASE tables <folder>/<profile>.tsv.",
                               valueName: "folder"))
    var estimatesOut: String?

    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
        switch (labels, clips) {
        case (nil, nil): throw ValidationError("give --labels (with audio files) or --clips")
        case (.some, .some): throw ValidationError("--labels and --clips are alternatives; give one")
        case (.some, nil) where inputs.isEmpty: throw ValidationError("--labels needs the audio files it labels")
        case (nil, .some) where !inputs.isEmpty: throw ValidationError("--clips takes its audio from the clip folder or manifest")
        default: break
        }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let labelMap = try LabelMapLoading.load(map)
        if let clips {
            // A clip's class is chosen as `classify` chooses it; a night's detections are the alerts'.
            try evaluateClips(clips, analyzer: RecordingAnalyzer(bundle: bundle.choosingClips), map: labelMap)
        } else if let labels {
            try evaluateEvents(labels, analyzer: RecordingAnalyzer(bundle: bundle), map: labelMap)
        }
    }

    private func evaluateEvents(_ labels: String, analyzer: RecordingAnalyzer, map: LabelMap) throws {
        let files = try InputCollector.collectNamed(inputs)
        let reference: [SoundEvent]
        do {
            reference = try AudacityLabels.events(in: labels, for: files)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.nothingDone
        }
        let bundle = analyzer.bundle
        let profiles: [SensitivityProfile]
        if profile == "all" {
            profiles = bundle.profiles.profiles
        } else if let chosen = bundle.profiles.profile(named: profile) {
            profiles = [chosen]
        } else {
            throw ValidationError("unknown profile '\(profile)'; choose one of \(bundle.profiles.profileNames.joined(separator: ", ")) or all")
        }
        var recordings: [(data: RecordingData, results: [ProfileResult])] = []
        var failures = 0
        for (number, file) in files.enumerated() {
            Terminal.progress("[\(number + 1)/\(files.count)] \((file as NSString).lastPathComponent)")
            do {
                let data = try analyzer.analyze(path: file, keeping: .dropped)
                Terminal.warnIfCutShort(data)
                recordings.append((data, analyzer.runProfiles(profiles, on: data)))
            } catch {
                failures += 1
                Terminal.clearProgress()
                Terminal.error(error.description)
            }
        }
        Terminal.clearProgress()
        if recordings.isEmpty {
            Terminal.error("\(files.count == 1 ? "the recording could not" : "none of the \(files.count) recordings could") be analysed; "
                + "nothing to score against \(labels)")
            throw ExitStatus.nothingDone
        }
        let referenceFiles = Set(reference.map(\.file))
        for recording in recordings where !referenceFiles.contains(EventEvaluation.referenceName(of: recording.data.path)) {
            Terminal.error("\(recording.data.path): warning: no events in \(labels); every detection counts as an insertion")
        }
        var evaluation = EventEvaluation()
        evaluation.evaluate(recordings: recordings, reference: reference, map: map)
        for file in evaluation.unmatchedReferenceFiles {
            Terminal.error("\(labels): warning: \(file) is labelled but was not analysed; its events are not scored")
        }
        if let estimatesOut { try writeEstimates(evaluation, to: estimatesOut) }
        switch format {
        case .table: Terminal.output(EvaluationReport.eventsTable(evaluation))
        case .json: Terminal.output(try EvaluationReport.eventsJSON(evaluation))
        case .csv: Terminal.output(EvaluationReport.eventsCSV(evaluation))
        }
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }

    private func writeEstimates(_ evaluation: EventEvaluation, to folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for profile in evaluation.profiles {
                try DCASETable.format(profile.estimated)
                    .write(toFile: (folder as NSString).appendingPathComponent("\(profile.profile).tsv"), atomically: true, encoding: .utf8)
            }
        } catch {
            Terminal.error("\(folder): error: cannot write the detected events: \(error.localizedDescription)")
            throw ExitStatus.nothingDone
        }
    }

    private func evaluateClips(_ location: String, analyzer: RecordingAnalyzer, map: LabelMap) throws {
        let clips: [ClipSource.Clip]
        do {
            clips = try ClipSource.load(location)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
        guard !clips.isEmpty else { throw ValidationError("no labelled clips found in \(location)") }
        var evaluation = ClipEvaluation(map: map)
        var failures = 0
        for (number, clip) in clips.enumerated() {
            Terminal.progress("[\(number + 1)/\(clips.count)] \((clip.path as NSString).lastPathComponent)")
            do {
                let data = try analyzer.analyze(path: clip.path, explicitStart: Date(timeIntervalSince1970: 0), keeping: .levels)
                let verdict = ClassificationSummary.clipVerdict(data, detectionFloor: analyzer.bundle.classifier.detectionFloor)
                evaluation.add(path: clip.path, label: clip.label, detail: clip.detail, predicted: verdict.label,
                               confidence: verdict.confidence)
            } catch {
                failures += 1
                Terminal.clearProgress()
                Terminal.error(error.description)
            }
        }
        Terminal.clearProgress()
        if failures == clips.count {
            Terminal.error((clips.count == 1 ? "the clip of \(location) could not" : "none of the \(clips.count) clips of \(location) could")
                + " be analysed; nothing scored")
            throw ExitStatus.nothingDone
        }
        switch format {
        case .table: Terminal.output(EvaluationReport.clipsTable(evaluation))
        case .json: Terminal.output(try EvaluationReport.clipsJSON(evaluation))
        case .csv: Terminal.output(EvaluationReport.clipsCSV(evaluation))
        }
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }
}
