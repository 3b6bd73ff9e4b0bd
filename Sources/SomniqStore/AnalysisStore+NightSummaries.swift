import Foundation
import GRDB
import SomniqDetection
import SomniqFeatures

/// A row of `night_summaries`: the snorer's figures of one night (`NightSummary`).
public struct NightSummaryRecord: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "night_summaries"

    public var recordingID: Int64
    public var snoreScore: Double
    public var snores: Int
    public var snoresPerHour: Double
    public var snoringMinutes: Double
    public var snoringShare: Double
    public var quietMinutes: Double
    public var lightMinutes: Double
    public var loudMinutes: Double
    public var veryLoudMinutes: Double
    public var loudestSnoreOverRoomDb: Double?
    public var breathsPerMinute: Double?
    public var breathsPerMinuteLow: Double?
    public var breathsPerMinuteHigh: Double?
    public var breathsCounted: Int
    public var quietBreathsPerMinute: Double?
    public var quietBreathsPerMinuteLow: Double?
    public var quietBreathsPerMinuteHigh: Double?
    public var quietBreathingWindows: Int

    /// Minutes of snoring per band, in `NightSummary.Band.allCases` order.
    public var bandMinutes: [Double] { [quietMinutes, lightMinutes, loudMinutes, veryLoudMinutes] }

    enum CodingKeys: String, CodingKey {
        case snores
        case recordingID = "recording_id", snoreScore = "snore_score", snoresPerHour = "snores_per_hour"
        case snoringMinutes = "snoring_minutes", snoringShare = "snoring_share", quietMinutes = "quiet_minutes"
        case lightMinutes = "light_minutes", loudMinutes = "loud_minutes", veryLoudMinutes = "very_loud_minutes"
        case loudestSnoreOverRoomDb = "loudest_snore_over_room_db", breathsPerMinute = "breaths_per_minute"
        case breathsPerMinuteLow = "breaths_per_minute_low", breathsPerMinuteHigh = "breaths_per_minute_high"
        case breathsCounted = "breaths_counted", quietBreathsPerMinute = "quiet_breaths_per_minute"
        case quietBreathsPerMinuteLow = "quiet_breaths_per_minute_low", quietBreathsPerMinuteHigh = "quiet_breaths_per_minute_high"
        case quietBreathingWindows = "quiet_breathing_windows"
    }

    public init(recordingID: Int64, _ summary: NightSummary) {
        self.recordingID = recordingID
        snoreScore = summary.score
        snores = summary.snores
        snoresPerHour = summary.snoresPerHour
        snoringMinutes = summary.snoringSeconds / 60
        snoringShare = summary.snoringShare
        let minutes = summary.bandSeconds.map { $0 / 60 }
        quietMinutes = minutes[0]
        lightMinutes = minutes[1]
        loudMinutes = minutes[2]
        veryLoudMinutes = minutes[3]
        loudestSnoreOverRoomDb = summary.loudestOverRoomDb.map(Double.init)
        breathsPerMinute = summary.snoringPace?.median
        breathsPerMinuteLow = summary.snoringPace?.low
        breathsPerMinuteHigh = summary.snoringPace?.high
        breathsCounted = summary.snoringPace?.count ?? 0
        quietBreathsPerMinute = summary.quietBreathingPace?.median
        quietBreathsPerMinuteLow = summary.quietBreathingPace?.low
        quietBreathsPerMinuteHigh = summary.quietBreathingPace?.high
        quietBreathingWindows = summary.quietBreathingPace?.count ?? 0
    }
}

extension AnalysisStore {
    /// The night summary of a complete recording; nil for a failed one or one with nothing timed.
    public func nightSummary(recordingID: Int64) throws(StoreError) -> NightSummaryRecord? {
        try read { db in
            try NightSummaryRecord.fetchOne(db, sql: "SELECT * FROM night_summaries WHERE recording_id = ?", arguments: [recordingID])
        }
    }

    /// Every stored night summary, by recording id.
    public func nightSummaries() throws(StoreError) -> [Int64: NightSummaryRecord] {
        try read { db in
            Dictionary(uniqueKeysWithValues: try NightSummaryRecord.fetchAll(db, sql: "SELECT * FROM night_summaries").map { ($0.recordingID, $0) })
        }
    }

