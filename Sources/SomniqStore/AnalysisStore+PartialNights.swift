import Foundation
import GRDB
import SomniqFeatures
import SomniqModel

/// Nights stored as they are heard (`somniq-analyze follow`): a `recordings` row of status `partial` whose windows are
/// committed a minute at a time, so that a follow stopped by a crash or a power cut loses at most the last minute.
/// Commands that read nights (report, export, trends, compare) take complete recordings only; `recordings` lists a
/// partial one as such. The complete analysis of the same file (at the end of the follow, or a later `analyze`)
/// replaces it in the transaction that stores it.
extension AnalysisStore {
    /// An alert a follow has raised (printed, handed to `--on-alert`), by what identifies it within a night.
    public struct RaisedAlert: Hashable, Sendable {
        public var profile: String
        public var classID: String
        public var kind: String
        public var windowIndex: Int

        public init(profile: String, classID: String, kind: String, windowIndex: Int) {
            self.profile = profile
            self.classID = classID
            self.kind = kind
            self.windowIndex = windowIndex
        }
    }

    /// What a follow stored of a night before it stopped.
    public struct PartialNight: Sendable {
        public var id: Int64
        public var classIDs: [String]
        public var windowCount: Int
        /// The stored windows' confidences, row-major (`windowCount × classIDs.count`): what the audio was heard as.
        public var confidences: [Float]
        public var durationSeconds: Double
        /// The night's start as stored, milliseconds since the epoch (UTC).
        public var startMilliseconds: Int64?
        /// The one channel heard (from 1), `nil` for the channels mixed.
        public var channel: Int?
        public var raised: Set<RaisedAlert>
    }

    /// The partial night stored for the file at `filePath`, if any (the latest).
    public func partialNight(path filePath: String) throws(StoreError) -> PartialNight? {
        guard let row = try read({ db in
            try Row.fetchOne(db, sql: """
                SELECT id, duration_s, start_utc, channel FROM recordings WHERE path = ? AND status = 'partial' ORDER BY id DESC LIMIT 1
                """, arguments: [filePath])
        }) else { return nil }
        let id: Int64 = row[0]
        let stored = try confidences(recordingID: id)
        let raised = try read { db in
            try Row.fetchAll(db, sql: "SELECT profile, class_id, kind, window_index FROM raised_alerts WHERE recording_id = ?",
                             arguments: [id]).map { RaisedAlert(profile: $0[0], classID: $0[1], kind: $0[2], windowIndex: $0[3]) }
        }
        return PartialNight(id: id, classIDs: stored.classIDs, windowCount: stored.windowCount, confidences: stored.values,
                            durationSeconds: row[1] ?? 0, startMilliseconds: (row[2] as String?).flatMap(UTCTimestamp.parse),
                            channel: row[3], raised: Set(raised))
    }

    /// Stores the windows `newWindows` of a night being followed (`data`: everything heard so far) in one transaction.
    /// Without `recordingID` the night's partial row is created first (replacing any partial row of the same path: a
    /// night that is not resumed starts again); with it, the row's length is brought up to date. The level envelope is
    /// rewritten from the hour the new windows begin in. Returns the row's id.
    public func savePartial(_ data: RecordingData, bundle: ModelBundle, newWindows: Range<Int>, recordingID: Int64?,
                            analyzedAt: Date = Date()) throws(StoreError) -> Int64 {
        precondition(newWindows.upperBound <= data.windowCount, "windows beyond what was heard")
        do {
            return try writer.write { db in
                let id: Int64
                if let recordingID {
                    id = recordingID
                    try db.execute(sql: """
                        UPDATE recordings SET frame_count = ?, duration_s = ?, window_count = ?, analyzed_at = ? WHERE id = ? AND status = 'partial'
                        """, arguments: [data.frameCount, data.durationSeconds, newWindows.upperBound, Self.isoNow(analyzedAt), id])
                    guard db.changesCount == 1 else { throw StoreError.writeFailed(path: path, reason: "the partial night \(id) is no longer stored") }
                } else {
                    try db.execute(sql: "DELETE FROM recordings WHERE path = ? AND status = 'partial'", arguments: [data.path])
                    var row = data
                    row.windowCount = newWindows.upperBound
                    id = try insertRecording(db, row, bundle: bundle, analyzedAt: analyzedAt, status: "partial")
                }
                try insertWindows(db, data, recordingID: id, detectionFloor: bundle.classifier.detectionFloor, range: newWindows)
                let firstHour = Int(AnalysisGrid.windowStartSeconds(newWindows.lowerBound)) / Self.envelopeChunkSeconds
                try storeEnvelope(db, data.envelope, recordingID: id, fromChunk: firstHour)
                return id
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Notes that a follow raised `alert` (on the night stored as `recordingID`), so that a follow resumed later does
    /// not raise it again.
    public func noteRaised(_ alert: RaisedAlert, recordingID: Int64, tier: String, offsetSeconds: Double, utc: String,
                           confidence: Float, raisedAt: Date = Date()) throws(StoreError) {
        do {
            try writer.write { db in
                try db.execute(sql: """
                    INSERT OR IGNORE INTO raised_alerts (recording_id, profile, class_id, kind, window_index, tier, offset_s, utc,
                        confidence, raised_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [recordingID, alert.profile, alert.classID, alert.kind, alert.windowIndex, tier, offsetSeconds,
                                     utc, Double(confidence), Self.isoNow(raisedAt)])
            }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Removes a partial night (one whose file no longer holds the audio it was heard from).
    public func deletePartial(id: Int64) throws(StoreError) {
        do {
            try writer.write { db in try db.execute(sql: "DELETE FROM recordings WHERE id = ? AND status = 'partial'", arguments: [id]) }
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
    }
}
