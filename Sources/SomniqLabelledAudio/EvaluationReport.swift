import SomniqPipeline
import Foundation
import SomniqEvaluation
import SomniqFit
import SomniqReports

/// The `evaluate` output in its three formats.
public enum EvaluationReport {
    static func number(_ value: Double?) -> String { value.map { Formatting.fixed($0, 3) } ?? "—" }

    static func rows(_ scores: DetectionScores) -> [(scope: String, label: String, counts: DetectionCounts?)] {
        [("overall", "micro", scores.overall)] + [("macro", "class average", nil)]
            + scores.labels.map { ("class", $0, scores.classWise[$0]!) }
    }

    static func table(_ scores: DetectionScores) -> TextTable {
        var table = TextTable(headers: ["", "F1", "P", "R", "ER", "ref", "sys", "TP", "FP", "FN"],
                              alignments: [.left] + Array(repeating: .right, count: 9))
        for row in rows(scores) {
            if let counts = row.counts {
                table.append([row.label, number(counts.f1), number(counts.precision), number(counts.recall),
                              number(counts.errorRate), String(counts.nRef), String(counts.nSys), String(counts.truePositives),
                              String(counts.falsePositives), String(counts.falseNegatives)])
            } else {
                table.append([row.label, number(scores.macro(\.f1)), number(scores.macro(\.precision)),
                              number(scores.macro(\.recall)), number(scores.macro(\.errorRate)), "", "", "", "", ""])
            }
        }
        return table
    }

    /// Which classes each column of the class average covers, where they differ: an average of F1 over the classes the
    /// system detected beside a recall over every class with a reference reads as a contradiction otherwise.
    static func coverage(_ scores: DetectionScores) -> String {
        let columns: [(String, [String])] = [("F1", scores.macroClasses(\.f1)), ("P", scores.macroClasses(\.precision)),
                                             ("R", scores.macroClasses(\.recall)), ("ER", scores.macroClasses(\.errorRate))]
        guard Set(columns.map(\.1)).count > 1 else { return "" }
        var groups: [(names: [String], classes: [String])] = []
        for (name, classes) in columns {
            if let index = groups.firstIndex(where: { $0.classes == classes }) { groups[index].names.append(name) } else { groups.append(([name], classes)) }
        }
        let parts = groups.map { group in
            "\(group.names.joined(separator: ", ")) over \(group.classes.count) of \(scores.labels.count) classes"
                + (group.classes.count == scores.labels.count ? "" : " (\(group.classes.joined(separator: ", ")))")
        }
        return "    class average: " + parts.joined(separator: "; ") + "; a class without a detection has no F1 or P\n"
    }

    public static func eventsTable(_ evaluation: EventEvaluation) -> String {
        var text = "Scored like sed_eval: segment-based on \(Formatting.fixed(evaluation.segmentResolution, 1)) s segments; "
            + "event-based with an onset collar of \(Formatting.fixed(evaluation.onsetCollar, 1)) s and an offset collar of "
            + "max(\(Formatting.fixed(evaluation.onsetCollar, 1)) s, \(Int(evaluation.offsetFraction * 100))% of the event). "
            + "Detected events are each profile's episodes. Micro: pooled counts; macro: mean over classes (— where undefined).\n"
        for profile in evaluation.profiles {
            text += "\nprofile \(profile.profile)\n"
            text += "  segment-based\n" + table(profile.segmentBased).render(indent: "    ") + coverage(profile.segmentBased)
            text += "  event-based\n" + table(profile.eventBased).render(indent: "    ") + coverage(profile.eventBased)
        }
        return text
    }

    struct Scores: Encodable {
        struct Macro: Encodable {
            var f1: Double?, precision: Double?, recall: Double?, errorRate: Double?
            /// The classes each average is taken over.
            var f1Classes: [String], precisionClasses: [String], recallClasses: [String], errorRateClasses: [String]
        }
        var overall: DetectionCounts
        var macro: Macro
        var classWise: [String: DetectionCounts]
        init(_ scores: DetectionScores) {
            overall = scores.overall
            macro = Macro(f1: scores.macro(\.f1), precision: scores.macro(\.precision), recall: scores.macro(\.recall),
                          errorRate: scores.macro(\.errorRate), f1Classes: scores.macroClasses(\.f1),
                          precisionClasses: scores.macroClasses(\.precision), recallClasses: scores.macroClasses(\.recall),
                          errorRateClasses: scores.macroClasses(\.errorRate))
            classWise = scores.classWise
        }
    }

