import Foundation
import SomniqStore

/// `export --what nights`: one row per night for spreadsheets: the snorer's figures (`night_summaries`), episodes by
/// tier under one profile, and the night's tags.
extension Exporter {
    /// One night's row, read from the store.
    struct NightRow {
        var record: RecordingRecord
        /// The evening the night began, `2026-11-21` (the date 12 hours before its start, in `timeZone`).
        var nightOf: String
        var summary: NightSummaryRecord?
        /// The profile the episode counts are of; nil when the night was run under none.
        var profile: String?
        var episodesByTier: [String: Int]
        var tags: [String]
    }

    static let tiers = ["critical", "high", "medium", "low"]

    static let nightColumns = [
        "recording_id", "file", "night_of", "start_utc", "duration_h", "snore_score", "snoring_share", "snoring_minutes",
        "quiet_minutes", "light_minutes", "loud_minutes", "very_loud_minutes", "snores", "snores_per_hour",
        "loudest_snore_over_room_db", "breaths_per_minute", "breaths_per_minute_low", "breaths_per_minute_high",
        "quiet_breaths_per_minute", "profile", "critical_episodes", "high_episodes", "medium_episodes", "low_episodes", "tags",
    ]

    /// The nights of `records` in their order. The episode counts are under `profile`, or where it is not given under
    /// balanced when the night was run under it, else the first profile it was run under.
    func nightRows(_ records: [RecordingRecord], profile: String?) throws -> [NightRow] {
        let summaries = try store.nightSummaries()
        let runs = try store.profileRuns()
        let tags = try store.tagsByRecording()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return try records.map { record in
            let stored = (runs[record.id] ?? []).map(\.profile)
            let chosen = profile.flatMap { stored.contains($0) ? $0 : nil }
                ?? (profile == nil ? (stored.contains("balanced") ? "balanced" : stored.first) : nil)
            var nightOf = ""
            if let start = record.startUTC.flatMap(UTCTimestamp.parse) {
                let evening = Date(timeIntervalSince1970: Double(start) / 1000 - 12 * 3600)
                let parts = calendar.dateComponents([.year, .month, .day], from: evening)
                nightOf = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
            }
            return NightRow(record: record, nightOf: nightOf, summary: summaries[record.id], profile: chosen,
                            episodesByTier: try chosen.map { try store.episodeCountsByTier(recordingID: record.id, profile: $0) } ?? [:],
                            tags: tags[record.id] ?? [])
        }
    }

    /// `value` rounded to `digits` decimals: the figures are estimates, and a spreadsheet need not show binary noise.
    static func rounded(_ value: Double?, _ digits: Int) -> Double? {
        guard let value, value.isFinite else { return nil }
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    func writeNightsCSV(_ records: [RecordingRecord], profile: String?, to csv: inout CSVRowWriter) throws {
        for night in try nightRows(records, profile: profile) {
            let s = night.summary
            csv.integer(night.record.id); csv.text(night.record.path); csv.text(night.nightOf); csv.text(night.record.startUTC ?? "")
            let numbers: [Double?] = [
                Self.rounded(night.record.durationSeconds.map { $0 / 3600 }, 3), Self.rounded(s?.snoreScore, 1),
                Self.rounded(s?.snoringShare, 4), Self.rounded(s?.snoringMinutes, 2), Self.rounded(s?.quietMinutes, 2),
                Self.rounded(s?.lightMinutes, 2), Self.rounded(s?.loudMinutes, 2), Self.rounded(s?.veryLoudMinutes, 2),
                s.map { Double($0.snores) }, Self.rounded(s?.snoresPerHour, 1), Self.rounded(s?.loudestSnoreOverRoomDb, 1),
                Self.rounded(s?.breathsPerMinute, 1), Self.rounded(s?.breathsPerMinuteLow, 1), Self.rounded(s?.breathsPerMinuteHigh, 1),
                Self.rounded(s?.quietBreathsPerMinute, 1),
            ]
            for number in numbers { if let number { csv.number(number) } else { csv.plain("") } }
            csv.text(night.profile ?? "")
            for tier in Self.tiers {
                if night.profile != nil { csv.integer(night.episodesByTier[tier] ?? 0) } else { csv.plain("") }
            }
            csv.text(night.tags.joined(separator: ";"))
            csv.endRow()
        }
    }

    /// The night's object (`$defs/night` of the export schema).
    func writeNightJSON(_ night: NightRow, to json: inout JSONStreamWriter) {
        json.beginObject()
        json.string("nightOf", night.nightOf)
        if let s = night.summary {
            json.number("snoreScore", Self.rounded(s.snoreScore, 1))
            json.number("snoringShare", Self.rounded(s.snoringShare, 4))
            json.number("snoringMinutes", Self.rounded(s.snoringMinutes, 2))
            json.beginObject("bandMinutes")
            json.number("quiet", Self.rounded(s.quietMinutes, 2)); json.number("light", Self.rounded(s.lightMinutes, 2))
            json.number("loud", Self.rounded(s.loudMinutes, 2)); json.number("veryLoud", Self.rounded(s.veryLoudMinutes, 2))
            json.endObject()
            json.integer("snores", s.snores)
            json.number("snoresPerHour", Self.rounded(s.snoresPerHour, 1))
            if let loudest = s.loudestSnoreOverRoomDb { json.number("loudestSnoreOverRoomDb", Self.rounded(loudest, 1)) }
            func pace(_ key: String, _ median: Double?, _ low: Double?, _ high: Double?, _ count: Int) {
                guard let median, let low, let high else { return }
                json.beginObject(key)
                json.number("median", Self.rounded(median, 1)); json.number("low", Self.rounded(low, 1))
                json.number("high", Self.rounded(high, 1)); json.integer("count", count)
                json.endObject()
            }
            pace("breathsPerMinute", s.breathsPerMinute, s.breathsPerMinuteLow, s.breathsPerMinuteHigh, s.breathsCounted)
            pace("quietBreathsPerMinute", s.quietBreathsPerMinute, s.quietBreathsPerMinuteLow, s.quietBreathsPerMinuteHigh,
                 s.quietBreathingWindows)
        }
        if let profile = night.profile {
            json.string("profile", profile)
            json.beginObject("episodesByTier")
            for tier in Self.tiers { json.integer(tier, night.episodesByTier[tier] ?? 0) }
            json.endObject()
        }
        json.endObject()
    }
}
