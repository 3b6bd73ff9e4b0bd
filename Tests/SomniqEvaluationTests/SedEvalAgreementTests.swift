import Foundation
import SomniqEvaluation
import Testing

let evaluationFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path + "/fixtures/evaluation"

/// Our metrics on a reference and an estimate table, file by file, as sed_eval runs them.
func score(reference: [SoundEvent], estimated: [SoundEvent]) -> (segment: DetectionScores, event: DetectionScores) {
    var segment = SegmentBasedMetrics(resolution: 1.0)
    var event = EventBasedMetrics(onsetCollar: 0.2, offsetFraction: 0.5)
    for file in Set(reference.map(\.file)).union(estimated.map(\.file)).sorted() {
        let fileReference = reference.filter { $0.file == file }, fileEstimated = estimated.filter { $0.file == file }
        segment.evaluate(reference: fileReference, estimated: fileEstimated)
        event.evaluate(reference: fileReference, estimated: fileEstimated)
    }
    return (segment.scores, event.scores)
}

/// Numbers printed by `scripts/sed-eval-crosscheck` (sed_eval 0.2.1, dcase_util 0.2.x) on the same tables.
struct Pinned {
    var f1: Double?, precision: Double?, recall: Double?, errorRate: Double?
    var macroF1: Double?, macroPrecision: Double?, macroRecall: Double?
    var classF1: [String: Double?]
    var classErrorRate: [String: Double?]
}

func expectAgreement(_ scores: DetectionScores, _ pinned: Pinned, _ context: String) {
    func close(_ ours: Double?, _ theirs: Double?, _ what: String) {
        switch (ours, theirs) {
        case (nil, nil): break
        case (let ours?, let theirs?): #expect(abs(ours - theirs) < 5e-4, "\(context) \(what): ours \(ours), sed_eval \(theirs)")
        default: Issue.record("\(context) \(what): ours \(String(describing: ours)), sed_eval \(String(describing: theirs))")
        }
    }
    close(scores.overall.f1, pinned.f1, "overall F1")
    close(scores.overall.precision, pinned.precision, "overall precision")
    close(scores.overall.recall, pinned.recall, "overall recall")
    close(scores.overall.errorRate, pinned.errorRate, "overall ER")
    close(scores.macro(\.f1), pinned.macroF1, "macro F1")
    close(scores.macro(\.precision), pinned.macroPrecision, "macro precision")
    close(scores.macro(\.recall), pinned.macroRecall, "macro recall")
    #expect(Set(scores.labels) == Set(pinned.classF1.keys))
    for (label, value) in pinned.classF1 { close(scores.classWise[label]?.f1, value, "\(label) F1") }
    for (label, value) in pinned.classErrorRate {
        // sed_eval divides by N_ref + ε: a class missing from the reference gets ~10¹⁵; ours leaves it undefined.
        if let value, value > 1e6 {
            #expect(scores.classWise[label]?.nRef == 0)
            #expect(scores.classWise[label]?.errorRate == nil)
        } else {
            close(scores.classWise[label]?.errorRate, value, "\(label) ER")
        }
    }
}