    public static func eventsJSON(_ evaluation: EventEvaluation) throws -> String {
        struct Profile: Encodable { var profile: String, segmentBased: Scores, eventBased: Scores }
        struct Output: Encodable {
            var mode = "events"
            var segmentResolutionSeconds: Double, onsetCollarSeconds: Double, offsetCollarFraction: Double
            var unmatchedReferenceFiles: [String]
            var profiles: [Profile]
        }
        return try JSONOutput.encode(Output(
            segmentResolutionSeconds: evaluation.segmentResolution, onsetCollarSeconds: evaluation.onsetCollar,
            offsetCollarFraction: evaluation.offsetFraction, unmatchedReferenceFiles: evaluation.unmatchedReferenceFiles,
            profiles: evaluation.profiles.map {
                Profile(profile: $0.profile, segmentBased: Scores($0.segmentBased), eventBased: Scores($0.eventBased))
            }))
    }

    static let csvHeader = ["profile", "metric", "scope", "label", "f1", "precision", "recall", "error_rate",
                            "n_ref", "n_sys", "tp", "fp", "fn"]

    static func csvRows(profile: String, metric: String, _ scores: DetectionScores) -> [[String]] {
        func value(_ number: Double?) -> String { number.map { CSVText.number($0) } ?? "" }
        return rows(scores).map { row in
            if let counts = row.counts {
                return [profile, metric, row.scope, row.label, value(counts.f1), value(counts.precision), value(counts.recall),
                        value(counts.errorRate), String(counts.nRef), String(counts.nSys), String(counts.truePositives),
                        String(counts.falsePositives), String(counts.falseNegatives)]
            }
            return [profile, metric, row.scope, "", value(scores.macro(\.f1)), value(scores.macro(\.precision)),
                    value(scores.macro(\.recall)), value(scores.macro(\.errorRate)), "", "", "", "", ""]
        }
    }

    public static func eventsCSV(_ evaluation: EventEvaluation) -> String {
        CSVText.make { writer in
            writer.write(row: csvHeader)
            for profile in evaluation.profiles {
                for row in csvRows(profile: profile.profile, metric: "segment", profile.segmentBased) { writer.write(row: row) }
                for row in csvRows(profile: profile.profile, metric: "event", profile.eventBased) { writer.write(row: row) }
            }
        }
    }

    // MARK: - Clips

    public static let clipRule = CrossValidation.clipRule

    static func clipScores(_ evaluation: ClipEvaluation) -> DetectionScores {
        var scores = DetectionScores()
        for label in evaluation.scoredClasses { scores.classWise[label] = evaluation.counts(for: label) }
        return scores
    }

    /// How a window of a recording labelled by events is scored (`fit --labels --cross-validate`).
    public static let windowRule = "each window's top class (above the model's detection floor) against the class of "
        + "the event covering half of it; a window of no event is none of ours, for which silence or other is right"

