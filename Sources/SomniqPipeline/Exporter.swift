import Foundation
import SomniqEvaluation
import SomniqStore

/// Writes stored results in the formats people already use: our JSON (with a schema), RFC 4180 CSV,
/// Audacity label tracks, Raven selection tables and DCASE event lists.
public struct Exporter {
    public enum Format: String, CaseIterable, Sendable { case json, csv, audacity, raven, dcase }
    public enum What: String, CaseIterable, Sendable { case windows, detections, alerts, episodes, events }

    public enum Error: Swift.Error, CustomStringConvertible {
        case oneRecordingOnly(format: String, count: Int)
        case notSupported(format: String, what: String)

        public var description: String {
            switch self {
            case .oneRecordingOnly(let format, let count):
                "error: \(format) tables describe one recording, but \(count) were selected; choose one with --recording"
            case .notSupported(let format, let what):
                "error: \(format) cannot hold \(what); export them as json or csv"
            }
        }
    }

    public static let schemaVersion = 1

    public let store: AnalysisStore

    public init(store: AnalysisStore) { self.store = store }

    /// One stored recording and the items chosen from it.
    struct Selection {
        var record: RecordingRecord
        var episodes: [EpisodeRecord] = []
        var alerts: [AlertRecord] = []
        var detections: [DetectionRecord] = []
        var windows: [WindowRecord] = []
        var events: [SoundEventRecord] = []
        var classIDs: [String] = []
    }

    public func export(recordings ids: [Int64], what: What, profile: String?, format: Format) throws -> String {
        var selections: [Selection] = []
        for id in ids {
            guard let record = try store.recording(id: id), record.status == "complete" else { continue }
            var selection = Selection(record: record)
            selection.classIDs = (try? JSONDecoder().decode([String].self, from: Data((record.classIDs ?? "[]").utf8))) ?? []
            switch what {
            case .episodes: selection.episodes = try store.episodes(recordingID: id, profile: profile)
            case .alerts: selection.alerts = try store.alerts(recordingID: id, profile: profile)
            case .detections: selection.detections = try store.detections(recordingID: id)
            case .windows: selection.windows = try store.windows(recordingID: id)
            case .events: selection.events = try store.soundEvents(recordingID: id)
            }
            selections.append(selection)
        }
        switch format {
        case .json: return try json(selections, what: what, profile: profile)
        case .csv: return try csv(selections, what: what)
        case .audacity, .raven, .dcase:
            if what == .windows { throw Error.notSupported(format: format.rawValue, what: "windows") }
            if format != .dcase, selections.count != 1 { throw Error.oneRecordingOnly(format: format.rawValue, count: selections.count) }
            let items = selections.flatMap { self.items(of: $0, what: what) }
            switch format {
            case .audacity: return AudacityLabels.format(items.map { $0.event })
            case .dcase: return DCASETable.format(items.map { $0.event })
            default: return raven(items, sampleRate: selections.first?.record.sampleRate ?? 0)
            }
        }
    }

    /// A stored item as a labelled stretch of time (alerts are points), with what a Raven table adds.
    struct Item {
        var event: SoundEvent
        var tier: String
        var profile: String
        var confidence: Double
        var startUTC: String
    }

    func items(of selection: Selection, what: What) -> [Item] {
        let file = selection.record.fileName
        switch what {
        case .episodes:
            return selection.episodes.map {
                Item(event: SoundEvent(file: file, onset: $0.startOffsetSeconds, offset: $0.endOffsetSeconds, label: $0.classID),
                     tier: $0.tier, profile: $0.profile, confidence: $0.peakConfidence, startUTC: $0.startUTC)
            }
        case .alerts:
            return selection.alerts.map {
                Item(event: SoundEvent(file: file, onset: $0.offsetSeconds, offset: $0.offsetSeconds, label: $0.classID),
                     tier: $0.tier, profile: $0.profile, confidence: $0.confidence, startUTC: $0.utc)
            }
        case .detections:
            let duration = selection.record.durationSeconds ?? 0
            return selection.detections.map {
                Item(event: SoundEvent(file: file, onset: $0.startOffsetSeconds, offset: min(duration, $0.startOffsetSeconds + 1),
                                       label: $0.classID),
                     tier: "", profile: "", confidence: $0.confidence, startUTC: $0.startUTC)
            }
        case .events:
            return selection.events.map {
                Item(event: SoundEvent(file: file, onset: $0.onsetSeconds, offset: $0.offsetSeconds, label: $0.classID),
                     tier: "", profile: "", confidence: $0.confidence, startUTC: $0.onsetUTC)
            }
        case .windows:
            return []
        }
    }

