import Foundation
import SomniqModel
import SomniqReports
import SomniqStore

/// The `classify` output in its three formats.
public enum ClassificationReport {
    /// One classified file.
    public struct File: Sendable {
        public var data: RecordingData
        public var summary: ClassificationSummary
        /// The file's class as a clip (`ClassificationSummary.clipVerdict`): the rule `evaluate` scores clips by.
        public var dominantClass: String
        public var includeFeatures: Bool
        /// Whether every class's confidence and each window's part in the dominant class are printed (json and csv).
        public var includeConfidences: Bool
        /// The windows the dominant class is read from (`TopClass.loudWindows`).
        public var loud: [Bool]

        /// `data` analysed with its levels or features kept in memory (`FeatureKeeping.levels`, `.inMemory`).
        public init(_ data: RecordingData, detectionFloor: Float, includeFeatures: Bool, includeConfidences: Bool = false) {
            self.data = data
            summary = ClassificationSummary(data, detectionFloor: detectionFloor)
            let levels = ClassificationSummary.levels(data)
            dominantClass = summary.clipVerdict(data, levels: levels).label
            self.includeFeatures = includeFeatures
            self.includeConfidences = includeConfidences
            loud = TopClass.loudWindows(levels: levels)
        }

        /// Every class's confidence in `window`, in `data.classIDs`' order.
        func confidences(window: Int) -> ArraySlice<Float> {
            let count = data.classIDs.count
            return data.confidences[(window * count)..<((window + 1) * count)]
        }

        func features(window: Int) -> [Float] {
            let count = data.featureIDs.count
            return Array(data.features[(window * count)..<((window + 1) * count)])
        }

        /// Classes by seconds on top, most first (ties by name).
        var rankedClasses: [(String, Double)] {
            summary.secondsPerClass.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        }
    }

    public static func table(_ files: [File]) -> String {
        var text = ""
        for file in files {
            text += "\(Formatting.printable(file.data.path)): \(Formatting.fixed(file.data.durationSeconds, 1)) s, \(file.summary.headline); "
                + "dominant: \(file.dominantClass)\n"
            if !file.data.undetectableClasses.isEmpty {
                text += "  not detectable at \(file.data.sampleRate) Hz: \(file.data.undetectableClasses.joined(separator: ", "))\n"
            }
            var windows = TextTable(headers: ["window", "start", "end", "class", "confidence"],
                                    alignments: [.right, .right, .right, .left, .right])
            for window in file.summary.windows {
                windows.append([String(window.index), Formatting.fixed(window.startSeconds, 1), Formatting.fixed(window.endSeconds, 1),
                                window.topClass, Formatting.fixed(Double(window.confidence), 3)])
            }
            text += windows.render(indent: "  ")
            var seconds = TextTable(headers: ["class", "seconds", "share"], alignments: [.left, .right, .right])
            for (label, value) in file.rankedClasses {
                seconds.append([label, Formatting.fixed(value, 1), Formatting.fixed(100 * value / file.data.durationSeconds, 1) + "%"])
            }
            text += "  seconds per class:\n" + seconds.render(indent: "  ") + "\n"
        }
        return text
    }

    public static func json(_ files: [File], bundle: ModelBundle) throws -> String {
        struct Window: Encodable {
            var index: Int, start: Double, end: Double, topClass: String, confidence: Float
            /// Whether the window is one the dominant class is read from; with every class's confidence.
            var loud: Bool?
            var confidences: [String: Float]?
            /// A missing feature (the recording lacks its band) is null.
            var features: [String: Float?]?
        }
        struct Summary: Encodable {
            var dominantClass: String
            var secondsPerClass: [String: Double]
        }
        struct Entry: Encodable {
            var path: String, durationSeconds: Double, sampleRate: Int, channels: Int, windowCount: Int
            var undetectableClasses: [String]
            var summary: Summary
            var windows: [Window]
        }
        struct Output: Encodable {
            var model: String
            var files: [Entry]
        }
        let entries = files.map { file in
            Entry(path: file.data.path, durationSeconds: file.data.durationSeconds, sampleRate: file.data.sampleRate,
                  channels: file.data.channelCount, windowCount: file.data.windowCount,
                  undetectableClasses: file.data.undetectableClasses,
                  summary: Summary(dominantClass: file.dominantClass, secondsPerClass: file.summary.secondsPerClass),
                  windows: file.summary.windows.map { window in
                      Window(index: window.index, start: window.startSeconds, end: window.endSeconds, topClass: window.topClass,
                             confidence: window.confidence,
                             loud: file.includeConfidences ? file.loud[window.index] : nil,
                             confidences: file.includeConfidences
                                ? Dictionary(uniqueKeysWithValues: zip(file.data.classIDs, file.confidences(window: window.index)))
                                : nil,
                             features: file.includeFeatures
                                ? Dictionary(uniqueKeysWithValues: zip(file.data.featureIDs,
                                                                      file.features(window: window.index).map { $0.isNaN ? nil : $0 }))
                                : nil)
                  })
        }
        return try JSONOutput.encode(Output(model: "\(bundle.classifier.name)@\(bundle.classifier.version)", files: entries))
    }

    /// Window rows (`record` = `window`), then per file one `summary` row per class with its seconds;
    /// the dominant class's row says `dominant`. With confidences, a `loud` column (1 for the windows the dominant
    /// class is read from) and a `confidence_<class>` column per class follow `seconds`, before any features.
    public static func csv(_ files: [File]) -> String {
        let featureIDs = files.first(where: \.includeFeatures)?.data.featureIDs ?? []
        let classIDs = files.first(where: \.includeConfidences)?.data.classIDs ?? []
        let confidenceColumns = classIDs.isEmpty ? [] : ["loud"] + classIDs.map { "confidence_\($0)" }
        return CSVText.make { writer in
            writer.write(row: ["record", "file", "window", "start_s", "end_s", "class", "confidence", "seconds"]
                         + confidenceColumns + featureIDs)
            for file in files {
                let ownConfidences = file.includeConfidences && file.data.classIDs == classIDs
                for window in file.summary.windows {
                    let confidences = ownConfidences
                        ? [file.loud[window.index] ? "1" : "0"] + file.confidences(window: window.index).map { CSVText.number($0) }
                        : Array(repeating: "", count: confidenceColumns.count)
                    let features = file.includeFeatures ? file.features(window: window.index).map { CSVText.number($0) } : []
                    writer.write(row: ["window", file.data.path, String(window.index), CSVText.number(window.startSeconds),
                                           CSVText.number(window.endSeconds), window.topClass,
                                           CSVText.number(window.confidence), ""] + confidences + features
                                     + Array(repeating: "", count: featureIDs.count - features.count))
                }
                for (label, seconds) in file.rankedClasses {
                    writer.write(row: [label == file.dominantClass ? "dominant" : "summary", file.data.path, "", "", "",
                                           label, "", CSVText.number(seconds)]
                                     + Array(repeating: "", count: confidenceColumns.count + featureIDs.count))
                }
            }
        }
    }
}