    /// The scores as a table; `windows`: the scored items are the windows of recordings labelled by events, not clips.
    public static func clipsTable(_ evaluation: ClipEvaluation, windows: Bool = false) -> String {
        let item = windows ? "window" : "clip"
        var text = windows ? "Window rule: \(windowRule).\n" : "Clip rule: \(clipRule).\n"
        text += "\(Formatting.counted(evaluation.clips.count, item)) scored, "
            + (windows ? "" : "\(evaluation.excluded) excluded by the label map, "
                + "\(evaluation.unjudged) predicted as a class their mixed bag may hold (not judged); ")
            + "accuracy \(number(evaluation.accuracy)), macro F1 \(number(evaluation.macroF1))\n"
        let none = evaluation.noneOfOurs
        if none.clips > 0 {
            text += "of \(Formatting.counted(none.clips, "\(item)")) of none of our classes\(windows ? " (no event)" : ""), "
                + "\(none.takenForOurs) (\(Formatting.fixed(100 * Double(none.takenForOurs) / Double(none.clips), 1))%) taken for one of ours\n"
        }
        text += "\n"
        var table = TextTable(headers: ["class", "F1", "P", "R", "\(item)s", "predicted", "TP"],
                              alignments: [.left, .right, .right, .right, .right, .right, .right])
        for label in evaluation.scoredClasses {
            let counts = evaluation.counts(for: label)
            table.append([label, number(counts.f1), number(counts.precision), number(counts.recall), String(counts.nRef),
                          String(counts.nSys), String(counts.truePositives)])
        }
        text += table.render()
        let confusion = evaluation.confusion
        var matrix = TextTable(headers: ["label \\ predicted"] + confusion.predictions,
                               alignments: [.left] + confusion.predictions.map { _ in .right })
        for (row, label) in confusion.labels.enumerated() { matrix.append([label] + confusion.counts[row].map(String.init)) }
        var reliability = TextTable(headers: ["confidence", "\(item)s", "right", "share right"], alignments: [.left, .right, .right, .right])
        for bin in evaluation.reliability {
            reliability.append(["\(Formatting.fixed(Double(bin.lower), 1))–\(Formatting.fixed(Double(bin.lower) + 0.1, 1))",
                                String(bin.clips), String(bin.correct), Formatting.fixed(Double(bin.correct) / Double(bin.clips), 2)])
        }
        return text + "\nconfusion matrix\n" + matrix.render()
            + (windows ? "\nreliability (windows whose top class is one of ours, by its confidence)\n"
                : "\nreliability (clips predicted as a class, by that class's geometric mean confidence over the loud windows)\n")
            + reliability.render()
    }

    public static func clipsJSON(_ evaluation: ClipEvaluation) throws -> String {
        struct Confusion: Encodable { var labels: [String], predictions: [String], counts: [[Int]] }
        /// `expected`: the classes the label allows (none: a sound of none of ours, or a mixed bag); `mayHold`: a mixed bag's.
        struct Prediction: Encodable {
            var path: String, label: String, predicted: String, confidence: Float, correct: Bool?, expected: [String], mayHold: [String]?
        }
        struct Bin: Encodable { var confidenceFrom: Float, clips: Int, correct: Int }
        struct Output: Encodable {
            var mode = "clips"
            var rule: String
            var clips: Int, excluded: Int
            /// Clips predicted as a class their mixed bag may hold: neither right nor wrong (their `correct` is absent).
            var unjudged: Int
            var accuracy: Double?, macroF1: Double?
            /// Clips of none of our classes, and how many were predicted as one of ours.
            var noneOfOurs: Int, noneOfOursTakenForOurs: Int
            var classWise: [String: DetectionCounts]
            var confusion: Confusion
            var reliability: [Bin]
            var predictions: [Prediction]
        }
        let confusion = evaluation.confusion
        return try JSONOutput.encode(Output(
            rule: clipRule, clips: evaluation.clips.count, excluded: evaluation.excluded, unjudged: evaluation.unjudged,
            accuracy: evaluation.accuracy,
            macroF1: evaluation.macroF1,
            noneOfOurs: evaluation.noneOfOurs.clips, noneOfOursTakenForOurs: evaluation.noneOfOurs.takenForOurs,
            classWise: Dictionary(uniqueKeysWithValues: evaluation.scoredClasses.map { ($0, evaluation.counts(for: $0)) }),
            confusion: Confusion(labels: confusion.labels, predictions: confusion.predictions, counts: confusion.counts),
            reliability: evaluation.reliability.map { Bin(confidenceFrom: $0.lower, clips: $0.clips, correct: $0.correct) },
            predictions: evaluation.clips.map { clip in
                var expected: [String] = [], mayHold: [String]? = nil
                switch evaluation.target(of: clip) {
                case .classes(let classes): expected = classes
                case .mixed(let classes): mayHold = classes
                case .none, .excluded: break
                }
                return Prediction(path: clip.path, label: LabelMap.label(clip.label, detail: clip.detail), predicted: clip.predicted,
                                  confidence: clip.confidence,
                                  correct: evaluation.isCorrect(clip), expected: expected, mayHold: mayHold)
            }))
    }

    public static func clipsCSV(_ evaluation: ClipEvaluation) -> String {
        CSVText.make { writer in
            writer.write(row: csvHeader)
            for row in csvRows(profile: "", metric: "clip", clipScores(evaluation)) where row[2] != "overall" {
                writer.write(row: row)
            }
        }
    }
}
