import Foundation
import SomniqEvaluation
import SomniqModel
import Testing

@Suite struct FitCommandTests {
    /// Labelled synthetic clips: snores and alarms in label-named folders, room noise as "other".
    func makeClips(_ scratch: Scratch) throws -> String {
        for (label, kind) in [("snoring", "snore"), ("alarm", "alarm"), ("other", "room")] {
            try FileManager.default.createDirectory(atPath: scratch.file("clips/\(label)"), withIntermediateDirectories: true)
            for seed in 1...6 {
                let made = try CommandRunner.run(["signal", kind, "--seconds", "3", "--level=-\(18 + seed)", "--seed", String(seed),
                                                  "--output", scratch.file("clips/\(label)/\(label)-\(seed).wav")], product: "somniq-synth")
                #expect(made.status == 0)
            }
        }
        try "alarm\tsmoke_detector\nother\t\n".write(toFile: scratch.file("map.tsv"), atomically: true, encoding: .utf8)
        return scratch.file("clips")
    }

    @Test func writesAModelThatLoadsAndCrossValidates() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        let out = scratch.file("models/bedroom")
        let result = try CommandRunner.run(["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--out", out,
                                            "--cross-validate", "3", "--min-examples", "3", "--max-depth", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("3-fold cross-validation"))
        #expect(result.stderr.contains("snoring ("))
        for file in ["model.json", "profiles.json", "README.md"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file)")
        }
        let model = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/model.json"))) as! [String: Any]
        #expect(model["name"] as? String == "bedroom")
        let snoring = (model["classes"] as! [[String: Any]]).first { $0["id"] as? String == "snoring" }!
        // The default method writes boosted trees as a calibrated points score.
        let score = try #require(snoring["score"] as? [String: Any])
        #expect((score["trees"] as? [Any])?.count == 300, "fit's default is 300 rounds")
        #expect((score["calibration"] as? [String: Any])?["slope"] != nil)
        let readme = try String(contentsOfFile: out + "/README.md", encoding: .utf8)
        #expect(readme.contains("somniq-analyze fit --clips"))

        // The fitted model is a model like any other: it classifies.
        let classes = try CommandRunner.run(["classes", "--model", out])
        #expect(classes.status == 0)
        #expect(!classes.stdout.contains("heard: P / R"), "a fitted model has no report card until one is made")
        let classified = try CommandRunner.run(["classify", scratch.file("clips/snoring/snoring-1.wav"), "--model", out, "--format", "json"])
        #expect(classified.status == 0)