    /// A recording's episodes under `profile`, counted by tier.
    public func episodeCountsByTier(recordingID: Int64, profile: String) throws(StoreError) -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT tier, COUNT(*) FROM episodes WHERE recording_id = ? AND profile = ? GROUP BY tier",
                                        arguments: [recordingID, profile]) {
                counts[row[0]] = row[1]
            }
            return counts
        }
    }

    static func insertNightSummary(_ db: Database, _ summary: NightSummary, recordingID: Int64) throws {
        try NightSummaryRecord(recordingID: recordingID, summary).insert(db)
        for (index, bout) in summary.bouts.enumerated() {
            try db.execute(sql: """
                UPDATE bouts SET breaths_per_minute = ?, breaths_per_minute_low = ?, breaths_per_minute_high = ?
                WHERE recording_id = ? AND class_id = ? AND bout_index = ?
                """, arguments: [bout.pace?.median, bout.pace?.low, bout.pace?.high, recordingID, NightSummary.snoringClass, index])
        }
    }

    /// Computes and stores the night summary of every complete recording that has none, from its stored snores, bouts,
    /// level envelope and windows (the figures `analyze` stores for a new night): how a database from before the
    /// summaries gets them without decoding any audio.
    static func fillNightSummaries(_ db: Database) throws {
        let missing = try Row.fetchAll(db, sql: """
            SELECT id, duration_s, feature_ids FROM recordings r
            WHERE status = 'complete' AND NOT EXISTS (SELECT 1 FROM night_summaries s WHERE s.recording_id = r.id)
            ORDER BY id
            """)
        for row in missing {
            let id: Int64 = row[0], duration: Double = row[1] ?? 0, featureJSON: String? = row[2]
            let codes = try Data.fetchAll(db, sql: "SELECT levels FROM recording_envelopes WHERE recording_id = ? ORDER BY chunk",
                                          arguments: [id]).flatMap { [UInt8]($0) }
            guard !codes.isEmpty else { continue }  // nothing was timed: no snore, no summary
            let snores = try Row.fetchAll(db, sql: """
                SELECT onset_s, offset_s, peak_dbfs, confidence, bout_index FROM sound_events
                WHERE recording_id = ? AND class_id = ? ORDER BY event_index
                """, arguments: [id, NightSummary.snoringClass]).map { event in
                RecurringEvent(classIndex: 0, onsetSeconds: event[0], offsetSeconds: event[1], peakDbfs: Float(event[2] as Double),
                               confidence: Float(event[3] as Double), bout: event[4])
            }
            let bouts = try Row.fetchAll(db, sql: """
                SELECT onset_s, offset_s, event_count FROM bouts WHERE recording_id = ? AND class_id = ? ORDER BY bout_index
                """, arguments: [id, NightSummary.snoringClass]).map { bout in
                Bout(classIndex: 0, onsetSeconds: bout[0], offsetSeconds: bout[1], eventCount: bout[2])
            }
            let summary = NightSummary(durationSeconds: duration, snores: snores, bouts: bouts,
                                       background: BackgroundLevel(envelope: LevelEnvelope(codes: codes)),
                                       breathingRhythm: try storedSteadyBreathing(db, recordingID: id, featureJSON: featureJSON))
            try insertNightSummary(db, summary, recordingID: id)
        }
    }

    /// The windows of a stored recording where breathing was heard with a steady rhythm, from their stored class on top
    /// and features.
    private static func storedSteadyBreathing(_ db: Database, recordingID: Int64, featureJSON: String?) throws -> [NightSummary.RhythmWindow] {
        guard let featureJSON, let ids = try? JSONDecoder().decode([String].self, from: Data(featureJSON.utf8)),
              let periodicity = ids.firstIndex(of: FeatureID.breathingPeriodicity.rawValue),
              let period = ids.firstIndex(of: FeatureID.breathingPeriodSeconds.rawValue) else { return [] }
        var windows: [NightSummary.RhythmWindow] = []
        var values: [Float] = []
        let rows = try Row.fetchCursor(db, sql: """
            SELECT window_index, top_class, top_confidence, features FROM windows WHERE recording_id = ? AND top_class = ?
            ORDER BY window_index
            """, arguments: [recordingID, NightSummary.breathingClass])
        while let row = try rows.next() {
            FloatBlob.decode(row[3], into: &values)
            guard values.count == ids.count else { continue }
            if let window = NightSummary.RhythmWindow(window: row[0], topClass: row[1], topConfidence: Float(row[2] as Double),
                                                      periodicity: values[periodicity],
                                                      periodSeconds: values[period]) {
                windows.append(window)
            }
        }
        return windows
    }
}