    func raven(_ items: [Item], sampleRate: Int) -> String {
        var text = "Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tClass\tTier\tProfile\tConfidence\tBegin UTC\n"
        for (index, item) in items.enumerated() {
            text += "\(index + 1)\tSpectrogram 1\t1\t\(String(format: "%.6f", item.event.onset))\t\(String(format: "%.6f", item.event.offset))"
                + "\t0\t\(sampleRate / 2)\t\(item.event.label)\t\(item.tier)\t\(item.profile)\t\(String(format: "%.4f", item.confidence))"
                + "\t\(item.startUTC)\n"
        }
        return text
    }

    // MARK: - CSV

    static let csvColumns: [What: [String]] = [
        .episodes: ["recording_id", "file", "profile", "class", "tier", "severity", "start_offset_s", "end_offset_s", "start_utc",
                    "end_utc", "duration_s", "peak_confidence", "alert_count", "suppressed_count", "activation_count", "peak_dbfs"],
        .alerts: ["recording_id", "file", "profile", "class", "tier", "kind", "offset_s", "utc", "window_index", "confidence", "episode_id"],
        .detections: ["recording_id", "file", "window_index", "class", "confidence", "start_offset_s", "start_utc"],
        .events: ["recording_id", "file", "class", "event_index", "onset_s", "offset_s", "duration_s", "onset_utc", "peak_dbfs",
                  "confidence", "bout_index"],
        .windows: ["recording_id", "file", "window_index", "start_offset_s", "end_offset_s", "start_utc", "rms_dbfs", "snr_db",
                   "top_class", "top_confidence"],
    ]

    func csv(_ selections: [Selection], what: What) throws -> String {
        let classColumns = what == .windows ? Array(Set(selections.flatMap(\.classIDs))).sorted() : []
        return try CSVText.make { writer in
            try writer.write(row: Self.csvColumns[what]! + classColumns)
            for selection in selections {
                let id = String(selection.record.id), file = selection.record.path
                func n(_ value: Double) -> String { CSVText.number(value) }
                switch what {
                case .episodes:
                    for e in selection.episodes {
                        try writer.write(row: [id, file, e.profile, e.classID, e.tier, e.severity, n(e.startOffsetSeconds), n(e.endOffsetSeconds),
                                               e.startUTC, e.endUTC, n(e.durationSeconds), n(e.peakConfidence), String(e.alertCount),
                                               String(e.suppressedCount), String(e.activationCount), e.peakDbfs.map(n) ?? ""])
                    }
                case .alerts:
                    for a in selection.alerts {
                        try writer.write(row: [id, file, a.profile, a.classID, a.tier, a.kind, n(a.offsetSeconds), a.utc,
                                               String(a.windowIndex), n(a.confidence), String(a.episodeID)])
                    }
                case .detections:
                    for d in selection.detections {
                        try writer.write(row: [id, file, String(d.windowIndex), d.classID, n(d.confidence), n(d.startOffsetSeconds), d.startUTC])
                    }
                case .events:
                    for e in selection.events {
                        try writer.write(row: [id, file, e.classID, String(e.eventIndex), n(e.onsetSeconds), n(e.offsetSeconds),
                                               n(e.durationSeconds), e.onsetUTC, n(e.peakDbfs), n(e.confidence),
                                               e.boutIndex.map(String.init) ?? ""])
                    }
                case .windows:
                    for w in selection.windows {
                        let byClass = Dictionary(zip(selection.classIDs, w.confidences), uniquingKeysWith: { a, _ in a })
                        try writer.write(row: [id, file, String(w.windowIndex), n(w.startOffsetSeconds), n(w.endOffsetSeconds), w.startUTC,
                                               n(w.rmsDbfs), n(w.snrDb), w.topClass, n(w.topConfidence)]
                                         + classColumns.map { byClass[$0].map { CSVText.number($0) } ?? "" })
                    }
                }
            }
        }
    }

    // MARK: - JSON

    struct JSONExport: Encodable {
        var schemaVersion: Int
        var what: String
        var profile: String?
        var recordings: [JSONRecording]
    }

    struct JSONRecording: Encodable {
        var id: Int64, path: String, fileName: String, startUtc: String?, durationSeconds: Double?, sampleRate: Int?
        var model: String
        var contentSha256: String?
        var episodes: [JSONEpisode]?
        var alerts: [JSONAlert]?
        var detections: [JSONDetection]?
        var windows: [JSONWindow]?
        var events: [JSONEvent]?
    }