        // Fitting the same data again writes the same model.
        let again = scratch.file("models/again")
        // A card left in the folder described the model replaced: it goes with it.
        try FileManager.default.createDirectory(atPath: again, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CommandRunner.root + "/models/default/quality.tsv", toPath: again + "/quality.tsv")
        _ = try CommandRunner.run(["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--out", again, "--name", "bedroom",
                                   "--min-examples", "3", "--max-depth", "2"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: again + "/model.json")) == Data(contentsOf: URL(fileURLWithPath: out + "/model.json")))
        #expect(!FileManager.default.fileExists(atPath: again + "/quality.tsv"))

        // --method tree writes one tree as rule paths instead.
        let tree = scratch.file("models/tree")
        #expect(try CommandRunner.run(["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--out", tree, "--method", "tree",
                                       "--min-examples", "3", "--max-depth", "2"]).status == 0)
        let treeModel = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tree + "/model.json"))) as! [String: Any]
        let treeSnoring = (treeModel["classes"] as! [[String: Any]]).first { $0["id"] as? String == "snoring" }!
        #expect((treeSnoring["paths"] as? [Any])?.isEmpty == false)
        #expect(treeSnoring["score"] == nil)
    }

    /// A mixed bag (`~classes` in the map, for the files a pattern names) trains none of the classes it may hold; the
    /// model's README says how many clips the bags held.
    @Test func aMixedBagTrainsNoneOfItsClassesAndTheReadmeSaysHowManyClipsItHolds() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        try "alarm\tsmoke_detector\nother\t\nother\t~smoke_detector\tother-[123].wav\n"
            .write(toFile: scratch.file("bag.tsv"), atomically: true, encoding: .utf8)
        var alarms: [String: Data] = [:]
        for map in ["map.tsv", "bag.tsv"] {
            let out = scratch.file("models/\(map)")
            let result = try CommandRunner.run(["fit", "--clips", clips, "--map", scratch.file(map), "--out", out, "--min-examples", "3",
                                                "--max-depth", "2", "--rounds", "5", "--augment", "0"])
            #expect(result.status == 0, "\(result.stderr)")
            let readme = try String(contentsOfFile: out + "/README.md", encoding: .utf8)
            #expect(readme.contains("Mixed bags: 3 clips") == (map == "bag.tsv"), "\(map)")
            #expect(readme.contains("| other | yes | 6 |"), "\(map): the bag's clips are still examples of other")
            let model = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/model.json"))) as! [String: Any]
            for name in ["smoke_detector", "snoring"] {
                let definition = (model["classes"] as! [[String: Any]]).first { $0["id"] as? String == name }!
                alarms["\(map) \(name)"] = try JSONSerialization.data(withJSONObject: definition, options: .sortedKeys)
            }
        }
        #expect(alarms["map.tsv smoke_detector"] != alarms["bag.tsv smoke_detector"], "three counter-examples fewer for the alarm")
        #expect(alarms["map.tsv snoring"] == alarms["bag.tsv snoring"], "the same counter-examples for snoring")
    }

    /// `--clips` takes recording files (and folders) with `--labels`; each labelled event, not each recording, is an
    /// example towards `--min-examples`; a label that is no class and that the map does not map is named in a warning;
    /// a clip file without labels is refused with what to give instead (#46).
    @Test func recordingFilesEventsAsExamplesAndUnmappedLabelsNamed() throws {
        let scratch = Scratch()
        let night = try CommandRunner.run(["night", "--output", scratch.file("n.wav"), "--labels", scratch.file("n.tsv"),
                                           "--sample-rate", "8000"], product: "somniq-synth")
        #expect(night.status == 0)
        // The night's 50 s of rain labelled as three events, and its snoring under a dataset's own spelling.
        let truth = try String(contentsOfFile: scratch.file("n.tsv"), encoding: .utf8)
        #expect(truth.contains("\t182.000\t232.000\train"), "the synthesised night's rain, as the test expects it")
        let relabelled = truth.split(whereSeparator: \.isNewline).filter { !$0.hasSuffix("\train") }
            .map { $0.replacingOccurrences(of: "\tsnoring", with: "\tsnore") }
            + ["n.wav\t184\t194\train", "n.wav\t200\t210\train", "n.wav\t216\t226\train"]
        try (relabelled.joined(separator: "\n") + "\n").write(toFile: scratch.file("labels.tsv"), atomically: true, encoding: .utf8)
        let copy = scratch.file("copy.wav")
        try FileManager.default.copyItem(atPath: scratch.file("n.wav"), toPath: copy)
        let fit = try CommandRunner.run(["fit", "--clips", scratch.file("n.wav"), scratch.file("missing.wav"), "--labels", scratch.file("labels.tsv"),
                                         "--out", scratch.file("fitted"), "--min-examples", "3", "--rounds", "5"])
        #expect(fit.status == 1, "one listed file is missing: \(fit.stderr)")
        #expect(fit.stderr.contains("rain (5 trees)"), "three events of one recording are three examples: \(fit.stderr)")
        let readme = try String(contentsOfFile: scratch.file("fitted/README.md"), encoding: .utf8)
        #expect(readme.contains("| rain | yes | 3 |"), "\(readme)")
        #expect(fit.stderr.contains("fit: warning: label 'snore' (1 event) is no class of the model"), "\(fit.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("fitted/model.json")))

        let lone = try CommandRunner.run(["fit", "--clips", copy, "--out", scratch.file("x")])
        #expect(lone.status == 64)
        #expect(lone.stderr.contains("a clip file carries no label"), "\(lone.stderr)")
    }

    @Test func fitsFromEventLabelledRecordingsAndAudacityLabels() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("nights"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("labels"), withIntermediateDirectories: true)
        let night = try CommandRunner.run(["night", "--output", scratch.file("nights/night.wav"), "--labels", scratch.file("night.tsv"),
                                           "--sample-rate", "8000"], product: "somniq-synth")
        #expect(night.status == 0)
        // The same ground truth as an Audacity label track beside nothing but the recording's name.
        let audacity = AudacityLabels.format(try DCASETable.parse(contentsOf: scratch.file("night.tsv")))
        try audacity.write(toFile: scratch.file("labels/night.txt"), atomically: true, encoding: .utf8)
        for labels in [scratch.file("night.tsv"), scratch.file("labels")] {
            let result = try CommandRunner.run(["fit", "--clips", scratch.file("nights"), "--labels", labels, "--out", scratch.file("fitted"),
                                                "--min-examples", "1"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("smoke_detector ("), "\(result.stderr)")
            // The night's two coughs of 0.35 s each fill no window half, yet are its examples.
            let fitted = result.stderr.components(separatedBy: "; kept from the base model")[0]
            #expect(fitted.contains(" cough ("), "\(result.stderr)")
        }
    }

    /// `--invariance` reports, per perturbation, the share of clips whose prediction survives it, and names every clip
    /// it changed and into what: the two agree, clip for clip. The clips are snores and coughs with snores labelled as
    /// coughs among them, so that predictions hang on details and some perturbations change some.
    @Test func invarianceNamesTheClipsEachPerturbationChanged() throws {
        let scratch = Scratch()
        for (label, kind, seeds) in [("snoring", "snore", 1...6), ("cough", "cough", 1...3), ("cough", "snore", 7...9)] {
            try FileManager.default.createDirectory(atPath: scratch.file("clips/\(label)"), withIntermediateDirectories: true)
            for seed in seeds {
                #expect(try CommandRunner.run(["signal", kind, "--seconds", "3", "--level=-\(18 + seed)", "--seed", String(seed),
                                               "--output", scratch.file("clips/\(label)/\(kind)-\(seed).wav")],
                                              product: "somniq-synth").status == 0)
            }
        }
        let result = try CommandRunner.run(["fit", "--clips", scratch.file("clips"), "--cross-validate", "2", "--min-examples", "3",
                                            "--rounds", "10", "--augment", "0", "--invariance", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let shares = try #require(report["kFoldInvariance"] as? [String: Double])
        let changes = try #require(report["kFoldInvarianceChanges"] as? [[String: String]])
        let predictions = (report["kFold"] as? [String: Any])?["predictions"] as? [[String: Any]] ?? []
        #expect(predictions.count == 12)
        #expect(Set(shares.keys) == ["8 kHz", "16 kHz", "44.1 kHz", "48 kHz", "-10 dB", "+10 dB", "room at 10 dB SNR",
                                      "room at 10 dB SNR after 4 s of it", "another microphone",
                                      "1 s of digital silence after it", "1 s of digital silence before it",
                                      "a DC offset of 1% of full scale"])
        #expect(!changes.isEmpty, "no perturbation changed any prediction: \(shares)")
        let predicted = Dictionary(uniqueKeysWithValues: predictions.map { ($0["path"] as! String, $0["predicted"] as! String) })
        for (probe, share) in shares {
            let changed = changes.filter { $0["probe"] == probe }
            #expect(changed.count == Int((Double(predictions.count) * (1 - share)).rounded()), "\(probe): \(share), \(changed.count) changed")
            for change in changed {
                #expect(predicted[change["path"] ?? ""] == change["predicted"], "\(change)")
                #expect(change["probePredicted"] != change["predicted"], "\(change)")
            }
        }
    }

    /// Found as a new user would: a folder named `other` (everyday sounds, none of ours), without a label map, was read as
    /// a class of its own, and so taught the `other` class nothing ("other (0 examples: no examples; kept as written)").
    /// It is none of ours, as the development set's map says: its clips fit `other`, and `evaluate --clips` counts silence
    /// or `other` right for them and any class of ours a false alarm.
    @Test func aFolderNamedOtherTeachesTheOtherClassWithoutAMap() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        let fitted = try CommandRunner.run(["fit", "--clips", clips, "--out", scratch.file("mine"), "--min-examples", "3",
                                            "--rounds", "5", "--augment", "0"])
        #expect(fitted.status == 0, "\(fitted.stderr)")
        #expect(LabelMap.noneOfOurs == TopClass.other)
        #expect(fitted.stderr.contains(" other (5 trees)") && !fitted.stderr.contains("other (0 examples"), "\(fitted.stderr)")

        let scored = try CommandRunner.run(["evaluate", "--clips", clips, "--format", "json",
                                            "--model", CommandRunner.root + "/models/default"])
        #expect(scored.status == 0, "\(scored.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(scored.stdout.utf8)) as? [String: Any] ?? [:]
        let predictions = (report["predictions"] as? [[String: Any]] ?? []).filter { $0["label"] as? String == "other" }
        #expect(predictions.count == 6 && report["noneOfOurs"] as? Int == 6, "\(report)")
        for prediction in predictions {
            let predicted = prediction["predicted"] as? String ?? ""
            #expect(prediction["correct"] as? Bool == ["silence", "other", "unclassified"].contains(predicted), "\(prediction)")
        }
        #expect(report["noneOfOursTakenForOurs"] as? Int
                == predictions.count { !["silence", "other", "unclassified"].contains($0["predicted"] as? String ?? "") })
        #expect((report["classWise"] as? [String: Any])?["other"] == nil, "`other` is no class a label can hold")
    }

    /// Two event-labelled nights, cross-validated: scored window by window against their labels (never file names as
    /// classes); and labels too few for any class: nothing is written, the tool says what was not fitted and why.
    /// Two synthesised four-minute nights at 8 kHz in `nights/`, their events in one DCASE table, `labels.tsv`.
    func makeLabelledNights(_ scratch: Scratch) throws {
        try FileManager.default.createDirectory(atPath: scratch.file("nights"), withIntermediateDirectories: true)
        for seed in 1...2 {
            #expect(try CommandRunner.run(["night", "--output", scratch.file("nights/night\(seed).wav"), "--labels",
                                           scratch.file("labels\(seed).tsv"), "--sample-rate", "8000", "--seed", String(seed)],
                                          product: "somniq-synth").status == 0)
        }
        let tables = try (1...2).map { try String(contentsOfFile: scratch.file("labels\($0).tsv"), encoding: .utf8) }
        try (tables[0] + tables[1].split(separator: "\n").dropFirst().joined(separator: "\n") + "\n")
            .write(toFile: scratch.file("labels.tsv"), atomically: true, encoding: .utf8)
    }

    @Test func eventLabelledNightsCrossValidateByWindowAndTooFewLabelsFail() throws {
        let scratch = Scratch()
        try makeLabelledNights(scratch)
        let scored = try CommandRunner.run(["fit", "--clips", scratch.file("nights"), "--labels", scratch.file("labels.tsv"),
                                            "--cross-validate", "2", "--min-examples", "1", "--rounds", "10", "--format", "json"])
        #expect(scored.status == 0, "\(scored.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(scored.stdout.utf8)) as? [String: Any] ?? [:]
        let kFold = report["kFold"] as? [String: Any] ?? [:]
        let predictions = kFold["predictions"] as? [[String: Any]] ?? []
        let labels = Set(predictions.compactMap { $0["label"] as? String })
        #expect(predictions.count > 800, "two four-minute nights, a window every half second")
        #expect(!labels.contains("night1.wav") && !labels.contains("night2.wav") && labels.contains("snoring"), "\(labels)")
        #expect((kFold["accuracy"] as? Double ?? 0) > 0.5, "\(kFold["accuracy"] ?? "none")")
        // A window no event covers is none of ours: heard as silence or `other` it is right, as one of ours a false alarm,
        // and the share of such windows taken for ours is counted.
        let unmarked = predictions.filter { $0["label"] as? String == "other" }
        #expect(unmarked.count > 200 && kFold["noneOfOurs"] as? Int == unmarked.count, "\(unmarked.count)")
        #expect(unmarked.contains { $0["predicted"] as? String == "silence" }, "a quiet stretch of the night")
        for window in unmarked {
            let predicted = window["predicted"] as? String ?? ""
            #expect(window["correct"] as? Bool == ["silence", "other", "unclassified"].contains(predicted), "\(window)")
        }
        #expect(kFold["noneOfOursTakenForOurs"] as? Int
                == unmarked.count { !["silence", "other", "unclassified"].contains($0["predicted"] as? String ?? "") })

        // One labelled second of one class: too few to fit anything.
        try "filename\tonset\toffset\tevent_label\nnight1.wav\t10.0\t11.0\tsnoring\n"
            .write(toFile: scratch.file("few.tsv"), atomically: true, encoding: .utf8)
        let few = try CommandRunner.run(["fit", "--clips", scratch.file("nights/night1.wav"), "--labels", scratch.file("few.tsv"),
                                         "--out", scratch.file("mine")])
        #expect(few.status == 2, "\(few.stderr)")
        #expect(few.stderr.contains("no class could be fitted, so no model was written") && few.stderr.contains("snoring (1 example: ")
            && few.stderr.contains("--min-examples 5"), "\(few.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("mine")))
    }

    /// Found as a new user would, fitting to one labelled night: `--cross-validate 2` printed "2-fold cross-validation"
    /// with the scores of the base model (a model fitted on nothing but the other, empty fold), tabled as "clips"
    /// under the clip rule. Now one recording is refused, fewer recordings than folds are said, folds without which
    /// no class could be fitted are named as the base model's scores, and windows are called windows.
    @Test func crossValidationSaysWhatItCouldNotScore() throws {
        let scratch = Scratch()
        try makeLabelledNights(scratch)
        let one = try CommandRunner.run(["fit", "--clips", scratch.file("nights/night1.wav"), "--labels", scratch.file("labels.tsv"),
                                         "--cross-validate", "2", "--out", scratch.file("mine")])
        #expect(one.status == 64 && one.stderr.contains("--cross-validate 2: the data holds 1 recording, and each stays in one fold"),
                "\(one.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("mine")))

        let unfitted = try CommandRunner.run(["fit", "--clips", scratch.file("nights"), "--labels", scratch.file("labels.tsv"),
                                              "--cross-validate", "3", "--min-examples", "1000"])
        #expect(unfitted.status == 0, "\(unfitted.stderr)")
        #expect(unfitted.stderr.contains("--cross-validate 3: only 2 recordings, each kept in one fold, so 2 folds are scored"),
                "\(unfitted.stderr)")
        #expect(unfitted.stderr.contains("for 2 of 2 scored recordings, no class had --min-examples 1000 examples without them, "
                                         + "so the base model (") && unfitted.stderr.contains(") scored them as it is"),
                "\(unfitted.stderr)")
        #expect(unfitted.stdout.hasPrefix("2-fold cross-validation (each recording in one fold, scored window by window)\nWindow rule: "),
                "\(unfitted.stdout.prefix(300))")
        #expect(unfitted.stdout.contains(" windows scored, accuracy ") && !unfitted.stdout.contains("clips scored"))

        let fitted = try CommandRunner.run(["fit", "--clips", scratch.file("nights"), "--labels", scratch.file("labels.tsv"),
                                            "--cross-validate", "2", "--min-examples", "1", "--rounds", "10"])
        #expect(fitted.status == 0 && !fitted.stderr.contains("warning"), "\(fitted.stderr)")
    }

    /// `--version` is the tool's everywhere; the fitted model's version is `--model-version`.
    @Test func versionIsTheToolsAndModelVersionTheModels() throws {
        let version = try CommandRunner.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
        let fitVersion = try CommandRunner.run(["fit", "--version"])
        #expect(fitVersion.status == 0 && fitVersion.stdout == version.stdout, "\(fitVersion.stderr)")
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        let out = scratch.file("versioned")
        #expect(try CommandRunner.run(["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--out", out, "--min-examples", "3",
                                       "--rounds", "5", "--model-version", "3.1.4"]).status == 0)
        let model = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/model.json"))) as? [String: Any]
        #expect(model?["version"] as? String == "3.1.4")
    }

    /// Every feature a fitted score's trees test, with how often.
    func testedFeatures(_ modelFolder: String) throws -> [String: Int] {
        let model = try JSONDecoder().decode(ClassifierModel.self, from: Data(contentsOf: URL(fileURLWithPath: modelFolder + "/model.json")))
        var counts: [String: Int] = [:]
        func walk(_ node: ScoreTree) {
            guard case .test(let feature, _, _, let below, let above) = node else { return }
            counts[feature.rawValue, default: 0] += 1
            walk(below)
            walk(above)
        }
        for definition in model.classes { definition.score?.trees.forEach(walk) }
        return counts
    }

    /// `--leave-out-feature` keeps a feature out of every fitted tree (here the one the trees test most when free to), and
    /// names its mistakes: a feature that does not exist, or one the trees never test anyway.
    @Test func aLeftOutFeatureIsTestedByNoTree() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        let common = ["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--min-examples", "3", "--rounds", "10", "--augment", "0"]
        #expect(try CommandRunner.run(common + ["--out", scratch.file("free")]).status == 0)
        let free = try testedFeatures(scratch.file("free"))
        let favourite = try #require(free.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key)
        let without = try CommandRunner.run(common + ["--out", scratch.file("without"), "--leave-out-feature", favourite])
        #expect(without.status == 0, "\(without.stderr)")
        let tested = try testedFeatures(scratch.file("without"))
        #expect(!tested.isEmpty && tested[favourite] == nil, "\(favourite) still tested: \(tested)")
        let readme = try String(contentsOfFile: scratch.file("without/README.md"), encoding: .utf8)
        #expect(readme.contains("--leave-out-feature \(favourite)"))

        let unknown = try CommandRunner.run(common + ["--out", scratch.file("x"), "--leave-out-feature", "mfcc_13"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--leave-out-feature mfcc_13: no such feature"), "\(unknown.stderr)")
        let level = try CommandRunner.run(common + ["--out", scratch.file("x"), "--leave-out-feature", "rms_dbfs"])
        #expect(level.status == 64 && level.stderr.contains("the trees never test it"), "\(level.stderr)")
        // The band shapes are left out unless asked for: leaving one out is then a usage error, and with
        // --shape-features a choice.
        let shape = try CommandRunner.run(common + ["--out", scratch.file("x"), "--leave-out-feature", "mel_shape_3"])
        #expect(shape.status == 64 && shape.stderr.contains("without --shape-features"), "\(shape.stderr)")
        #expect(free.keys.allSatisfy { !$0.hasPrefix("mel_shape") && !$0.hasPrefix("octave_flatness") }, "\(free.keys.sorted())")
        let shaped = try CommandRunner.run(common + ["--out", scratch.file("shaped"), "--shape-features",
                                                    "--leave-out-feature", "mel_shape_3"])
        #expect(shaped.status == 0, "\(shaped.stderr)")
        #expect(try testedFeatures(scratch.file("shaped"))["mel_shape_3"] == nil)
        let shapedReadme = try String(contentsOfFile: scratch.file("shaped/README.md"), encoding: .utf8)
        #expect(shapedReadme.contains("--shape-features"))
    }

    /// Every feature each fitted class's trees test.
    func testedFeaturesByClass(_ modelFolder: String) throws -> [String: Set<String>] {
        let model = try JSONDecoder().decode(ClassifierModel.self, from: Data(contentsOf: URL(fileURLWithPath: modelFolder + "/model.json")))
        func walk(_ node: ScoreTree) -> Set<String> {
            guard case .test(let feature, _, _, let below, let above) = node else { return [] }
            return Set([feature.rawValue]).union(walk(below)).union(walk(above))
        }
        return model.classes.reduce(into: [:]) { tested, definition in
            guard let trees = definition.score?.trees else { return }
            tested[definition.id] = trees.reduce(into: Set<String>()) { $0.formUnion(walk($1)) }
        }
    }

    /// `--leave-out-feature CLASS:FEATURE` keeps a feature from one class's trees while the others still test it, is
    /// written in the model's recipe, and names a class the base model lacks or a missing class.
    @Test func aFeatureLeftOutOfOneClassIsTestedByTheOthers() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        // Each tree drawing a third of the features, the classes (each told apart by many) test more of them.
        let common = ["fit", "--clips", clips, "--map", scratch.file("map.tsv"), "--min-examples", "3", "--rounds", "10", "--augment", "0",
                      "--feature-share", "0.3"]
        #expect(try CommandRunner.run(common + ["--out", scratch.file("free")]).status == 0)
        let free = try testedFeaturesByClass(scratch.file("free"))
        // A feature that two classes' trees test, and the first of them.
        let shared = try #require(free.values.reduce(into: [String: Int]()) { counts, features in
            for feature in features { counts[feature, default: 0] += 1 }
        }.filter { $0.value >= 2 }.keys.sorted().first)
        let first = try #require(free.keys.sorted().first { free[$0]!.contains(shared) })
        let option = "\(first):\(shared)"
        let without = try CommandRunner.run(common + ["--out", scratch.file("without"), "--leave-out-feature", option])
        #expect(without.status == 0, "\(without.stderr)")
        let tested = try testedFeaturesByClass(scratch.file("without"))
        #expect(tested[first].map { !$0.isEmpty && !$0.contains(shared) } == true, "\(shared) still tested by \(first): \(tested)")
        #expect(tested.contains { $0.key != first && $0.value.contains(shared) }, "\(shared) tested by no other class: \(tested)")
        let readme = try String(contentsOfFile: scratch.file("without/README.md"), encoding: .utf8)
        #expect(readme.contains("--leave-out-feature \(option)"))

        for (bad, said) in [("nosuch:mfcc_3", "the base model has no class nosuch"), (":mfcc_3", "give FEATURE or CLASS:FEATURE"),
                            ("silence:mfcc_3", "silence keeps its hand-written rule and has no trees"),
                            ("\(first):mfcc_13", "--leave-out-feature mfcc_13: no such feature"),
                            ("\(first):rms_dbfs", "the trees never test it")] {
            let refused = try CommandRunner.run(common + ["--out", scratch.file("x"), "--leave-out-feature", bad])
            #expect(refused.status == 64 && refused.stderr.contains(said), "\(bad): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x")))
    }

    /// `--holdout-source` fits without one corpus of a manifest and lists its clips, as leaving that source out does.
    @Test func holdingOutASourceListsItsClipsAndRefusesAnUnknownOne() throws {
        let scratch = Scratch()
        let clips = try makeClips(scratch)
        var manifest = "path\tlabel\tsource\n"
        for label in ["snoring", "alarm", "other"] {
            for seed in 1...6 { manifest += "\(label)/\(label)-\(seed).wav\t\(label)\t\(seed <= 2 ? "corpus-a" : "corpus-b")\n" }
        }
        try manifest.write(toFile: clips + "/MANIFEST.tsv", atomically: true, encoding: .utf8)
        let common = ["fit", "--clips", clips + "/MANIFEST.tsv", "--map", scratch.file("map.tsv"), "--min-examples", "3",
                      "--rounds", "10", "--augment", "0"]
        let held = try CommandRunner.run(common + ["--out", scratch.file("without-a"), "--holdout-source", "corpus-a",
                                                   "--holdout-list", scratch.file("held.tsv")])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stderr.contains("holding out source corpus-a: 6 clips; fitting on 12"), "\(held.stderr)")
        let listed = try String(contentsOfFile: scratch.file("held.tsv"), encoding: .utf8).split(separator: "\n").dropFirst()
            .map { (String($0.split(separator: "\t")[0]) as NSString).lastPathComponent }
        #expect(listed.sorted()
                == ["alarm-1.wav", "alarm-2.wav", "other-1.wav", "other-2.wav", "snoring-1.wav", "snoring-2.wav"])

        // The list goes into a named pipe in place (as into /dev/stdout), and never over a file of another kind or a
        // manifest given; both refused before anything is fitted.
        let fifo = scratch.file("held.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = HardeningTests.Received()
        let reader = Thread { received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()) }
        reader.start()
        let toPipe = try CommandRunner.run(common + ["--out", scratch.file("piped"), "--holdout-source", "corpus-a", "--holdout-list", fifo])
        #expect(toPipe.status == 0, "\(toPipe.stderr)")
        #expect(received.wait(seconds: 60).map { String(decoding: $0, as: UTF8.self).split(separator: "\n").count } == 7,
                "a header and six clips")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe is not replaced")
        let notes = scratch.file("notes.tsv")
        try "my notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        for (path, reason) in [(notes, "the file exists and is not a held-out list fit wrote"), (clips + "/MANIFEST.tsv", "this is one of --clips")] {
            let refused = try CommandRunner.run(common + ["--out", scratch.file("x"), "--holdout-source", "corpus-a", "--holdout-list", path])
            #expect(refused.status == 64 && refused.stderr.contains("--holdout-list \(path): \(reason)"), "\(refused.stderr)")
        }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
        // Its own earlier list it writes again.
        #expect(try CommandRunner.run(common + ["--out", scratch.file("again"), "--holdout-source", "corpus-a",
                                                "--holdout-list", scratch.file("held.tsv")]).status == 0)

        let unknown = try CommandRunner.run(common + ["--out", scratch.file("x"), "--holdout-source", "corpus-c"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--holdout-source corpus-c: no clip has this source; choose from corpus-a, corpus-b"),
                "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x")))
        let oneUnknown = try CommandRunner.run(common + ["--out", scratch.file("x"), "--holdout-source", "corpus-a",
                                                         "--holdout-source", "corpus-c"])
        #expect(oneUnknown.status == 64 && oneUnknown.stderr.contains("--holdout-source corpus-c: no clip has this source"),
                "\(oneUnknown.stderr)")
        let both = try CommandRunner.run(common + ["--out", scratch.file("x"), "--holdout-source", "corpus-a", "--holdout-fold", "0/5"])
        #expect(both.status == 64)
    }

    @Test func needsSomethingToDo() throws {
        #expect(try CommandRunner.run(["fit", "--clips", "x"]).status == 64)
        #expect(try CommandRunner.run(["fit", "--clips", "x", "--out", "y", "--method", "forest"]).status == 64)
        #expect(try CommandRunner.run(["fit", "--clips", "x", "--out", "y", "--learning-rate", "0"]).status == 64)
    }
}