@Suite struct SedEvalAgreementTests {
    /// Hand-made tables with near-misses at both collars, a split event, a substitution, spurious and
    /// missed events, overlapping classes and two files.
    @Test func agreesOnTheTrickyTables() throws {
        let reference = try DCASETable.parse(contentsOf: evaluationFixtures + "/tricky.reference.tsv")
        let estimated = try DCASETable.parse(contentsOf: evaluationFixtures + "/tricky.estimated.tsv")
        let (segment, event) = score(reference: reference, estimated: estimated)
        expectAgreement(segment, Pinned(
            f1: 0.888889, precision: 0.884615, recall: 0.893204, errorRate: 0.213592,
            macroF1: 0.770592, macroPrecision: 0.641568, macroRecall: 0.710204,
            classF1: ["breathing": nil, "cough": 0.4, "door_slam": 0.666667, "gasp": nil, "rain": 0.980392,
                      "smoke_detector": 0.923077, "snoring": 0.93913, "speech": 0.714286],
            classErrorRate: ["breathing": 2.251799813685248e16, "cough": 1.5, "door_slam": 1.0, "gasp": 1.0, "rain": 0.04,
                             "smoke_detector": 0.142857, "snoring": 0.116667, "speech": 0.571429]), "segment-based")
        expectAgreement(event, Pinned(
            f1: 0.545455, precision: 0.461538, recall: 0.666667, errorRate: 1.0,
            macroF1: 0.638889, macroPrecision: 0.5, macroRecall: 0.642857,
            classF1: ["breathing": nil, "cough": 0.5, "door_slam": 0.666667, "gasp": nil, "rain": 1.0, "smoke_detector": 1.0,
                      "snoring": 0.0, "speech": 0.666667],
            classErrorRate: ["breathing": 4.503599627370496e15, "cough": 1.0, "door_slam": 1.0, "gasp": 1.0, "rain": 0.0,
                             "smoke_detector": 0.0, "snoring": 3.0, "speech": 1.0]), "event-based")
    }

    /// The sample night's ground truth against what two profiles detected in it (tables written once by
    /// `somniq-analyze evaluate --estimates-out` and committed, so this test does not move with the classifier).
    @Test func agreesOnTheSampleNightUnderBalanced() throws {
        let reference = try DCASETable.parse(contentsOf: evaluationFixtures + "/../sample-night/sleep_recording_1795302000.tsv")
        let estimated = try DCASETable.parse(contentsOf: evaluationFixtures + "/sample-night.balanced.estimated.tsv")
        let (segment, event) = score(reference: reference, estimated: estimated)
        expectAgreement(segment, Pinned(
            f1: 0.875399, precision: 0.913333, recall: 0.840491, errorRate: 0.239264,
            macroF1: 0.77534, macroPrecision: 0.760278, macroRecall: 0.884321,
            classF1: ["breathing": 0.731707, "cough": 0.666667, "door_slam": 0.666667, "gasp": 0.5, "rain": 0.927835,
                      "smoke_detector": 0.967742, "snoring": 0.884956, "speech": 0.857143],
            classErrorRate: ["breathing": 0.458333, "cough": 1.0, "door_slam": 1.0, "gasp": 2.0, "rain": 0.14,
                             "smoke_detector": 0.0625, "snoring": 0.224138, "speech": 0.25]), "segment-based")
        expectAgreement(event, Pinned(
            f1: 0.117647, precision: 0.125, recall: 0.111111, errorRate: 1.666667,
            macroF1: 0.125, macroPrecision: 0.125, macroRecall: 0.125,
            classF1: ["breathing": 0.0, "cough": 0.0, "door_slam": 0.0, "gasp": 0.0, "rain": 0.0, "smoke_detector": 1.0,
                      "snoring": 0.0, "speech": 0.0],
            classErrorRate: ["breathing": 2.0, "cough": 1.5, "door_slam": 2.0, "gasp": 2.0, "rain": 2.0, "smoke_detector": 0.0,
                             "snoring": 2.0, "speech": 2.0]), "event-based")
    }

