import Foundation
import SomniqStore

/// Recordings that are pieces of one night: a recorder restarted, or a file split at its size limit, leaves a night in
/// two or more recordings, which `trends` would otherwise count as that many nights (each with part of the night's
/// snoring) and so weigh the night more than once in its tests.
///
/// Recordings are pieces of one night when they are dated to the same night (`Formatting.nightDate`: noon to noon,
/// local time) and none overlaps another in time. Recordings of one night that overlap are not pieces of one recording
/// (two recorders, two sleepers) and are left as they are.
public enum NightPieces {
    /// How far a piece may begin before the one before it ends and still follow it (a start rounded to the second).
    static let overlapToleranceMilliseconds: Int64 = 1_000

    /// A night: its summary, its tags, and the recordings it was heard in, in order.
    public struct Night: Equatable, Sendable {
        public var summary: NightSummaryRecord
        public var tags: [String]
        public var recordingIDs: [Int64]
    }

    /// The nights the recordings make: pieces of one night joined into one summary (`joined(_:)`, identified by the
    /// earliest piece's recording id), tagged with every tag of its pieces; every other recording as it is, in the
    /// order given. A recording whose start or length is not known is left as it is.
    public static func nights(_ recordings: [(summary: NightSummaryRecord, tags: [String])], starts: [Int64: Int64],
                              durations: [Int64: Double], timeZone: TimeZone = .current) -> [Night] {
        var byNight: [String: [Int]] = [:]
        for (index, recording) in recordings.enumerated() {
            guard let start = starts[recording.summary.recordingID], durations[recording.summary.recordingID] != nil else { continue }
            byNight[Formatting.nightDate(start, timeZone: timeZone), default: []].append(index)
        }
        // Each recording's night: the index of the first piece, for pieces after the first.
        var joinedInto: [Int: Int] = [:]
        var pieces: [Int: [Int]] = [:]
        for indices in byNight.values where indices.count > 1 {
            let ordered = indices.sorted { starts[recordings[$0].summary.recordingID]! < starts[recordings[$1].summary.recordingID]! }
            let followOneAnother = zip(ordered, ordered.dropFirst()).allSatisfy { earlier, later in
                let id = recordings[earlier].summary.recordingID
                let end = starts[id]! + Int64((durations[id]! * 1000).rounded())
                return starts[recordings[later].summary.recordingID]! >= end - overlapToleranceMilliseconds
            }
            guard followOneAnother else { continue }
            let first = ordered.min()!
            pieces[first] = ordered
            for index in ordered where index != first { joinedInto[index] = first }
        }
        return recordings.indices.compactMap { index in
            guard joinedInto[index] == nil else { return nil }
            guard let ordered = pieces[index] else {
                return Night(summary: recordings[index].summary, tags: recordings[index].tags, recordingIDs: [recordings[index].summary.recordingID])
            }
            let parts = ordered.map { (summary: recordings[$0].summary, durationSeconds: durations[recordings[$0].summary.recordingID]!) }
            return Night(summary: joined(parts), tags: Array(Set(ordered.flatMap { recordings[$0].tags })).sorted(),
                         recordingIDs: ordered.map { recordings[$0].summary.recordingID })
        }
    }

    /// Every complete recording in `store` that has a night summary (by id), with its tags, and the starts and lengths
    /// `nights(_:starts:durations:timeZone:)` joins them by.
    public static func stored(in store: AnalysisStore) throws -> (recordings: [(summary: NightSummaryRecord, tags: [String])],
                                                                  starts: [Int64: Int64], durations: [Int64: Double]) {
        let summaries = try store.nightSummaries()
        let tags = try store.tagsByRecording()
        var starts: [Int64: Int64] = [:], durations: [Int64: Double] = [:]
        for record in try store.recordings() {
            starts[record.id] = record.startUTC.flatMap(UTCTimestamp.parse)
            durations[record.id] = record.durationSeconds
        }
        return (summaries.keys.sorted().map { (summaries[$0]!, tags[$0] ?? []) }, starts, durations)
    }

    /// The nights of `store` (`nights(_:starts:durations:timeZone:)` of `stored(in:)`): its recordings with a night
    /// summary, the pieces of a night recorded in pieces joined.
    public static func nights(in store: AnalysisStore, timeZone: TimeZone = .current) throws -> [Night] {
        let (recordings, starts, durations) = try stored(in: store)
        return nights(recordings, starts: starts, durations: durations, timeZone: timeZone)
    }

    /// One night's summary from its pieces' (in the night's order): the snore score and snoring share are their means
    /// weighted by each piece's length (both are shares of the recording's time, so this is the whole night's), snores
    /// an hour the snores over the hours, minutes and snores summed, the loudest snore the loudest; the breathing paces,
    /// medians that cannot be summed, are those of the piece that counted the most breaths. Identified by the first
    /// piece's recording id.
    public static func joined(_ pieces: [(summary: NightSummaryRecord, durationSeconds: Double)]) -> NightSummaryRecord {
        precondition(!pieces.isEmpty, "a night of no pieces")
        var night = pieces[0].summary
        let seconds = pieces.map(\.durationSeconds).reduce(0, +)
        func weighted(_ value: KeyPath<NightSummaryRecord, Double>) -> Double {
            seconds > 0 ? pieces.map { $0.summary[keyPath: value] * $0.durationSeconds }.reduce(0, +) / seconds : 0
        }
        func summed(_ value: KeyPath<NightSummaryRecord, Double>) -> Double { pieces.map { $0.summary[keyPath: value] }.reduce(0, +) }
        night.snoreScore = weighted(\.snoreScore)
        night.snoringShare = weighted(\.snoringShare)
        night.snores = pieces.map(\.summary.snores).reduce(0, +)
        night.snoresPerHour = seconds > 0 ? Double(night.snores) * 3600 / seconds : 0
        night.snoringMinutes = summed(\.snoringMinutes)
        night.quietMinutes = summed(\.quietMinutes)
        night.lightMinutes = summed(\.lightMinutes)
        night.loudMinutes = summed(\.loudMinutes)
        night.veryLoudMinutes = summed(\.veryLoudMinutes)
        night.loudestSnoreOverRoomDb = pieces.compactMap(\.summary.loudestSnoreOverRoomDb).max()
        let snoringPace = pieces.max { $0.summary.breathsCounted < $1.summary.breathsCounted }!.summary
        night.breathsPerMinute = snoringPace.breathsPerMinute
        night.breathsPerMinuteLow = snoringPace.breathsPerMinuteLow
        night.breathsPerMinuteHigh = snoringPace.breathsPerMinuteHigh
        night.breathsCounted = snoringPace.breathsCounted
        let quietPace = pieces.max { $0.summary.quietBreathingWindows < $1.summary.quietBreathingWindows }!.summary
        night.quietBreathsPerMinute = quietPace.quietBreathsPerMinute
        night.quietBreathsPerMinuteLow = quietPace.quietBreathsPerMinuteLow
        night.quietBreathsPerMinuteHigh = quietPace.quietBreathsPerMinuteHigh
        night.quietBreathingWindows = quietPace.quietBreathingWindows
        return night
    }
}
