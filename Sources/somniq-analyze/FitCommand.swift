import ArgumentParser
import Foundation
import SomniqEvaluation
import SomniqFeatures
import SomniqFit
import SomniqModel
import SomniqLabelledAudio
import SomniqPipeline
import SomniqReports
import SomniqSynth

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
            named like the recordings>; a window takes the label of an event that fills half of it or lies half in it.
            --cross-validate K prints scores of models fitted without each of K folds (clips of one source \
            recording stay together), the honest measure of what the fitted model will do.
            """)

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Labelled clips (folders or manifests), or recordings (files and folders) with --labels.", valueName: "path"))
    var clips: [String]

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

    @Option(name: .customLong("model-version"), help: ArgumentHelp("The fitted model's version.", valueName: "version"))
    var modelVersion = "1.0.0"

    @Option(help: ArgumentHelp("Also score K-fold cross-validated predictions.", valueName: "K"))
    var crossValidate: Int?

    @Option(help: "How a class is fitted: boosted (points from many small trees, calibrated) or tree (one tree as rule paths).")
    var method: ModelFitter.Method = .boosted

    @Option(help: "Deepest tree (tests on one path).")
    var maxDepth = 3

    @Option(help: "Trees per class (boosted).")
    var rounds = 300

    @Option(help: "Step size of each boosted tree, (0, 1].")
    var learningRate = 0.1

    @Option(help: ArgumentHelp("Stochastic boosting: the share of the training clips each boosted tree is grown on, (0, 1] (1: all).",
                               valueName: "share"))
    var clipShare = ModelFitter.Options().clipShare

    @Option(help: ArgumentHelp("Stochastic boosting: the share of the features each boosted tree may test, (0, 1] (1: all).",
                               valueName: "share"))
    var featureShare = ModelFitter.Options().featureShare

    @Flag(help: "With --clip-share: draw only each class's own clips; every tree is grown on all of the rest.")
    var drawClassOnly = false

    @Option(help: "Fewest labelled examples (clips or events) to fit a class.")
    var minExamples = 5

    @Option(help: ArgumentHelp("A clip of the rest of a class (not the class) from a source with n such clips weighs n^-P (0: every clip the same; 1: every source the same), 0...1.",
                               valueName: "P"))
    var sourceBalance = ModelFitter.Options().sourceBalance

    @Option(help: ArgumentHelp("The same for a class's own clips: one from a source with n clips of the class weighs n^-P, 0...1 (0: every clip of the class the same).",
                               valueName: "P"))
    var classSourceBalance = ModelFitter.Options().classSourceBalance

    @Option(help: ArgumentHelp("How much more a recorded clip of none of the classes (household, street, body sounds) weighs among the rest of each class, > 0 (1: as much as any other).",
                               valueName: "W"))
    var noneWeight = ModelFitter.Options().noneWeight

    @Option(help: ArgumentHelp("How much an augmented copy weighs beside the recorded clip it was made from, 0...1 (1: as much; 1/N with --augment N: all of a clip's copies together as much as the clip).",
                               valueName: "W"))
    var copyWeight = ModelFitter.Options().copyWeight

    @Flag(help: "Fit each boosted class's calibration on the recorded clips alone, not on their augmented copies.")
    var calibrateOnRecorded = false

    @Flag(help: "Also fit each boosted class a calibration on the recorded clips alone, by which classify and evaluate --clips choose a clip's class (the alerts keep the one fitted on the copies too).")
    var clipCalibration = false

    @Option(help: ArgumentHelp("A feature the fitted trees may not test (repeatable; its name as classify --features prints it), or CLASS:FEATURE to keep it from that class's trees alone.",
                               valueName: "feature"))
    var leaveOutFeature: [String] = []

    @Option(help: ArgumentHelp("A class whose hand-written rule (from --base) stays beside its fitted score, the larger confidence winning (repeatable; default: smoke_detector, snoring, speech).",
                               valueName: "class"))
    var backstop: [String] = []

    @Option(help: ArgumentHelp("Augmented copies of each training clip (other rooms, levels, backgrounds, recorder rates; 0: none).",
                               valueName: "N"))
    var augment = AugmentationRecipe().copies

    @Option(help: ArgumentHelp("Synthesised spells of teeth grinding to learn as none of the classes (with --augment 0: none).",
                               valueName: "N"))
    var teethGrinding = AugmentationRecipe().teethGrinding

    @Option(help: ArgumentHelp("Synthesised walks of footsteps to learn as none of the classes (with --augment 0: none).",
                               valueName: "N"))
    var footsteps = AugmentationRecipe().footsteps

    @Option(help: ArgumentHelp("Synthesised passing cars (a swelling road rumble) to learn as none of the classes (with --augment 0: none).",
                               valueName: "N"))
    var passingCars = AugmentationRecipe().passingCars

    @Option(help: ArgumentHelp("Share of the augmented copies heard through another microphone (a low roll-off, a resonance, a shelf), 0...1.",
                               valueName: "share"))
    var microphones = AugmentationRecipe().microphoneShare

    @Option(help: ArgumentHelp("Share of the copies over a background that hear it alone for 4 s first (the others from the clip's first sample), 0...1.",
                               valueName: "share"))
    var leadShare = AugmentationRecipe().leadShare

    @Option(help: ArgumentHelp("The lowest signal-to-noise ratio a copy over a background is mixed at, dB (the highest is \(Int(AugmentationRecipe().snrDecibels.upperBound)) dB).",
                               valueName: "dB"))
    var minSnr = AugmentationRecipe().snrDecibels.lowerBound

    @Flag(help: "Let the trees test the spectrum's shape band by band (mel_shape_*, mel_shape_std_*, mel_shape_delta_*, octave_flatness_*), which the shipped recipe leaves out.")
    var shapeFeatures = false

    @Flag(help: "Fill a copy longer than its recorded background with stretches of it faded into each other, rather than reading it round (a short room read round repeats at its own length).")
    var stitchBackgrounds = false

    @Option(help: ArgumentHelp("Seed of the augmentation.", valueName: "N"))
    var augmentSeed = AugmentationRecipe().seed

    @Option(help: ArgumentHelp("Recorded backgrounds to mix under the augmented copies (folder or manifest; synthesised rooms are always used); a copy over a background whose label is one of our classes is no counter-example of that class.",
                               valueName: "path"))
    var backgrounds: String?

    @Option(help: ArgumentHelp("Only the backgrounds with this label (repeatable; default: all of --backgrounds).", valueName: "label"))
    var backgroundLabel: [String] = []

    @Flag(help: "Also score each source (the manifest's source column) with a model fitted on the other sources.")
    var leaveOneSourceOut = false

    @Flag(help: "With the scores, the share of clips whose prediction survives another rate, level or background.")
    var invariance = false

    @Option(help: ArgumentHelp("Fit without fold K of N (as --cross-validate N cuts them), for scoring audio built from that fold.",
                               valueName: "K/N"))
    var holdoutFold: String?

    @Option(help: ArgumentHelp("Fit without the clips of this source (the manifest's source column), and without copies over its backgrounds, as --leave-one-source-out fits for it. Repeatable: without each source named.",
                               valueName: "source"))
    var holdoutSource: [String] = []

    @Option(help: ArgumentHelp("With --holdout-fold or --holdout-source, write the held-out clips (path, label, class) to this TSV.",
                               valueName: "tsv"))
    var holdoutList: String?

    /// The formats the scores come in (no CSV: they are nested tables).
    enum ScoresFormat: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Option(help: "Output format of the scores.")
    var format: ScoresFormat = .table

    func validate() throws {
        if out == nil, crossValidate == nil, !leaveOneSourceOut {
            throw ValidationError("give --out to write a model, --cross-validate or --leave-one-source-out to score, or both")
        }
        if !(0...32).contains(augment) { throw ValidationError("--augment must lie in 0...32") }
        if ![teethGrinding, footsteps, passingCars].allSatisfy((0...1000).contains) {
            throw ValidationError("--teeth-grinding, --footsteps and --passing-cars must lie in 0...1000")
        }
        if !(0...1).contains(microphones) { throw ValidationError("--microphones must lie in 0...1 (a share of the copies)") }
        if !(0...1).contains(sourceBalance) { throw ValidationError("--source-balance must lie in 0...1") }
        if !(0...1).contains(classSourceBalance) { throw ValidationError("--class-source-balance must lie in 0...1") }
        if !(noneWeight > 0 && noneWeight.isFinite) { throw ValidationError("--none-weight must be a positive number") }
        if !(copyWeight > 0 && copyWeight <= 1) { throw ValidationError("--copy-weight must lie in (0, 1]") }
        if !(clipShare > 0 && clipShare <= 1) || !(featureShare > 0 && featureShare <= 1) {
            throw ValidationError("--clip-share and --feature-share must lie in (0, 1]")
        }
        if drawClassOnly && clipShare == 1 { throw ValidationError("--draw-class-only needs --clip-share below 1") }
        if !(0...1).contains(leadShare) { throw ValidationError("--lead-share must lie in 0...1 (a share of the copies)") }
        if !(-10...AugmentationRecipe().snrDecibels.upperBound).contains(minSnr) {
            throw ValidationError("--min-snr must lie in -10...\(Int(AugmentationRecipe().snrDecibels.upperBound)) dB")
        }
        if let k = crossValidate, k < 2 { throw ValidationError("--cross-validate needs at least 2 folds") }
        if !(1...6).contains(maxDepth) { throw ValidationError("--max-depth must lie in 1...6") }
        if !(1...1000).contains(rounds) { throw ValidationError("--rounds must lie in 1...1000") }
        if !(learningRate > 0 && learningRate <= 1) { throw ValidationError("--learning-rate must lie in (0, 1]") }
        if let holdoutFold, Self.parseFold(holdoutFold) == nil {
            throw ValidationError("--holdout-fold takes K/N with 0 <= K < N and N >= 2, e.g. 0/5; found '\(holdoutFold)'")
        }
        if holdoutFold != nil, !holdoutSource.isEmpty { throw ValidationError("give --holdout-fold or --holdout-source, not both") }
        if !holdoutSource.isEmpty, labels != nil { throw ValidationError("--holdout-source needs clips from a manifest with a source column, not --labels") }
        if holdoutList != nil, holdoutFold == nil, holdoutSource.isEmpty {
            throw ValidationError("--holdout-list needs --holdout-fold or --holdout-source")
        }
        _ = try Self.fittedFeatures(leavingOut: leaveOutFeature, bandShapes: shapeFeatures)
    }

    /// The features the trees may test: the fitter's own choice (with the band shapes where asked) less those
    /// `--leave-out-feature` names for every class; and, per class, those it names as `CLASS:FEATURE`.
    static func fittedFeatures(leavingOut options: [String], bandShapes: Bool = false) throws
        -> (all: [FeatureID], perClass: [String: Set<FeatureID>]) {
        let chosen = ModelFitter.Options().features
        let fittable = bandShapes ? ModelFitter.Options.withBandShapes(chosen) : chosen
        var names: [String] = [], perClass: [String: Set<FeatureID>] = [:]
        for option in options {
            guard let colon = option.firstIndex(of: ":") else {
                names.append(option)
                continue
            }
            let id = String(option[..<colon]), name = String(option[option.index(after: colon)...])
            if id.isEmpty { throw ValidationError("--leave-out-feature \(option): give FEATURE or CLASS:FEATURE (e.g. snoring:band_ratio_0_250)") }
            guard let feature = fittable.first(where: { $0.rawValue == name }) else { throw Self.unfittable(name, among: fittable) }
            perClass[id, default: []].insert(feature)
        }
        for name in names where !fittable.contains(where: { $0.rawValue == name }) { throw Self.unfittable(name, among: fittable) }
        let kept = fittable.filter { !names.contains($0.rawValue) }
        if kept.isEmpty { throw ValidationError("--leave-out-feature leaves the trees no feature to test") }
        for (id, features) in perClass where kept.allSatisfy(features.contains) {
            throw ValidationError("--leave-out-feature leaves \(id)'s trees no feature to test")
        }
        return (kept, perClass)
    }

    /// Why `name` cannot be left out of the trees (it is not a feature, or not one they test).
    static func unfittable(_ name: String, among fittable: [FeatureID]) -> ValidationError {
        guard let feature = FeatureID(rawValue: name) else {
            return ValidationError("--leave-out-feature \(name): no such feature; the names are those of classify --features "
                                   + "(e.g. mfcc_7, spectral_flatness)")
        }
        precondition(!fittable.contains(feature))
        return ValidationError("--leave-out-feature \(name): the trees never test it (levels, the breathing rhythm, the "
                               + "quiet before, the share above 4 kHz and the alarm pattern are left out, and the band "
                               + "shapes without --shape-features)")
    }

    /// The first line of a held-out list, by which an earlier one is known (and may be written over).
    static let holdoutListHeader = "path\tlabel\tclass\n"

    /// Where --holdout-list may be written: a new file, an earlier list, or a device or pipe (written in place, never
    /// replaced by a file); never a file of another kind, nor one of the clips or manifests given.
    static func checkHoldoutList(clips: [String]) -> (String) throws -> OutputSafety.Destination {
        { path in
            do throws(OutputSafety.Refusal) {
                return try OutputSafety.check(path, database: nil, recordings: clips, force: false, what: "held-out list") {
                    $0.starts(with: Data(holdoutListHeader.utf8))
                }
            } catch {
                let reason = switch error {
                case .notOurs: "the file exists and is not a held-out list fit wrote; name a new file"
                case .recording, .database: "this is one of --clips; writing there would replace it"
                case .notAFile(_, let kind): "this is \(kind), not a file to write"
                }
                throw ValidationError("--holdout-list \(Formatting.printable(path)): \(reason) (nothing was fitted)")
            }
        }
    }

    func run() throws {
        // Checked before any work: the list is written only at the end, after the fit.
        let holdoutDestination = try holdoutList.map(Self.checkHoldoutList(clips: clips))
        let baseBundle = try ModelOptions.load(base)
        for id in backstop where !baseBundle.classifier.classIDs.contains(id) {
            throw ValidationError("--backstop \(id): no such class in the base model; choose from \(baseBundle.classifier.classIDs.joined(separator: ", "))")
        }
        let features = try Self.fittedFeatures(leavingOut: leaveOutFeature, bandShapes: shapeFeatures)
        for id in features.perClass.keys.sorted() where !baseBundle.classifier.classIDs.contains(id) {
            throw ValidationError("--leave-out-feature \(id):…: the base model has no class \(id); choose from "
                                  + baseBundle.classifier.classIDs.joined(separator: ", "))
        }
        for id in features.perClass.keys.sorted() where ModelFitter.Options().keep.contains(id) {
            throw ValidationError("--leave-out-feature \(id):…: \(id) keeps its hand-written rule and has no trees")
        }
        let labelMap = try LabelMapLoading.load(map)
        let builder = FitDataBuilder(analyzer: RecordingAnalyzer(bundle: baseBundle), map: labelMap)
        let dataset: FitDataset
        var failures = 0
        var augmentation: (recipe: AugmentationRecipe, backgrounds: [Background])?
        if let labels {
            let files = InputCollector.collect(clips)
            let events: [SoundEvent]
            do {
                events = try AudacityLabels.events(in: labels, for: files)
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.nothingDone
            }
            Self.warnOfUnmapped(events.filter { event in files.contains { ($0 as NSString).lastPathComponent == event.file } }
                                    .map { (label: $0.label, detail: nil, path: nil) },
                                map: labelMap, model: baseBundle.classifier, what: "event")
            dataset = builder.fromEvents(files: files, events: events, progress: { Terminal.progress("analysing \($0 + 1)/\(files.count)") },
                                         failure: { failures += 1; Terminal.error($0.description) })
        } else {
            var clipList: [ClipSource.Clip] = []
            for source in clips {
                // A clip file alone has no label: labelled clips come in label-named folders or a manifest.
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), !isFolder.boolValue,
                   InputCollector.hasAudioExtension(source) {
                    throw ValidationError("--clips \(source): a clip file carries no label; give a folder of label-named folders "
                                          + "or a manifest (path and label columns), or label recordings with --labels")
                }
                do {
                    clipList += try ClipSource.load(source)
                } catch {
                    Terminal.error(error.description)
                    throw ExitStatus.nothingDone
                }
            }
            Self.warnOfUnmapped(clipList.map { (label: $0.label, detail: $0.detail, path: $0.path) }, map: labelMap,
                                model: baseBundle.classifier, what: "clip")
            let known = Set(clipList.compactMap(\.source)).sorted()
            if let unknown = holdoutSource.first(where: { !known.contains($0) }) {
                throw ValidationError("--holdout-source \(unknown): no clip has this source; "
                    + (known.isEmpty ? "the clips come without a source column" : "choose from \(known.joined(separator: ", "))"))
            }
            var recipe = AugmentationRecipe()
            recipe.copies = augment
            recipe.teethGrinding = teethGrinding
            recipe.footsteps = footsteps
            recipe.passingCars = passingCars
            recipe.microphoneShare = microphones
            recipe.seed = augmentSeed
            recipe.leadShare = leadShare
            recipe.snrDecibels = minSnr...recipe.snrDecibels.upperBound
            if stitchBackgrounds { recipe.backgroundExtension = .stitched }
            var backgroundPool = Background.synthesised
            if let backgrounds {
                do {
                    let listed = try ClipSource.load(backgrounds).filter { backgroundLabel.isEmpty || backgroundLabel.contains($0.label) }
                    backgroundPool = FitDataBuilder.backgrounds(listed, map: labelMap, failure: { Terminal.error($0.description) })
                } catch {
                    Terminal.error(error.description)
                    throw ExitStatus.nothingDone
                }
            }
            augmentation = (recipe, backgroundPool)
            dataset = builder.fromClips(clipList, augmentation: recipe, backgrounds: backgroundPool, probes: invariance,
                                        progress: { Terminal.progress("analysing \($0 + 1)/\(clipList.count)") },
                                        failure: { failures += 1; Terminal.error($0.description) })
        }
        Terminal.clearProgress()
        guard !dataset.clips.isEmpty else {
            throw ValidationError("no labelled audio could be read from \(clips.joined(separator: ", "))")
        }

        var options = ModelFitter.Options()
        options.method = method
        options.maxDepth = maxDepth
        options.rounds = rounds
        options.learningRate = learningRate
        options.clipShare = clipShare
        options.featureShare = featureShare
        options.drawsClassOnly = drawClassOnly
        options.minExamples = minExamples
        options.sourceBalance = sourceBalance
        options.classSourceBalance = classSourceBalance
        options.noneWeight = noneWeight
        options.copyWeight = copyWeight
        options.calibrateOnRecorded = calibrateOnRecorded
        options.clipCalibration = clipCalibration
        options.features = features.all
        options.featuresLeftOut = features.perClass
        if !backstop.isEmpty { options.backstops = Set(backstop) }
        let fitter = ModelFitter(options: options)
        var scoresText = ""
        /// A clip whose prediction a perturbation changed (which clips, and into what, is what a share cannot say).
        struct ProbeChange: Encodable { var path: String, label: String, predicted: String, probe: String, probePredicted: String }
        var sections: [(title: String, evaluation: ClipEvaluation, invariance: [(String, Double)], changes: [ProbeChange])] = []
        func evaluate(_ predictions: [Int: CrossValidation.Prediction]) -> (ClipEvaluation, [(String, Double)], [ProbeChange]) {
            var evaluation = ClipEvaluation(map: labelMap)
            var changes: [ProbeChange] = []
            var probed = 0
            for index in predictions.keys.sorted() {
                let clip = dataset.clips[index], prediction = predictions[index]!
                if clip.eventLabelled {
                    // A recording labelled by events is scored window by window: each window's label (the class of an
                    // event it holds, or none; FitDataBuilder.windowHolds) against its top class.
                    for (window, predicted) in prediction.windows.enumerated() where clip.used[window] {
                        evaluation.add(path: "\(clip.path)@\(AnalysisGrid.windowStartSeconds(window))s",
                                       label: clip.windowClasses[window] ?? LabelMap.noneOfOurs, predicted: predicted.label,
                                       confidence: predicted.confidence)
                    }
                    continue
                }
                evaluation.add(path: clip.path, label: clip.label, detail: clip.detail, predicted: prediction.label,
                               confidence: prediction.confidence)
                guard !prediction.probeLabels.isEmpty else { continue }
                probed += 1
                for (probe, label) in prediction.probeLabels.enumerated() where label != prediction.label {
                    changes.append(ProbeChange(path: clip.path, label: clip.label, predicted: prediction.label,
                                               probe: FitDataBuilder.invarianceProbes[probe].0, probePredicted: label))
                }
            }
            let shares = probed == 0 ? [] : FitDataBuilder.invarianceProbes.map { name, _ in
                (name, Double(probed - changes.count { $0.probe == name }) / Double(probed))
            }
            return (evaluation, shares, changes)
        }
        // A fold's clips scored by the base model as it is (no class had enough examples without them) say nothing of
        // the fit: said on stderr, with how to have scores that do.
        // What is scored (a clip, or a recording labelled by events), and what stays in one fold.
        let unit = labels == nil ? "clip" : "recording", group = labels == nil ? "source recording" : "recording"
        func warnOfUnfitted(_ clips: Int, _ scored: Int, _ what: String) {
            guard clips > 0 else { return }
            Terminal.error("fit: warning: \(what): for \(clips) of \(Formatting.counted(scored, "scored \(unit)")), no class had "
                + "--min-examples \(minExamples) examples without them, so the base model "
                + "(\(baseBundle.classifier.name)@\(baseBundle.classifier.version)) scored them as it is: those scores are "
                + "its, not the fit's; label more \(unit)s")
        }
        if let folds = crossValidate {
            // Clips of one group (a source recording; with --labels, each recording) stay in one fold.
            let groups = Set(dataset.clips.filter { !$0.augmented }.map(\.group)).count
            guard groups >= 2 else {
                throw ValidationError("--cross-validate \(folds): the data holds \(Formatting.counted(groups, group)), "
                    + "and each stays in one fold, so no fold can be scored by a model fitted on the rest; label a second one, "
                    + "or leave out --cross-validate")
            }
            if groups < folds {
                Terminal.error("fit: warning: --cross-validate \(folds): only \(groups) \(group)s, "
                    + "each kept in one fold, so \(groups) folds are scored")
            }
            var unfitted = 0
            let predictions = CrossValidation.run(dataset, folds: folds, fitter: fitter, base: baseBundle.classifier,
                                                  unfitted: { unfitted += $0.count })
            warnOfUnfitted(unfitted, predictions.count, "--cross-validate \(folds)")
            let (evaluation, shares, changes) = evaluate(predictions)
            sections.append((labels == nil ? "\(min(folds, groups))-fold cross-validation (clips of one source recording in one fold)"
                                : "\(min(folds, groups))-fold cross-validation (each recording in one fold, scored window by window)", evaluation, shares, changes))
        }
        if leaveOneSourceOut {
            var unfitted = 0
            let predictions = CrossValidation.leaveOneSourceOut(dataset, fitter: fitter, base: baseBundle.classifier,
                                                                unfitted: { unfitted += $0.count })
            warnOfUnfitted(unfitted, predictions.count, "--leave-one-source-out")
            let (evaluation, shares, changes) = evaluate(predictions)
            sections.append(("leave one source out (each source scored by a model fitted on the others)", evaluation, shares, changes))
        }
        if !sections.isEmpty {
            if format == .json {
                var parts: [String] = []
                for (title, evaluation, shares, changes) in sections {
                    let key = title.hasPrefix("leave") ? "leaveOneSourceOut" : "kFold"
                    let invarianceJSON = "{" + shares.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
                    parts.append("\"\(key)\": \(try EvaluationReport.clipsJSON(evaluation)),\n\"\(key)Invariance\": \(invarianceJSON),\n"
                                 + "\"\(key)InvarianceChanges\": \(try JSONOutput.encode(changes))")
                }
                scoresText = "{\n" + parts.joined(separator: ",\n") + "\n}\n"
            } else {
                for (title, evaluation, shares, _) in sections {
                    scoresText += title + "\n" + EvaluationReport.clipsTable(evaluation, windows: labels != nil)
                    if !shares.isEmpty {
                        scoresText += "clips whose prediction is unchanged:\n"
                        for (name, share) in shares { scoresText += "  \(name): \(String(format: "%.1f", 100 * share))%\n" }
                    }
                    scoresText += "\n"
                }
            }
            Terminal.output(scoresText)
        }
        var training = Array(dataset.clips.indices)
        var heldOut: (split: (scored: [Int], training: [Int]), what: String)?
        if let (fold, folds) = holdoutFold.flatMap(Self.parseFold) {
            heldOut = (CrossValidation.holdout(dataset, fold: fold, of: folds), "fold \(fold) of \(folds)")
        } else if !holdoutSource.isEmpty {
            let split = CrossValidation.holdout(dataset, sources: Set(holdoutSource))
            let named = holdoutSource.joined(separator: ", ")
            guard !split.scored.isEmpty else {
                Terminal.error("--holdout-source \(named): error: none of the clips of \(holdoutSource.count == 1 ? "this source" : "these sources") could be read, so no model was written")
                throw ExitStatus.nothingDone
            }
            heldOut = (split, (holdoutSource.count == 1 ? "source " : "sources ") + named)
        }
        if let (split, what) = heldOut {
            training = split.training
            Terminal.error("holding out \(what): \(split.scored.count) clips; fitting on \(training.count) (copies included)")
            if let holdoutList {
                var text = Self.holdoutListHeader
                for index in split.scored {
                    let clip = dataset.clips[index]
                    // A mixed bag's clip may hold one of our classes, which one not known: class "?".
                    text += "\(clip.path)\t\(LabelMap.label(clip.label, detail: clip.detail))\t\(clip.uncertainClasses.isEmpty ? clip.classID ?? "" : "?")\n"
                }
                do {
                    let sink = try holdoutDestination == .stream ? ByteSink.stream(holdoutList) : ByteSink.file(holdoutList)
                    sink.write(text)
                    try sink.finish()
                } catch {
                    Terminal.error("\(holdoutList): error: cannot write the held-out list: \(error.localizedDescription)")
                    throw ExitStatus.nothingDone
                }
            }
        }
        guard let out else { return }
        let (fitted, reports) = fitter.fit(dataset, clipIndices: training, base: baseBundle.classifier)
        // In a recording labelled by events, what no event covers is one example of `other` (none of ours) a recording.
        let notFitted = reports.filter { !$0.fitted && $0.classID != "silence" }.map { report in
            let examples = labels != nil && report.classID == TopClass.other
                ? "the unmarked time of \(Formatting.counted(report.positiveExamples, "recording"))"
                : Formatting.counted(report.positiveExamples, "example")
            return "\(report.classID) (\(examples): \(report.note))"
        }
        guard reports.contains(where: \.fitted) else {
            Terminal.error("\(out): error: no class could be fitted, so no model was written: "
                + "\(notFitted.joined(separator: ", ")); label at least --min-examples \(minExamples) examples of a class "
                + "(clips, or events with --labels), or lower --min-examples")
            throw ExitStatus.nothingDone
        }
        var model = fitted
        model.name = name ?? (out as NSString).lastPathComponent
        model.version = modelVersion
        let recordings = dataset.clips.filter { !$0.augmented }.count
        model.description = "Fitted by `somniq-analyze fit` on \(recordings) labelled recordings from \(baseBundle.classifier.name)@"
            + "\(baseBundle.classifier.version); see README.md in this folder."
        do {
            try ModelWriter.write(model: model, profiles: baseBundle, to: out, reports: reports,
                                  augmentation: augmentation.map { "\($0.recipe.summary); \(Background.poolSummary($0.backgrounds))" },
                                  sourceBalance: options.sourceBalance,
                                  mixedBags: dataset.clips.filter { !$0.augmented && !$0.uncertainClasses.isEmpty }.count,
                                  command: "somniq-analyze " + CommandLine.arguments.dropFirst().joined(separator: " "),
                                  clips: recordings, scores: format == .table ? scoresText : nil)
        } catch {
            Terminal.error("\(out): error: cannot write the model: \(error.localizedDescription)")
            throw ExitStatus.nothingDone
        }
        Terminal.error("wrote \(out)/model.json: fitted " + reports.filter { $0.fitted }.map { "\($0.classID) (\($0.paths) \(method == .tree ? "paths" : "trees"))" }.joined(separator: ", ")
            + (notFitted.isEmpty ? "" : "; kept from the base model: " + notFitted.joined(separator: ", ")))
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }

    /// `K/N` as (K, N), when 0 <= K < N and N >= 2.
    static func parseFold(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 2, (0..<parts[1]).contains(parts[0]) else { return nil }
        return (parts[0], parts[1])
    }

    /// Names each label that the label map leaves at a name no class of the model has: its audio then trains as none of
    /// the classes, which a typo or a dataset's own spelling would otherwise do silently.
    static func warnOfUnmapped(_ labelled: [(label: String, detail: String?, path: String?)], map: LabelMap, model: ClassifierModel,
                               what: String) {
        let known = Set(model.classIDs)
        var counts: [String: Int] = [:]
        for item in labelled {
            guard case .classes(let ids) = map.target(for: item.label, detail: item.detail, path: item.path),
                  !ids.contains(where: known.contains) else { continue }
            counts[item.label, default: 0] += 1
        }
        for (label, count) in counts.sorted(by: { $0.key < $1.key }) {
            Terminal.error("fit: warning: label '\(Formatting.printable(label))' (\(Formatting.counted(count, what))) is no class of the model and the "
                           + "label map gives it none, so it trains as none of the classes; map it with --map (a line: "
                           + "label<TAB>class, or label<TAB>none) or check its spelling")
        }
    }
}
