import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqPipeline
import SomniqStore
import Testing

/// A night recorded in pieces (a recorder restarted, a file split at its size limit) is one night to `trends`, not
/// several each holding part of its snoring.
@Suite struct NightPiecesTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// 2026-11-21 22:00 UTC, a night's start.
    static let evening: Int64 = 1_795_298_400_000

    func summary(_ id: Int64, hours: Double, score: Double, snores: Int, share: Double, breaths: Int = 0,
                 loudest: Double? = nil) -> NightSummaryRecord {
        var night = NightSummary(durationSeconds: hours * 3600, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
        night.score = score
        night.snoringSeconds = share * hours * 3600
        var record = NightSummaryRecord(recordingID: id, night)
        record.snores = snores
        record.snoresPerHour = Double(snores) / hours
        record.breathsCounted = breaths
        record.breathsPerMinute = breaths > 0 ? 10 + Double(id) : nil
        record.loudestSnoreOverRoomDb = loudest
        return record
    }

    /// Two pieces of one night, one after the other: one night, its score and share the whole night's (weighted by
    /// each piece's length), its snores summed and an hour over the whole, its tags both pieces'. A night apart and a
    /// night recorded twice at once (two recorders) stay as they are.
    @Test func piecesThatFollowOneAnotherAreOneNight() throws {
        let first = summary(1, hours: 2, score: 40, snores: 200, share: 0.30, breaths: 50, loudest: 21)
        let second = summary(2, hours: 6, score: 20, snores: 300, share: 0.10, breaths: 400, loudest: 33)
        let nextNight = summary(3, hours: 8, score: 10, snores: 100, share: 0.05)
        let recordings: [(summary: NightSummaryRecord, tags: [String])] = [(first, ["mouthguard"]), (second, ["side"]), (nextNight, [])]
        let starts: [Int64: Int64] = [1: Self.evening, 2: Self.evening + 2 * 3_600_000 + 400, 3: Self.evening + 24 * 3_600_000]
        let durations: [Int64: Double] = [1: 7200, 2: 21_600, 3: 28_800]
        let nights = NightPieces.nights(recordings, starts: starts, durations: durations, timeZone: Self.utc)
        #expect(nights.map(\.recordingIDs) == [[1, 2], [3]])
        let whole = nights[0].summary
        #expect(whole.recordingID == 1)
        #expect(abs(whole.snoreScore - 25) < 1e-9, "(40 × 2 h + 20 × 6 h) / 8 h")
        #expect(abs(whole.snoringShare - 0.15) < 1e-9, "(0.3 × 2 + 0.1 × 6) / 8")
        #expect(whole.snores == 500 && abs(whole.snoresPerHour - 62.5) < 1e-9)
        #expect(abs(whole.snoringMinutes - (36 + 36)) < 1e-9)
        #expect(whole.loudestSnoreOverRoomDb == 33)
        #expect(whole.breathsCounted == 400 && whole.breathsPerMinute == 12, "the pace of the piece that counted the most breaths")
        #expect(nights[0].tags == ["mouthguard", "side"])
        #expect(nights[1].summary == nextNight)

        // Overlapping by more than a second: two recorders that night, not one in pieces.
        var overlapping = starts
        overlapping[2] = Self.evening + 2 * 3_600_000 - 1_500
        #expect(NightPieces.nights(recordings, starts: overlapping, durations: durations, timeZone: Self.utc).map(\.recordingIDs) == [[1], [2], [3]])
        // Without a length, a recording is left as it is.
        #expect(NightPieces.nights(recordings, starts: starts, durations: [1: 7200, 3: 28_800], timeZone: Self.utc).count == 3)
        // The night is local: 11:30 and 12:30 UTC are two nights in UTC, one in Tokyo (20:30 and 21:30).
        let noon = Self.evening + 13 * 3_600_000 + 1_800_000
        let aroundNoon: [Int64: Int64] = [1: noon, 2: noon + 3_600_000, 3: noon + 48 * 3_600_000]
        let short: [Int64: Double] = [1: 1800, 2: 1800, 3: 1800]
        #expect(NightPieces.nights(recordings, starts: aroundNoon, durations: short, timeZone: Self.utc).count == 3)
        #expect(NightPieces.nights(recordings, starts: aroundNoon, durations: short, timeZone: TimeZone(identifier: "Asia/Tokyo")!).count == 2)
    }

    /// `trends` counts a night in pieces once: its tests see one score for it, and it says how many recordings made the
    /// nights.
    @Test func trendsCountANightInPiecesOnce() {
        var recordings: [(summary: NightSummaryRecord, tags: [String])] = []
        var starts: [Int64: Int64] = [:], durations: [Int64: Double] = [:]
        for night in 0..<6 {
            let id = Int64(night * 2 + 1)
            let guarded = night < 3
            recordings.append((summary(id, hours: 4, score: guarded ? 10 : 40, snores: 100, share: 0.1), guarded ? ["mouthguard"] : []))
            starts[id] = Self.evening + Int64(night) * 86_400_000
            durations[id] = 14_400
            if night == 0 || night == 4 {
                // The recorder restarted after four hours.
                recordings.append((summary(id + 1, hours: 4, score: guarded ? 14 : 44, snores: 100, share: 0.1), guarded ? ["mouthguard"] : []))
                starts[id + 1] = starts[id]! + 14_400_000 + 20_000
                durations[id + 1] = 14_400
            }
        }
        let comparison = TagComparison(nights: recordings, starts: starts, durations: durations, timeZone: Self.utc)
        #expect(comparison.nights == 6 && comparison.recordings == 8)
        #expect(comparison.piecesNote == "8 recordings make 6 nights: a night recorded in pieces (a recorder restarted, a file split) counts once")
        let row = comparison.rows[0]
        #expect(row.with.nights == 3 && row.without.nights == 3)
        #expect(row.with.highestScore == 12, "the first night's pieces, 10 and 14 over four hours each")
        #expect(comparison.overTime?.nights == 6)
        #expect(comparison.table().hasPrefix("8 recordings make 6 nights"))
        // Without lengths (an older caller), every recording is a night, and nothing is said of pieces.
        let apart = TagComparison(nights: recordings, starts: starts)
        #expect(apart.nights == 8 && apart.recordings == 8 && apart.piecesNote == nil)
    }
}