    @Test func agreesOnTheSampleNightUnderVerySensitive() throws {
        let reference = try DCASETable.parse(contentsOf: evaluationFixtures + "/../sample-night/sleep_recording_1795302000.tsv")
        let estimated = try DCASETable.parse(contentsOf: evaluationFixtures + "/sample-night.very-sensitive.estimated.tsv")
        let (segment, event) = score(reference: reference, estimated: estimated)
        expectAgreement(segment, Pinned(
            f1: 0.748166, precision: 0.621951, recall: 0.93865, errorRate: 0.631902,
            macroF1: 0.629884, macroPrecision: 0.565252, macroRecall: 0.960546,
            classF1: ["breathing": 0.551724, "cough": 0.054054, "door_slam": 0.285714, "gasp": 0.5, "rain": 0.929293,
                      "smoke_detector": 0.969697, "snoring": 0.915254, "speech": 0.833333],
            classErrorRate: ["breathing": 1.625, "cough": 35.0, "door_slam": 5.0, "gasp": 2.0, "rain": 0.14,
                             "smoke_detector": 0.0625, "snoring": 0.172414, "speech": 0.333333]), "segment-based")
        expectAgreement(event, Pinned(
            f1: 0.0, precision: 0.0, recall: 0.0, errorRate: 2.222222,
            macroF1: 0.0, macroPrecision: 0.0, macroRecall: 0.0,
            classF1: ["breathing": 0.0, "cough": 0.0, "door_slam": 0.0, "gasp": 0.0, "rain": 0.0, "smoke_detector": 0.0,
                      "snoring": 0.0, "speech": 0.0],
            classErrorRate: ["breathing": 3.0, "cough": 1.5, "door_slam": 4.0, "gasp": 2.0, "rain": 2.0, "smoke_detector": 2.0,
                             "snoring": 2.0, "speech": 2.0]), "event-based")
    }
}

@Suite struct EvaluationUnitTests {
    @Test func aPerfectEstimateScoresOne() {
        let events = [SoundEvent(file: "x", onset: 1, offset: 4, label: "snoring"), SoundEvent(file: "x", onset: 6, offset: 6.5, label: "cough")]
        let (segment, event) = score(reference: events, estimated: events)
        #expect(segment.overall.f1 == 1)
        #expect(segment.overall.errorRate == 0)
        #expect(event.overall.f1 == 1)
        #expect(event.macro(\.f1) == 1)
    }

    @Test func collarsAreInclusiveAndScaleWithLength() {
        var metrics = EventBasedMetrics()
        let reference = [SoundEvent(file: "x", onset: 10, offset: 20, label: "snoring")]
        // Onset 0.2 s late (on the collar), offset 5 s early (50% of 10 s): still a match.
        metrics.evaluate(reference: reference, estimated: [SoundEvent(file: "x", onset: 10.2, offset: 15, label: "snoring")])
        #expect(metrics.scores.overall.truePositives == 1)
        var late = EventBasedMetrics()
        late.evaluate(reference: reference, estimated: [SoundEvent(file: "x", onset: 10.25, offset: 20, label: "snoring")])
        #expect(late.scores.overall.truePositives == 0)
        #expect(late.scores.overall.errorRate == 2, "one deletion and one insertion")
    }

    @Test func aWrongLabelInTheRightPlaceIsOneSubstitution() {
        var metrics = EventBasedMetrics()
        metrics.evaluate(reference: [SoundEvent(file: "x", onset: 1, offset: 2, label: "cough")],
                         estimated: [SoundEvent(file: "x", onset: 1, offset: 2, label: "door_slam")])
        #expect(metrics.scores.overall.substitutions == 1)
        #expect(metrics.scores.overall.errorRate == 1)
        #expect(metrics.scores.classWise["door_slam"]?.falsePositives == 1)
    }

