import Foundation
import SomniqFeatures
import SomniqModel
import SomniqSynth
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let defaultModelPath = repositoryRoot + "/models/default"
let rulesModelPath = repositoryRoot + "/models/rules"

/// The shipped models: `default` (fitted) and `rules` (hand-written, its base).
@Suite struct ShippedModelTests {
    static let bundles = [defaultModelPath, rulesModelPath].map { try! ModelBundle.load(path: $0) }

    @Test(arguments: bundles) func hasEveryRequiredClassOnItsTier(bundle: ModelBundle) {
        let expected: [String: AlertTier] = [
            "gasp": .critical, "screaming": .critical, "siren": .critical, "smoke_detector": .critical, "glass_breaking": .critical,
            "snoring": .high, "cough": .high, "crying_sobbing": .high, "dog_bark": .high, "thunder": .high,
            "speech": .medium, "laughter": .medium, "door_slam": .medium, "alarm_clock": .medium,
            "music": .low, "rain": .low, "wind": .low, "breathing": .low, "sneeze": .low,
            "silence": .none, "other": .none,
        ]
        let tiers = Dictionary(uniqueKeysWithValues: bundle.classifier.classes.map { ($0.id, $0.tier) })
        #expect(tiers == expected)
    }

    @Test(arguments: bundles) func profilesCarryTheReferenceNumbers(bundle: ModelBundle) {
        let numbers = bundle.profiles.profiles.map { [$0.uncertainty, $0.on, $0.off, $0.debounceSec, $0.cooldownSec] }
        #expect(bundle.profiles.profileNames == ["very-conservative", "conservative", "balanced", "sensitive", "very-sensitive"])
        #expect(numbers == [[0.7, 0.9, 0.7, 5, 60], [0.6, 0.8, 0.6, 3, 30], [0.4, 0.7, 0.5, 2, 15], [0.3, 0.6, 0.4, 1, 8],
                            [0.2, 0.5, 0.3, 0.5, 3]])
        #expect(bundle.profiles.defaultProfile == "balanced")
    }

    @Test(arguments: bundles) func experimentalClassesCannotAlertUnderTheTwoStrictestProfiles(bundle: ModelBundle) {
        let experimental = bundle.classifier.classes.enumerated().filter { $0.element.status == .experimental }
        // The rules have one (the siren); the default fits every class the development set has clips of.
        #expect(bundle.classifier.name != "rules" || !experimental.isEmpty)
        for profile in bundle.profiles.profiles.prefix(2) {
            let rules = bundle.rules(for: profile, frameHz: 2)
            for (index, definition) in experimental {
                let threshold = rules[index]!.activationThreshold
                #expect(Double(definition.maxConfidence) < threshold, "\(definition.id) under \(profile.name)")
            }
        }
    }

    @Test func versionTagNamesModelAndProfiles() {
        #expect(Self.bundles[0].versionTag == "default@\(Self.bundles[0].classifier.version)+profiles@\(Self.bundles[0].profiles.version)")
        #expect(Self.bundles[1].versionTag.hasPrefix("rules@0.23.0+"))
    }

    @Test func theDefaultIsFittedFromTheRulesAndSaysHow() throws {
        let fitted = Self.bundles[0].classifier, rules = Self.bundles[1].classifier
        for id in ["snoring", "speech", "crying_sobbing", "rain", "smoke_detector", "other", "breathing", "sneeze", "screaming",
                   "siren", "alarm_clock", "dog_bark", "door_slam", "glass_breaking", "thunder", "wind", "laughter", "cough"] {
            let definition = try #require(fitted.classes.first { $0.id == id })
            #expect(definition.score != nil && definition.all.isEmpty, "\(id) is fitted")
            #expect(definition.score!.trees.allSatisfy { $0.depth <= 3 })
            // 3.7.0: a clip's class is chosen by a calibration fitted on the recorded clips (`fit --clip-calibration`).
            #expect(definition.score!.clipCalibration != nil, "\(id) chooses clips by its own calibration")
        }
        for id in ["silence", "gasp", "music"] {
            #expect(fitted.classes.first { $0.id == id } == rules.classes.first { $0.id == id }, "\(id) is kept from the rules")
        }
        // What a sound never is stands beside its fitted score (glass is never steady nor dull, rules 0.19.0).
        for id in ["glass_breaking", "rain", "speech"] {
            let never = try #require(rules.classes.first { $0.id == id }?.never)
            #expect(!never.isEmpty && fitted.classes.first { $0.id == id }?.never == never, "\(id) keeps its never")
        }
        let readme = try String(contentsOfFile: defaultModelPath + "/README.md", encoding: .utf8)
        #expect(readme.contains("somniq-analyze fit --clips ../shared/devset/MANIFEST.tsv"))
        #expect(readme.contains("--base models/rules") && readme.contains("--map scripts/devset-label-map.tsv"))
        #expect(readme.contains("--clip-calibration"))
        #expect(readme.contains("Deterministic: the same data, command and seed refit this model byte for byte"))
        #expect(readme.contains("Augmentation (every training clip also heard as): 4 copies per clip, seed"))
    }

    @Test func theFlatScoreAgreesWithTheTreesItWasLaidOutFrom() throws {
        // The scores alone: a backstop's rule or what a class always is, where higher, would stand in for the score, and
        // what a class never is would veto it.
        var model = Self.bundles[0].classifier
        #expect(model.classes.contains { $0.backstop != nil } && model.classes.contains { !$0.never.isEmpty })
        for index in model.classes.indices {
            model.classes[index].backstop = nil
            model.classes[index].never = []
            model.classes[index].always = []
        }
        let classifier = Classifier(model: model)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            // Feature values over wide ranges, so that every branch is taken somewhere.
            let values = (0..<FeatureID.count).map { _ in Float(generator.next() % 20_001) / 10 - 1000 }
            let features = FeatureVector(values: values)
            let confidences = classifier.classify(features)
            for (index, definition) in model.classes.enumerated() {
                guard let score = definition.score else { continue }
                #expect(abs(confidences[index] - score.confidence(features)) < 1e-5, "\(definition.id)")
            }
        }
    }
}