    struct JSONEvent: Encodable {
        var `class`: String, eventIndex: Int, onsetSeconds: Double, offsetSeconds: Double, durationSeconds: Double, onsetUtc: String
        var peakDbfs: Double, confidence: Double, boutIndex: Int?
    }

    struct JSONEpisode: Encodable {
        var id: Int64, profile: String, `class`: String, tier: String, severity: String
        var startOffsetSeconds: Double, endOffsetSeconds: Double, startUtc: String, endUtc: String, durationSeconds: Double
        var peakConfidence: Double, alertCount: Int, suppressedCount: Int, activationCount: Int
        var peakDbfs: Double?
    }

    struct JSONAlert: Encodable {
        var id: Int64, profile: String, `class`: String, tier: String, kind: String
        var offsetSeconds: Double, utc: String, windowIndex: Int, confidence: Double, episodeId: Int64
    }

    struct JSONDetection: Encodable {
        var windowIndex: Int, `class`: String, confidence: Double, startOffsetSeconds: Double, startUtc: String
    }

    struct JSONWindow: Encodable {
        var windowIndex: Int, startOffsetSeconds: Double, endOffsetSeconds: Double, startUtc: String
        var rmsDbfs: Double, snrDb: Double, topClass: String, topConfidence: Double
        var confidences: [String: Float]
    }

    func json(_ selections: [Selection], what: What, profile: String?) throws -> String {
        try JSONOutput.encode(JSONExport(schemaVersion: Self.schemaVersion, what: what.rawValue, profile: profile, recordings: selections.map { s in
            let r = s.record
            return JSONRecording(
                id: r.id, path: r.path, fileName: r.fileName, startUtc: r.startUTC, durationSeconds: r.durationSeconds,
                sampleRate: r.sampleRate, model: "\(r.modelName ?? "")@\(r.modelVersion ?? "")+profiles@\(r.profilesVersion ?? "")",
                contentSha256: r.contentSHA256,
                episodes: what == .episodes ? s.episodes.map {
                    JSONEpisode(id: $0.id, profile: $0.profile, class: $0.classID, tier: $0.tier, severity: $0.severity,
                                startOffsetSeconds: $0.startOffsetSeconds, endOffsetSeconds: $0.endOffsetSeconds, startUtc: $0.startUTC,
                                endUtc: $0.endUTC, durationSeconds: $0.durationSeconds, peakConfidence: $0.peakConfidence,
                                alertCount: $0.alertCount, suppressedCount: $0.suppressedCount, activationCount: $0.activationCount,
                                peakDbfs: $0.peakDbfs)
                } : nil,
                alerts: what == .alerts ? s.alerts.map {
                    JSONAlert(id: $0.id, profile: $0.profile, class: $0.classID, tier: $0.tier, kind: $0.kind, offsetSeconds: $0.offsetSeconds,
                              utc: $0.utc, windowIndex: $0.windowIndex, confidence: $0.confidence, episodeId: $0.episodeID)
                } : nil,
                detections: what == .detections ? s.detections.map {
                    JSONDetection(windowIndex: $0.windowIndex, class: $0.classID, confidence: $0.confidence,
                                  startOffsetSeconds: $0.startOffsetSeconds, startUtc: $0.startUTC)
                } : nil,
                windows: what == .windows ? s.windows.map { w in
                    JSONWindow(windowIndex: w.windowIndex, startOffsetSeconds: w.startOffsetSeconds, endOffsetSeconds: w.endOffsetSeconds,
                               startUtc: w.startUTC, rmsDbfs: w.rmsDbfs, snrDb: w.snrDb, topClass: w.topClass, topConfidence: w.topConfidence,
                               confidences: Dictionary(zip(s.classIDs, w.confidences), uniquingKeysWith: { a, _ in a }))
                } : nil,
                events: what == .events ? s.events.map {
                    JSONEvent(class: $0.classID, eventIndex: $0.eventIndex, onsetSeconds: $0.onsetSeconds, offsetSeconds: $0.offsetSeconds,
                              durationSeconds: $0.durationSeconds, onsetUtc: $0.onsetUTC, peakDbfs: $0.peakDbfs,
                              confidence: $0.confidence, boutIndex: $0.boutIndex)
                } : nil)
        }))
    }
}