    @Test func parsesAndWritesDCASETables() throws {
        let text = "filename\tonset\toffset\tevent_label\nn.wav\t1.5\t2.25\tcough\r\n\nn.wav\t3\t4\tspeech\n"
        let events = try DCASETable.parse(text)
        #expect(events == [SoundEvent(file: "n.wav", onset: 1.5, offset: 2.25, label: "cough"),
                           SoundEvent(file: "n.wav", onset: 3, offset: 4, label: "speech")])
        #expect(try DCASETable.parse(DCASETable.format(events)) == events)
        #expect(throws: DCASETable.ParseError.self) { try DCASETable.parse("n.wav\t2\t1\tcough\n") }
        #expect(throws: DCASETable.ParseError.self) { try DCASETable.parse("n.wav\t2\tcough\n") }
    }

    @Test func scoresClipsThroughALabelMap() throws {
        let map = try LabelMap.parse("# comment\nalarm\tsmoke_detector,siren\nother\t\nunknown\t?\n")
        var clips = ClipEvaluation(map: map)
        clips.add(path: "1", label: "alarm", predicted: "siren")  // allowed: true positive for siren
        clips.add(path: "2", label: "alarm", predicted: "speech")  // missed smoke_detector (canonical)
        clips.add(path: "3", label: "other", predicted: "snoring")  // false positive
        clips.add(path: "4", label: "other", predicted: "silence")  // correct rejection
        clips.add(path: "5", label: "snoring", predicted: "snoring")
        clips.add(path: "6", label: "unknown", predicted: "snoring")  // left out
        #expect(clips.excluded == 1)
        #expect(clips.scoredClasses == ["siren", "smoke_detector", "snoring"])
        #expect(clips.counts(for: "siren").truePositives == 1)
        #expect(clips.counts(for: "smoke_detector").falseNegatives == 1)
        let snoring = clips.counts(for: "snoring")
        #expect(snoring.precision == 0.5)
        #expect(snoring.recall == 1)
        #expect(clips.accuracy == 3.0 / 5.0)
        let confusion = clips.confusion
        #expect(confusion.labels == ["alarm", "other", "snoring"])
        #expect(confusion.counts[confusion.labels.firstIndex(of: "other")!][confusion.predictions.firstIndex(of: "snoring")!] == 1)
        #expect(clips.noneOfOurs.clips == 2 && clips.noneOfOurs.takenForOurs == 1)
    }

    /// `other` is the model's class of none of ours, not a class a label can hold: a label that names it, or a line mapping
    /// a label to it, is none of ours, with or without a map.
    @Test func otherIsNoneOfOursWithoutAMap() throws {
        #expect(LabelMap().target(for: "other") == LabelMap.Target.none)
        #expect(LabelMap().target(for: "snoring") == .classes(["snoring"]))
        let map = try LabelMap.parse("household\tother\nhum\tother,rain\n")
        #expect(map.target(for: "household") == LabelMap.Target.none)
        #expect(map.target(for: "hum") == .classes(["other", "rain"]), "a label that may also be one of ours keeps its classes")
        var clips = ClipEvaluation(map: LabelMap())
        clips.add(path: "1", label: "other", predicted: "silence")
        clips.add(path: "2", label: "other", predicted: "other")
        clips.add(path: "3", label: "other", predicted: "cough")
        clips.add(path: "4", label: "cough", predicted: "cough")
        #expect(clips.clips.map(clips.isCorrect) == [true, true, false, true])
        #expect(clips.scoredClasses == ["cough"])
        #expect(clips.counts(for: "cough").falsePositives == 1)
        #expect(clips.noneOfOurs.clips == 3 && clips.noneOfOurs.takenForOurs == 1)
    }
}

/// `LabelMap`'s mixed bags (`~classes`) and file-name patterns (a third column), and how clips of a mixed bag are scored.
@Suite struct MixedBagLabelTests {
    let map = try! LabelMap.parse("other\t\nother\t~crying_sobbing,speech\tbag__0_*\nbaby\tcrying_sobbing\n")

