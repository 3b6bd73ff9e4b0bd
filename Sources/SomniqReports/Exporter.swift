import Foundation
import SomniqEvaluation
import SomniqFeatures
import SomniqStore

/// Writes stored results in the formats people already use: our JSON (with a schema), RFC 4180 CSV,
/// Audacity label tracks, Raven selection tables and DCASE event lists.
///
/// Every format is a stream: rows go to the sink as SQLite reads them, in that order, so memory stays flat however many
/// recordings and windows are exported (`scripts/bench/run` measures it).
public struct Exporter {
    public enum Format: String, CaseIterable, Sendable { case json, csv, audacity, raven, dcase }
    public enum What: String, CaseIterable, Sendable { case windows, detections, alerts, episodes, events, nights }

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
    /// The zone whose calendar dates the nights (`--what nights`: the evening each began).
    public var timeZone: TimeZone

    public init(store: AnalysisStore, timeZone: TimeZone = .current) {
        self.store = store
        self.timeZone = timeZone
    }

    /// Writes the chosen items of the given recordings (complete analyses only) to `sink`.
    public func export(recordings ids: [Int64], what: What, profile: String?, format: Format, to sink: ByteSink) throws {
        var records: [RecordingRecord] = []
        for id in ids {
            if let record = try store.recording(id: id), record.status == "complete" { records.append(record) }
        }
        switch format {
        case .json: try writeJSON(records, what: what, profile: profile, to: sink)
        case .csv: try writeCSV(records, what: what, profile: profile, to: sink)
        case .audacity, .raven, .dcase:
            if what == .windows || what == .nights { throw Error.notSupported(format: format.rawValue, what: what.rawValue) }
            if format != .dcase, records.count != 1 { throw Error.oneRecordingOnly(format: format.rawValue, count: records.count) }
            try writeLabels(records, what: what, profile: profile, format: format, to: sink)
        }
    }