@Suite final class ModelLoaderErrorTests {
    let folder: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("somniq-model-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Copies the default model, applies `edit` to one of its files' JSON, and loads it.
    /// Copies a shipped model (the hand-written one unless told), applies `edit` to one of its files' JSON, and loads it.
    func load(editing file: String, from source: String = rulesModelPath,
              _ edit: (inout [String: Any]) -> Void) -> Result<ModelBundle, ModelError> {
        for name in [ModelBundle.modelFileName, ModelBundle.profilesFileName] {
            var data = try! Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
            if name == file {
                var object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
                edit(&object)
                data = try! JSONSerialization.data(withJSONObject: object)
            }
            try! data.write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        return Result { () throws(ModelError) in try ModelBundle.load(path: folder) }
    }

    /// A binary with no model beside it, run where there is none, says where it looked: each place once (walking up
    /// from a folder near the root reaches the root and stays there), `$SOMNIQ_MODEL` first.
    @Test func aModelNotFoundNamesEachPlaceLookedInOnce() {
        let result = Result { () throws(ModelError) in
            try ModelBundle.defaultLocation(executablePath: folder + "/somniq-analyze", workingDirectory: folder,
                                            environment: [ModelBundle.environmentVariable: folder + "/nothing-here"])
        }
        guard case .failure(.notFound(_, let searched)) = result else {
            Issue.record("expected no model to be found, got \(result)")
            return
        }
        #expect(searched.first == folder + "/nothing-here")
        #expect(searched.contains(folder + "/models/default"))
        #expect(searched.contains("/models/default"))
        #expect(Set(searched).count == searched.count, "\(searched)")
    }

    func expectInvalid(_ result: Result<ModelBundle, ModelError>, field: String, saying phrase: String) {
        guard case .failure(let error) = result else {
            Issue.record("the model loaded")
            return
        }
        guard case .invalid(_, let reportedField, let reason) = error else {
            Issue.record("expected .invalid, got \(error)")
            return
        }
        #expect(reportedField == field)
        #expect(reason.contains(phrase), "\(reason)")
        #expect(error.description.contains(folder), "names the file")
    }

    /// Position of snoring in the default model, which these tests edit.
    let snoringIndex = try! ModelBundle.load(path: rulesModelPath).classifier.classIDs.firstIndex(of: "snoring")!

    func classes(_ object: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
        var classes = object["classes"] as! [[String: Any]]
        var snoring = classes[snoringIndex]
        edit(&snoring)
        classes[snoringIndex] = snoring
        object["classes"] = classes
    }

    /// Replaces the first tree of the fitted default model's snoring score: with a string (the notation of model
    /// format 2) or with nested objects (format 1, still read).
    func replaceFirstTree(with tree: Any) -> Result<ModelBundle, ModelError> {
        load(editing: "model.json", from: defaultModelPath) { object in
            classes(&object) { snoring in
                var score = snoring["score"] as! [String: Any]
                var trees = score["trees"] as! [Any]
                trees[0] = tree
                score["trees"] = trees
                snoring["score"] = score
            }
        }
    }

    @Test func rejectsAnUnknownFeatureInAScoreTree() {
        expectInvalid(replaceFirstTree(with: "mfcc_1 < 0.5 ? -0.25 : (loudness < 3.0 ? 0.5 : 1.0)"),
                      field: "classes[\(snoringIndex)].score.trees[0]", saying: "unknown feature \"loudness\" at character 25")
        expectInvalid(replaceFirstTree(with: ["feature": "loudness", "threshold": 3.0, "below": ["points": 0.5], "above": ["points": 1.0]]),
                      field: "classes[\(snoringIndex)].score.trees[0].feature", saying: "unknown feature \"loudness\"")
    }

    @Test func rejectsAMalformedTree() {
        for (notation, phrase) in [
            ("mfcc_1 0.5 ? -0.25 : 1.0", "expected \"<\" at character 8"),
            ("mfcc_1 < 0.5 ? -0.25 1.0", "expected \":\" at character 22"),
            ("mfcc_1 < 0.5 ? (mfcc_2 < 1.0 ? 0.5 : 1.0 : 1.0", "expected \")\" at character 42"),
            ("mfcc_1 < 0.5 ? -0.25 : 1.0 2.0", "expected the end of the tree at character 28"),
            ("mfcc_1 < inf ? -0.25 : 1.0", "threshold must be a finite number at character 10"),
            ("mfcc_1 < 0.5 ? nan : 1.0", "points must be a finite number at character 16"),
            ("mfcc_1 < 0.5 or ? 0.5 : 1.0", "expected \"missing\" at character 17"),
            ("mfcc_1 < 0.5 ? (0.5) : 1.0", "unknown feature \"0.5\" at character 17"),
            ("", "expected a feature's name at character 1"),
        ] {
            expectInvalid(replaceFirstTree(with: notation), field: "classes[\(snoringIndex)].score.trees[0]", saying: phrase)
        }
    }

    @Test func rejectsALeafThatAlsoTests() {
        expectInvalid(replaceFirstTree(with: ["points": 0.5, "feature": "mfcc_2"]),
                      field: "classes[\(snoringIndex)].score.trees[0].points", saying: "only a finite number of points")
    }

    @Test func rejectsATestWithoutABranch() {
        expectInvalid(replaceFirstTree(with: ["feature": "mfcc_2", "threshold": 1.0, "below": ["points": 0.5]]),
                      field: "classes[\(snoringIndex)].score.trees[0].above", saying: "missing")
    }

    /// A chain of `depth` tests on mfcc_1 (thresholds 0, 1, 2, ...), each with points on its other side.
    static func chain(depth: Int, from level: Int = 0) -> [String: Any] {
        guard level < depth else { return ["points": Double(level) / 8] }
        return ["feature": "mfcc_1", "threshold": Double(level), "below": ["points": -Double(level + 1) / 8],
                "above": chain(depth: depth, from: level + 1)]
    }

    @Test func rejectsATreeDeeperThanTheLimit() {
        expectInvalid(replaceFirstTree(with: Self.chain(depth: PointsScore.maximumDepth + 1)),
                      field: "classes[\(snoringIndex)].score.trees", saying: "at most \(PointsScore.maximumDepth)")
        // In the notation the reader stops at the limit (no input can run its recursion out of stack).
        let deep = (1...PointsScore.maximumDepth).reduce("mfcc_1 < 0.0 ? -0.125 : 0.5") { inner, level in
            "mfcc_1 < \(level).0 ? -0.125 : (\(inner))"
        }
        expectInvalid(replaceFirstTree(with: deep), field: "classes[\(snoringIndex)].score.trees[0]",
                      saying: "a tree more than \(PointsScore.maximumDepth) tests deep")
    }

    /// The classifier pads trees of every depth (a bare leaf, chains, the fitted ones) to one complete depth
    /// and walks them eight at a time without branches: its confidence must be the tree walk's, bit for bit, missing
    /// features (NaN, sent below or above as each test says) included.
    @Test func treesOfMixedDepthsScoreAsTheTreeWalk() throws {
        let bundle = try load(editing: "model.json", from: defaultModelPath) { object in
            classes(&object) { snoring in
                var score = snoring["score"] as! [String: Any]
                var trees = score["trees"] as! [Any]
                trees[0] = ["points": 0.25]
                trees[1] = Self.chain(depth: PointsScore.maximumDepth)
                var missingBelow = Self.chain(depth: 1)
                missingBelow["missing"] = "below"
                trees[2] = missingBelow
                trees = Array(trees.prefix(11))  // not a multiple of eight: the last trees are walked alone
                score["trees"] = trees
                snoring["score"] = score
                snoring["backstop"] = nil  // the score alone
            }
        }.get()
        let definition = bundle.classifier.classes[snoringIndex]
        let score = try #require(definition.score)
        let classifier = Classifier(model: bundle.classifier)
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<300 {
            var values = (0..<FeatureID.count).map { _ in Float(generator.next() % 2_001) / 10 - 100 }
            values[FeatureID.mfcc1.index] = Float(generator.next() % 130) / 10 - 1  // along the chain's thresholds
            if generator.next() % 3 == 0 {  // a recording without some bands: features missing, feature 0 among them
                for index in values.indices where index == 0 || generator.next() % 4 == 0 { values[index] = .nan }
            }
            let features = FeatureVector(values: values)
            let expected = min(1, max(0, definition.maxConfidence * score.confidence(features)))
            #expect(classifier.classify(features)[snoringIndex] == expected)
        }
    }

    @Test func rejectsANonPositiveCalibrationSlope() {
        expectInvalid(load(editing: "model.json", from: defaultModelPath) { object in
            classes(&object) { snoring in
                var score = snoring["score"] as! [String: Any]
                score["calibration"] = ["slope": -1.0, "intercept": 0.0]
                snoring["score"] = score
            }
        }, field: "classes[\(snoringIndex)].score.calibration", saying: "slope positive")
    }

    @Test func rejectsANonPositiveClipCalibrationSlope() {
        expectInvalid(load(editing: "model.json", from: defaultModelPath) { object in
            classes(&object) { snoring in
                var score = snoring["score"] as! [String: Any]
                score["clipCalibration"] = ["slope": 0.0, "intercept": -1.0]
                snoring["score"] = score
            }
        }, field: "classes[\(snoringIndex)].score.clipCalibration", saying: "slope positive")
    }

    /// A clip calibration is read and written back as it was; a score without one writes no such key (so that models
    /// fitted before it are written as they were). The default model's own clip calibrations are taken off first, and
    /// snoring alone is given one.
    @Test func aClipCalibrationIsReadAndWrittenBack() throws {
        let bundle = try load(editing: "model.json", from: defaultModelPath) { object in
            object["classes"] = (object["classes"] as! [[String: Any]]).map { entry in
                var entry = entry
                if var score = entry["score"] as? [String: Any] {
                    score["clipCalibration"] = nil
                    entry["score"] = score
                }
                return entry
            }
            classes(&object) { snoring in
                var score = snoring["score"] as! [String: Any]
                score["clipCalibration"] = ["slope": 1.25, "intercept": -0.5]
                snoring["score"] = score
            }
        }.get()
        let score = try #require(bundle.classifier.classes[snoringIndex].score)
        #expect(score.clipCalibration == .init(slope: 1.25, intercept: -0.5))
        let written = String(decoding: try JSONEncoder().encode(bundle.classifier), as: UTF8.self)
        #expect(written.components(separatedBy: "clipCalibration").count == 2, "written once, for snoring alone")
        #expect(try JSONDecoder().decode(ClassifierModel.self, from: Data(written.utf8)) == bundle.classifier)
        let chosen = try #require(bundle.classifier.choosingClips.classes[snoringIndex].score)
        #expect(chosen.calibration == .init(slope: 1.25, intercept: -0.5))
    }

    @Test func rejectsAnUnknownField() {
        expectInvalid(load(editing: "model.json") { $0["colour"] = "blue" }, field: "colour", saying: "unknown field")
    }

    @Test func rejectsAnUnknownFeature() {
        expectInvalid(load(editing: "model.json") { object in
            classes(&object) { snoring in
                var all = snoring["all"] as! [[String: Any]]
                all[0]["feature"] = "loudness"
                snoring["all"] = all
            }
        }, field: "classes[\(snoringIndex)].all[0].feature", saying: "unknown feature \"loudness\"")
    }

    @Test func rejectsAConditionWithoutSoftness() {
        expectInvalid(load(editing: "model.json") { object in
            classes(&object) { snoring in
                var all = snoring["all"] as! [[String: Any]]
                all[0].removeValue(forKey: "softness")
                snoring["all"] = all
            }
        }, field: "classes[\(snoringIndex)].all[0].softness", saying: "missing")
    }

    @Test func rejectsAConditionWithTwoTests() {
        expectInvalid(load(editing: "model.json") { object in
            classes(&object) { snoring in
                var all = snoring["all"] as! [[String: Any]]
                all[0]["below"] = 3
                snoring["all"] = all
            }
        }, field: "classes[\(snoringIndex)].all[0].feature", saying: "exactly one of above, below or between")
    }

    @Test func rejectsAnotherFormatVersion() {
        expectInvalid(load(editing: "model.json") { $0["formatVersion"] = 3 }, field: "formatVersion",
                      saying: "format version 3 is not supported (this build reads 1 to 2)")
    }

    @Test func rejectsAnOutOfRangeConfidenceCap() {
        expectInvalid(load(editing: "model.json") { object in classes(&object) { $0["maxConfidence"] = 1.5 } },
                      field: "classes[\(snoringIndex)].maxConfidence", saying: "(0, 1]")
    }

    @Test func rejectsAnUnknownTier() {
        expectInvalid(load(editing: "model.json") { object in classes(&object) { $0["tier"] = "urgent" } },
                      field: "classes[\(snoringIndex)].tier", saying: "urgent")
    }

    @Test func rejectsAProfileWithOffAboveOn() {
        expectInvalid(load(editing: "profiles.json") { object in
            var profiles = object["profiles"] as! [[String: Any]]
            profiles[2]["off"] = 0.8
            object["profiles"] = profiles
        }, field: "profiles[2].off", saying: "must be below on")
    }

    @Test func rejectsProfilesOutOfOrder() {
        expectInvalid(load(editing: "profiles.json") { object in
            var profiles = object["profiles"] as! [[String: Any]]
            profiles[3]["cooldownSec"] = 40.0
            object["profiles"] = profiles
        }, field: "profiles", saying: "\"sensitive\" has a stricter cooldownSec than \"balanced\"")
    }

    @Test func rejectsAMissingTier() {
        expectInvalid(load(editing: "profiles.json") { object in
            var tiers = object["tiers"] as! [String: Any]
            tiers.removeValue(forKey: "low")
            object["tiers"] = tiers
        }, field: "tiers", saying: "tier \"low\" has no adjustment")
    }

    @Test func rejectsAClassIdThatIsNotAPlainIdentifier() {
        // Ids name clip files, CSV columns and labels: a path, a formula, capitals or spaces have no place in one.
        for id in ["../../escaped", "=HYPERLINK(1)", "Snoring", "two words", "", "_x", String(repeating: "a", count: 65)] {
            expectInvalid(load(editing: "model.json") { object in self.classes(&object) { $0["id"] = id } },
                          field: "classes[\(snoringIndex)].id", saying: "not a plain identifier")
        }
        #expect(SoundClassDefinition.isSafeIdentifier("crying_sobbing"))
        #expect(SoundClassDefinition.isSafeIdentifier("class2"))
    }

    @Test func reportsANumberOutOfRangeAsSuch() throws {
        _ = load(editing: "none") { _ in }
        var text = try String(contentsOfFile: folder + "/model.json", encoding: .utf8)
        let softness = try #require(text.range(of: #""softness":\s*[0-9.]+"#, options: .regularExpression))
        text.replaceSubrange(softness, with: "\"softness\": 1e400")
        try text.write(toFile: folder + "/model.json", atomically: true, encoding: .utf8)
        do {
            _ = try ModelBundle.load(path: folder)
            Issue.record("loaded a model with 1e400 in it")
        } catch {
            #expect(error.description.contains("1e400 is out of range"), "\(error)")
            #expect(!error.description.contains("not valid"), "\(error)")
        }
    }

    @Test func refusesAnOversizedModelFileBeforeReadingIt() throws {
        _ = load(editing: "none") { _ in }
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/model.json"))
        try handle.truncate(atOffset: UInt64(ModelBundle.maximumFileBytes + 1))  // sparse: no memory or disk spent
        try handle.close()
        do {
            _ = try ModelBundle.load(path: folder)
            Issue.record("loaded an oversized model file")
        } catch {
            #expect(error.description.contains("16777217 bytes, more than such a file may hold (16777216 bytes, 16 MB)"), "\(error)")
        }
    }

    @Test func reportsBrokenJSONAndMissingFiles() {
        try! "{ not json".write(toFile: folder + "/model.json", atomically: true, encoding: .utf8)
        #expect(throws: ModelError.self) { try ModelBundle.load(path: folder + "/model.json") }
        do {
            _ = try ModelBundle.load(path: folder + "/nowhere")
            Issue.record("loaded a missing model")
        } catch {
            #expect(error.description.contains("model not found"))
        }
    }
}