    @Test func aPatternDecidesForTheFilesItMatchesOnly() {
        #expect(map.target(for: "other", path: "/data/other/bag__0_12.wav") == .mixed(["crying_sobbing", "speech"]))
        #expect(map.target(for: "other", path: "/data/other/bag__noise.wav") == LabelMap.Target.none)
        #expect(map.target(for: "other") == LabelMap.Target.none, "without a path, the line without a pattern")
        #expect(map.target(for: "baby", path: "/data/baby/bag__0_1.wav") == .classes(["crying_sobbing"]),
                "a pattern decides only for its own label")
    }

    @Test(arguments: ["other\t~\n", "other\t~ , \n", "other\t~speech\t\n", "other\tspeech\tbag*\textra\n"])
    func malformedLinesAreRefused(text: String) {
        #expect(throws: DCASETable.ParseError.self) { try LabelMap.parse(text) }
    }

    @Test func aClassTheBagMayHoldIsNotJudged() {
        var clips = ClipEvaluation(map: map)
        clips.add(path: "b/bag__0_1.wav", label: "other", predicted: "crying_sobbing")  // may be a cry: not judged
        clips.add(path: "b/bag__0_2.wav", label: "other", predicted: "silence")  // nothing: a correct rejection
        clips.add(path: "b/bag__0_3.wav", label: "other", predicted: "snoring")  // not in the bag: a false positive
        clips.add(path: "b/noise.wav", label: "other", predicted: "crying_sobbing")  // none of ours: a false positive
        clips.add(path: "c/cry.wav", label: "baby", predicted: "crying_sobbing")
        clips.add(path: "s/snore.wav", label: "snoring", predicted: "snoring")
        #expect(clips.unjudged == 1)
        #expect(clips.isCorrect(clips.clips[0]) == nil)
        #expect(clips.isCorrect(clips.clips[1]) == true)
        #expect(clips.isCorrect(clips.clips[2]) == false)
        let crying = clips.counts(for: "crying_sobbing")
        #expect(crying.truePositives == 1 && crying.falsePositives == 1, "the bag's cry is neither; the noise's is false")
        #expect(clips.counts(for: "snoring").falsePositives == 1)
        #expect(clips.accuracy == 3.0 / 5.0, "over the five judged clips")
        #expect(clips.reliability.reduce(0) { $0 + $1.clips } == 4, "the unjudged clip has no place in the reliability table")
    }
}

/// A dataset's finer category (a manifest's `orig_label`), named in the map after a colon (`other:screaming`).
@Suite struct LabelCategoryTests {
    let map = try! LabelMap.parse("""
        alarm\tsiren
        alarm:clock_alarm\talarm_clock
        alarm\talarm_clock\tphone_*
        other
        other:screaming\tscreaming

        """)

    @Test func theWholeLabelDecidesFirstThenPatternsThenTheLabelAlone() {
        #expect(map.target(for: "other", detail: "screaming", path: "x/1.wav") == .classes(["screaming"]))
        #expect(map.target(for: "other", detail: "footsteps", path: "x/1.wav") == LabelMap.Target.none, "a category without a line: its label's")
        #expect(map.target(for: "alarm", detail: "clock_alarm", path: "x/phone_1.wav") == .classes(["alarm_clock"]))
        #expect(map.target(for: "alarm", detail: "alarm", path: "x/phone_1.wav") == .classes(["alarm_clock"]), "the label's pattern")
        #expect(map.target(for: "alarm", detail: "alarm", path: "x/house.wav") == .classes(["siren"]))
        #expect(map.target(for: "alarm", path: "x/phone_2.wav") == .classes(["alarm_clock"]), "a plain label's pattern before its line")
        #expect(map.target(for: "cough", detail: "coughing") == .classes(["cough"]), "unnamed: the class of the label's name")
    }

    /// An annotation's label is never split at a colon: it maps to itself.
    @Test func aLabelWithAColonIsWhole() {
        #expect(map.target(for: "=HYPERLINK(\"http://x\",\"y\")") == .classes(["=HYPERLINK(\"http://x\",\"y\")"]))
        #expect(map.target(for: "other:screaming") == .classes(["screaming"]), "a label spelt as a map line is that line")
    }

    @Test func theConfusionMatrixKeepsACategoryOnlyWhereTheMapNamesIt() {
        var clips = ClipEvaluation(map: map)
        clips.add(path: "1", label: "other", detail: "screaming", predicted: "screaming")
        clips.add(path: "2", label: "other", detail: "footsteps", predicted: "silence")
        clips.add(path: "3", label: "other", detail: "keyboard", predicted: "silence")
        let confusion = clips.confusion
        #expect(confusion.labels == ["other", "other:screaming"])
        #expect(confusion.counts[0] == [0, 2], "footsteps and keyboard are one row, 'other'")
        #expect(clips.counts(for: "screaming").truePositives == 1)
    }
}