    static func classIDs(of record: RecordingRecord) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data((record.classIDs ?? "[]").utf8))) ?? []
    }

    // MARK: - Label tables

    /// A stored item as a labelled stretch of time (alerts are points), with what a Raven table adds.
    struct Item {
        var event: SoundEvent
        var tier: String
        var profile: String
        var confidence: Double
        var startUTC: String
    }

    func forEachItem(of record: RecordingRecord, what: What, profile: String?, _ body: (Item) throws -> Void) throws {
        let file = record.fileName
        switch what {
        case .episodes:
            try store.forEachEpisode(recordingID: record.id, profile: profile) {
                try body(Item(event: SoundEvent(file: file, onset: $0.startOffsetSeconds, offset: $0.endOffsetSeconds, label: $0.classID),
                              tier: $0.tier, profile: $0.profile, confidence: $0.peakConfidence, startUTC: $0.startUTC))
            }
        case .alerts:
            try store.forEachAlert(recordingID: record.id, profile: profile) {
                try body(Item(event: SoundEvent(file: file, onset: $0.offsetSeconds, offset: $0.offsetSeconds, label: $0.classID),
                              tier: $0.tier, profile: $0.profile, confidence: $0.confidence, startUTC: $0.utc))
            }
        case .detections:
            let duration = record.durationSeconds ?? 0
            try store.forEachDetection(recordingID: record.id) {
                try body(Item(event: SoundEvent(file: file, onset: $0.startOffsetSeconds, offset: min(duration, $0.startOffsetSeconds + 1),
                                                label: $0.classID),
                              tier: "", profile: "", confidence: $0.confidence, startUTC: $0.startUTC))
            }
        case .events:
            try store.forEachSoundEvent(recordingID: record.id) {
                try body(Item(event: SoundEvent(file: file, onset: $0.onsetSeconds, offset: $0.offsetSeconds, label: $0.classID),
                              tier: "", profile: "", confidence: $0.confidence, startUTC: $0.onsetUTC))
            }
        case .windows, .nights:
            return
        }
    }

    static let ravenHeader = "Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tClass\tTier\tProfile"
        + "\tConfidence\tBegin UTC\n"

    func writeLabels(_ records: [RecordingRecord], what: What, profile: String?, format: Format, to sink: ByteSink) throws {
        var out = ByteWriter(sink: sink)
        switch format {
        case .dcase: out.write(DCASETable.header + "\n")
        case .raven: out.write(Self.ravenHeader)
        default: break
        }
        var selection = 0
        for record in records {
            guard format == .raven else {
                try forEachItem(of: record, what: what, profile: profile) { item in
                    out.write(format == .audacity ? AudacityLabels.line(item.event) : DCASETable.line(item.event))
                }
                continue
            }
            // A Raven table holds one recording: its selections are gathered, then each one's band read from its windows.
            var items: [Item] = []
            try forEachItem(of: record, what: what, profile: profile) { items.append($0) }
            let nyquist = Double(record.sampleRate ?? 0) / 2
            for item in items {
                selection += 1
                let band = SelectionBand.of(try store.windowFeatures(recordingID: record.id, windows: Self.windows(of: item.event, in: record),
                                                                     featureIDs: SelectionBand.featureIDs), nyquistHz: nyquist)
                // A Raven table is tab-separated with no escapes: a tab or line break in a cell becomes a space.
                func cell(_ text: String) -> String { String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 }) }
                out.write("\(selection)\tSpectrogram 1\t1\t\(String(format: "%.6f", item.event.onset))\t\(String(format: "%.6f", item.event.offset))"
                           + "\t\(CSVText.number(band.low))\t\(CSVText.number(band.high))\t\(cell(item.event.label))\t\(cell(item.tier))"
                           + "\t\(cell(item.profile))\t\(String(format: "%.4f", item.confidence))\t\(cell(item.startUTC))\n")
            }
        }
        out.flush()
    }

    /// The windows that share time with `event` (for a point, the windows holding it), within the recording's.
    static func windows(of event: SoundEvent, in record: RecordingRecord) -> ClosedRange<Int> {
        let last = max(0, (record.windowCount ?? 1) - 1)
        let hop = AnalysisGrid.hopSeconds, length = AnalysisGrid.windowSeconds
        let first = min(last, max(0, Int(((event.onset - length) / hop).rounded(.down)) + 1))
        let end = max(first, min(last, Int((max(event.offset, event.onset + 1e-9) / hop).rounded(.up)) - 1))
        return first...end
    }

    // MARK: - CSV

    static let csvColumns: [What: [String]] = [
        .episodes: ["recording_id", "file", "profile", "class", "tier", "severity", "start_offset_s", "end_offset_s", "start_utc",
                    "end_utc", "duration_s", "peak_confidence", "alert_count", "suppressed_count", "activation_count", "peak_dbfs",
                    "mean_dbfs", "peak_over_background_db"],
        .alerts: ["recording_id", "file", "profile", "class", "tier", "kind", "offset_s", "utc", "window_index", "confidence", "episode_id"],
        .detections: ["recording_id", "file", "window_index", "class", "confidence", "start_offset_s", "start_utc"],
        .events: ["recording_id", "file", "class", "event_index", "onset_s", "offset_s", "duration_s", "onset_utc", "peak_dbfs",
                  "confidence", "bout_index"],
        .windows: ["recording_id", "file", "window_index", "start_offset_s", "end_offset_s", "start_utc", "rms_dbfs", "snr_db",
                   "top_class", "top_confidence"],
        .nights: nightColumns,
    ]

    func writeCSV(_ records: [RecordingRecord], what: What, profile: String?, to sink: ByteSink) throws {
        var csv = CSVRowWriter(sink: sink)
        let classColumns = what == .windows ? Array(Set(records.flatMap(Self.classIDs))).sorted() : []
        csv.write(row: Self.csvColumns[what]! + classColumns)
        if what == .nights {
            try writeNightsCSV(records, profile: profile, to: &csv)
            csv.flush()
            return
        }
        for record in records {
            let id = record.id
            // The recording's two leading cells, quoted and neutralised once rather than on every row.
            let lead = CSVText.make { $0.integer(id); $0.text(record.path) }
            switch what {
            case .episodes:
                try store.forEachEpisode(recordingID: id, profile: profile) { e in
                    csv.plain(lead)
                    csv.text(e.profile); csv.text(e.classID); csv.text(e.tier); csv.text(e.severity)
                    csv.seconds(e.startOffsetSeconds); csv.seconds(e.endOffsetSeconds); csv.text(e.startUTC); csv.text(e.endUTC)
                    csv.seconds(e.durationSeconds); csv.number(Float(e.peakConfidence))
                    csv.integer(e.alertCount); csv.integer(e.suppressedCount); csv.integer(e.activationCount)
                    for level in [e.peakDbfs, e.meanDbfs, e.peakOverBackgroundDb] {
                        if let level { csv.number(Float(level)) } else { csv.plain("") }
                    }
                    csv.endRow()
                }
            case .alerts:
                try store.forEachAlert(recordingID: id, profile: profile) { a in
                    csv.plain(lead)
                    csv.text(a.profile); csv.text(a.classID); csv.text(a.tier); csv.text(a.kind); csv.seconds(a.offsetSeconds)
                    csv.text(a.utc); csv.integer(a.windowIndex); csv.number(Float(a.confidence)); csv.integer(a.episodeID)
                    csv.endRow()
                }
            case .detections:
                try store.forEachDetection(recordingID: id) { d in
                    csv.plain(lead)
                    csv.integer(d.windowIndex); csv.text(d.classID); csv.number(Float(d.confidence)); csv.seconds(d.startOffsetSeconds)
                    csv.text(d.startUTC)
                    csv.endRow()
                }
            case .events:
                try store.forEachSoundEvent(recordingID: id) { e in
                    csv.plain(lead)
                    csv.text(e.classID); csv.integer(e.eventIndex); csv.seconds(e.onsetSeconds); csv.seconds(e.offsetSeconds)
                    csv.seconds(e.durationSeconds); csv.text(e.onsetUTC); csv.number(Float(e.peakDbfs)); csv.number(Float(e.confidence))
                    if let bout = e.boutIndex { csv.integer(bout) } else { csv.plain("") }
                    csv.endRow()
                }
            case .nights:
                break
            case .windows:
                // Where each class column's confidence sits in this recording's stored order (its model's classes).
                let stored = Self.classIDs(of: record)
                let sources = classColumns.map { stored.firstIndex(of: $0) }
                try store.forEachWindow(recordingID: id) { w in
                    csv.plain(lead)
                    csv.integer(w.windowIndex); csv.seconds(w.startOffsetSeconds); csv.seconds(w.endOffsetSeconds); csv.text(w.startUTC)
                    csv.number(Float(w.rmsDbfs)); csv.number(Float(w.snrDb)); csv.text(w.topClass); csv.number(Float(w.topConfidence))
                    for source in sources {
                        if let source, source < w.confidences.count { csv.number(Float(w.confidences[source])) } else { csv.plain("") }
                    }
                    csv.endRow()
                }
            }
        }
        csv.flush()
    }

    // MARK: - JSON

    /// `fixtures/schema/export-v1.schema.json`: the export object, one member per recording, its items one per line.
    func writeJSON(_ records: [RecordingRecord], what: What, profile: String?, to sink: ByteSink) throws {
        var json = JSONStreamWriter(sink: sink)
        json.beginObject(multiline: true)
        json.integer("schemaVersion", Self.schemaVersion)
        json.string("what", what.rawValue)
        if let profile { json.string("profile", profile) }
        json.beginArray("recordings", multiline: true)
        let tags = try store.tagsByRecording()
        let nights = what == .nights ? try nightRows(records, profile: profile) : []
        for (position, r) in records.enumerated() {
            json.beginObject(multiline: true)
            json.integer("id", r.id)
            json.string("path", r.path)
            json.string("fileName", r.fileName)
            if let start = r.startUTC { json.string("startUtc", start) }
            if let duration = r.durationSeconds { json.seconds("durationSeconds", duration) }
            if let rate = r.sampleRate { json.integer("sampleRate", rate) }
            if r.truncated, let declared = r.declaredFrames {
                json.bool("truncated", true)
                json.integer("declaredFrames", declared)
            }
            if r.faults.clipping != nil { json.bool("clipped", true) }
            if r.faults.cancellation != nil { json.bool("channelsCancel", true) }
            if let channel = r.channel { json.integer("channel", channel) }
            json.string("model", "\(r.modelName ?? "")@\(r.modelVersion ?? "")+profiles@\(r.profilesVersion ?? "")")
            if let hash = r.contentHash {
                json.string("contentHash", hash)
                // A recording stored with a SHA-256 identity still gives it under the name schema 1 always had.
                if hash.utf8.count == 64 { json.string("contentSha256", hash) }
            }
            if let nightTags = tags[r.id], !nightTags.isEmpty {
                json.beginArray("tags")
                for tag in nightTags { json.string(nil, tag) }
                json.endArray()
            }
            json.beginArray(what.rawValue, multiline: true)
            switch what {
            case .nights:
                writeNightJSON(nights[position], to: &json)
            case .episodes:
                try store.forEachEpisode(recordingID: r.id, profile: profile) { e in
                    json.beginObject()
                    json.integer("id", e.id); json.string("profile", e.profile); json.string("class", e.classID)
                    json.string("tier", e.tier); json.string("severity", e.severity)
                    json.seconds("startOffsetSeconds", e.startOffsetSeconds); json.seconds("endOffsetSeconds", e.endOffsetSeconds)
                    json.string("startUtc", e.startUTC); json.string("endUtc", e.endUTC); json.seconds("durationSeconds", e.durationSeconds)
                    json.number("peakConfidence", Float(e.peakConfidence)); json.integer("alertCount", e.alertCount)
                    json.integer("suppressedCount", e.suppressedCount); json.integer("activationCount", e.activationCount)
                    if let peak = e.peakDbfs { json.number("peakDbfs", Float(peak)) }
                    if let mean = e.meanDbfs { json.number("meanDbfs", Float(mean)) }
                    if let over = e.peakOverBackgroundDb { json.number("peakOverBackgroundDb", Float(over)) }
                    json.endObject()
                }
            case .alerts:
                try store.forEachAlert(recordingID: r.id, profile: profile) { a in
                    json.beginObject()
                    json.integer("id", a.id); json.string("profile", a.profile); json.string("class", a.classID)
                    json.string("tier", a.tier); json.string("kind", a.kind); json.seconds("offsetSeconds", a.offsetSeconds)
                    json.string("utc", a.utc); json.integer("windowIndex", a.windowIndex); json.number("confidence", Float(a.confidence))
                    json.integer("episodeId", a.episodeID)
                    json.endObject()
                }
            case .detections:
                try store.forEachDetection(recordingID: r.id) { d in
                    json.beginObject()
                    json.integer("windowIndex", d.windowIndex); json.string("class", d.classID); json.number("confidence", Float(d.confidence))
                    json.seconds("startOffsetSeconds", d.startOffsetSeconds); json.string("startUtc", d.startUTC)
                    json.endObject()
                }
            case .events:
                try store.forEachSoundEvent(recordingID: r.id) { e in
                    json.beginObject()
                    json.string("class", e.classID); json.integer("eventIndex", e.eventIndex); json.seconds("onsetSeconds", e.onsetSeconds)
                    json.seconds("offsetSeconds", e.offsetSeconds); json.seconds("durationSeconds", e.durationSeconds)
                    json.string("onsetUtc", e.onsetUTC); json.number("peakDbfs", Float(e.peakDbfs)); json.number("confidence", Float(e.confidence))
                    if let bout = e.boutIndex { json.integer("boutIndex", bout) }
                    json.endObject()
                }
            case .windows:
                let classIDs = Self.classIDs(of: r)
                // A class listed twice keeps its first confidence, as a JSON object holds each key once.
                let firsts = classIDs.indices.filter { classIDs.firstIndex(of: classIDs[$0]) == $0 }
                try store.forEachWindow(recordingID: r.id) { w in
                    json.beginObject()
                    json.integer("windowIndex", w.windowIndex); json.seconds("startOffsetSeconds", w.startOffsetSeconds)
                    json.seconds("endOffsetSeconds", w.endOffsetSeconds); json.string("startUtc", w.startUTC)
                    json.number("rmsDbfs", Float(w.rmsDbfs)); json.number("snrDb", Float(w.snrDb)); json.string("topClass", w.topClass)
                    json.number("topConfidence", Float(w.topConfidence))
                    json.beginObject("confidences")
                    for index in firsts where index < w.confidences.count { json.number(classIDs[index], Float(w.confidences[index])) }
                    json.endObject()
                    json.endObject()
                }
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        json.finish()
    }
}
