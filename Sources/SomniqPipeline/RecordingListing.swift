import Foundation
import SomniqReports
import SomniqStore

/// The stored recordings, one line each (`somniq-analyze recordings`): enough to find a recording's id, see what
/// failed and why, and which profiles ran, without exporting anything.
public struct RecordingListing: Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        public var id: Int64
        public var path: String
        public var startUtc: String?
        /// Where the start came from (`RecordingStartTime.Source`: `explicit`, `file-name`, `metadata`,
        /// `file-name-local`, `modification-time`).
        public var startSource: String?
        /// The night it belongs to, as the report dates nights (local time; `tag`, `report` and the rest take it).
        public var night: String?
        public var durationSeconds: Double?
        public var status: String
        public var errorCode: String?
        public var errorMessage: String?
        /// The file held less audio than its header promised and was analysed as far as it went.
        public var truncated: Bool
        public var declaredFrames: Int64?
        /// The recording is clipped (`RecordingFaults.clipping`), or its channels cancel in the mono mix.
        public var clipped: Bool
        public var channelsCancel: Bool
        /// The one channel analysed (from 1; `analyze --channel`), `nil` for the channels mixed.
        public var channel: Int?
        public var sampleRate: Int?
        /// `name@version`, for a complete analysis.
        public var model: String?
        public var profiles: [AnalysisStore.ProfileRun]
        /// The night's tags (`somniq-analyze tag`), sorted.
        public var tags: [String]
    }

    public var entries: [Entry]

    /// - Parameter timeZone: the zone the nights are dated in.
    public init(store: AnalysisStore, timeZone: TimeZone = .current) throws(StoreError) {
        let runs = try store.profileRuns()
        let tags = try store.tagsByRecording()
        entries = try store.recordings().map { record in
            Entry(id: record.id, path: record.path, startUtc: record.startUTC, startSource: record.startSource,
                  night: record.startUTC.flatMap(UTCTimestamp.parse).map { Formatting.nightDate($0, timeZone: timeZone) },
                  durationSeconds: record.durationSeconds,
                  status: record.status, errorCode: record.errorCode, errorMessage: record.errorMessage,
                  truncated: record.truncated, declaredFrames: record.declaredFrames, clipped: record.faults.clipping != nil,
                  channelsCancel: record.faults.cancellation != nil, channel: record.channel, sampleRate: record.sampleRate,
                  model: record.modelName.map { "\($0)@\(record.modelVersion ?? "")" }, profiles: runs[record.id] ?? [],
                  tags: tags[record.id] ?? [])
        }
    }

    /// What a line says about the recording's state: complete, cut short, partial (stored by a follow as it was heard),
    /// or failed and why.
    static func state(_ entry: Entry) -> String {
        switch entry.status {
        case "complete":
            (["complete"] + [entry.truncated ? "cut short" : nil, entry.clipped ? "clipped" : nil, entry.channelsCancel ? "channels cancel" : nil,
                             entry.channel.map { "channel \($0) alone" }].compactMap { $0 }).joined(separator: ", ")
        case "partial": "partial (followed live)"
        default: "failed: \(entry.errorCode ?? "error")"
        }
    }

    /// The start source of a recording dated by its file's modification time, which the table marks.
    static let fileTime = "modification-time"

    static func episodes(_ entry: Entry) -> String {
        entry.profiles.map { "\($0.profile) \($0.episodes)" }.joined(separator: ", ")
    }

    public func table() -> String {
        var table = TextTable(headers: ["id", "night", "start (UTC)", "duration", "status", "model", "episodes per profile", "tags", "path"],
                              alignments: [.right, .left, .left, .right, .left, .left, .left, .left, .left])
        for entry in entries {
            let start = (entry.startUtc ?? "") + (entry.startSource == Self.fileTime ? " *" : "")
            table.append([String(entry.id), entry.night ?? "", start, entry.durationSeconds.map(Formatting.clock) ?? "", Self.state(entry),
                          entry.model ?? "", Self.episodes(entry), entry.tags.joined(separator: ","), entry.path])
        }
        var text = table.render()
        // Why each failure failed, below the table (messages are long).
        for entry in entries where entry.status == "failed" {
            text += "\(entry.id): \(entry.errorMessage ?? entry.errorCode ?? "failed")\n"
        }
        if entries.contains(where: { $0.startSource == Self.fileTime }) {
            text += "* start taken from the file's modification time (no date and time in its name or its recorder's chunk), "
                + "which copying a file resets: check its night, and set it with analyze FILE --start (nothing is decoded again)\n"
        }
        if entries.contains(where: { $0.status == "failed" }) {
            text += "a failed file stays listed until it is analysed again or removed ('somniq-analyze remove --failed' removes them all)\n"
        }
        let complete = entries.filter { $0.status == "complete" }.count
        let partial = entries.filter { $0.status == "partial" }.count
        text += "\(Formatting.counted(entries.count, "recording")): \(complete) complete, \(entries.count - complete - partial) failed"
        if partial > 0 {
            text += ", \(partial) partial (stored by a follow as it was heard: the night is stored whole when its follow ends, "
                + "or by analysing its recording)"
        }
        return text + "\n"
    }

    public func json() throws -> String { try JSONOutput.encode(entries) }

    public func csv() -> String {
        CSVText.make { writer in
            writer.write(row: ["id", "path", "start_utc", "night", "duration_s", "status", "error_code", "error_message", "truncated",
                               "declared_frames", "sample_rate", "model", "profiles", "episodes", "alerts", "tags", "start_source",
                               "clipped", "channels_cancel", "channel"])
            for entry in entries {
                writer.integer(entry.id); writer.text(entry.path); writer.text(entry.startUtc ?? ""); writer.text(entry.night ?? "")
                if let duration = entry.durationSeconds { writer.number(duration) } else { writer.plain("") }
                writer.text(entry.status); writer.text(entry.errorCode ?? ""); writer.text(entry.errorMessage ?? "")
                writer.integer(entry.truncated ? 1 : 0)
                if let declared = entry.declaredFrames { writer.integer(declared) } else { writer.plain("") }
                if let rate = entry.sampleRate { writer.integer(rate) } else { writer.plain("") }
                writer.text(entry.model ?? "")
                writer.text(entry.profiles.map(\.profile).joined(separator: " "))
                writer.text(entry.profiles.map { "\($0.profile)=\($0.episodes)" }.joined(separator: " "))
                writer.text(entry.profiles.map { "\($0.profile)=\($0.alerts)" }.joined(separator: " "))
                writer.text(entry.tags.joined(separator: ","))
                writer.text(entry.startSource ?? "")
                writer.integer(entry.clipped ? 1 : 0); writer.integer(entry.channelsCancel ? 1 : 0)
                if let channel = entry.channel { writer.integer(channel) } else { writer.plain("") }
                writer.endRow()
            }
        }
    }
}
