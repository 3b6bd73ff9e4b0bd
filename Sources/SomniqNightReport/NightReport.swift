import Foundation
import SomniqModel
import SomniqPipeline
import SomniqStore

/// What one night's page shows, gathered from the database: plain values, so that the page is a pure function of
/// them (the same night, profile and time zone give the same bytes).
public struct NightReport: Sendable {
    public struct Recording: Sendable {
        public var id: Int64
        public var fileName: String
        public var path: String
        /// Milliseconds since the epoch, UTC.
        public var startMilliseconds: Int64
        /// Where the start time came from (`metadata`, `file-name`, `modification-time`, `given`).
        public var startSource: String
        public var durationSeconds: Double
        public var sampleRate: Int
        public var channels: Int
        public var modelName: String
        public var modelVersion: String
        /// The one channel analysed (from 1), `nil` for the channels mixed.
        public var channel: Int? = nil
        /// What its file was when it was analysed: its clips are cut only from that audio.
        public var analysedFile: ClipCutter.AnalysedFile? = nil
    }

    public struct Episode: Sendable {
        /// 1-based, in order of time: the page's and the clip's number.
        public var number: Int
        public var classID: String
        public var tier: String
        public var severity: String
        public var startSeconds: Double
        public var endSeconds: Double
        public var peakConfidence: Double
        public var alertCount: Int
        public var peakDbfs: Double?
        public var peakOverBackgroundDb: Double?
        /// Where its clip is (a path relative to the page, or a `data:` URI), if one was cut.
        public var clip: String?
        /// Seconds of the recording the clip holds, margins included.
        public var clipStartSeconds: Double?
        public var clipSeconds: Double?
    }

    public struct Alert: Sendable {
        public var classID: String
        public var tier: String
        public var kind: String
        public var seconds: Double
    }

    public struct Event: Sendable {
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var peakDbfs: Double
        public var inBout: Bool
    }

    public struct Bout: Sendable {
        public var classID: String
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var eventCount: Int
        /// A snoring bout's breaths a minute: median, 10th and 90th percentile (nil where none was read).
        public var breathsPerMinute: Double? = nil
        public var breathsPerMinuteLow: Double? = nil
        public var breathsPerMinuteHigh: Double? = nil
    }

    /// One of the night's loudest snores (of a bout), with its clip once cut.
    public struct LoudSnore: Sendable {
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var peakDbfs: Double
        /// Its loudest 10 ms over the room's background at that moment, dB.
        public var overRoomDb: Double
        public var clip: String?
        public var clipStartSeconds: Double?
    }

    /// Snoring that stopped for at least `SnoringPause.minimumSeconds` and ended in a gasp.
    public struct SnoringPause: Sendable {
        /// The end of the last snore before the pause, and the onset of the gasp.
        public var startSeconds: Double
        public var gaspSeconds: Double

        public static let minimumSeconds = 10.0
        /// A gasp later than this after the last snore is not taken for the end of its pause.
        public static let maximumSeconds = 120.0
    }

    /// One recording of a night recorded in pieces (a recorder restarted, a file split at its size limit; `NightPieces`).
    public struct Piece: Sendable {
        public var recordingID: Int64
        public var startMilliseconds: Int64
        public var durationSeconds: Double
        /// Its page, relative to this one, when the same report wrote it.
        public var href: String?

        public init(recordingID: Int64, startMilliseconds: Int64, durationSeconds: Double, href: String? = nil) {
            self.recordingID = recordingID
            self.startMilliseconds = startMilliseconds
            self.durationSeconds = durationSeconds
            self.href = href
        }
    }

    /// One profile's column of the side-by-side comparison (as `compare` computes it).
    public struct ProfileColumn: Sendable {
        public var profile: String
        public var alerts: Int
        public var alertsByTier: [String: Int]
        public var episodes: Int
        public var episodesBySeverity: [String: Int]
        public var minutesInAlert: Double
    }

    public var recording: Recording
    public var profile: String
    /// Warnings the page heads with: a recording cut short, classes this sample rate cannot hear, a comparison made
    /// with another model than the night's.
    public var warnings: [String]
    /// The night's level over its background, dB, summarised to `envelope.count` equal slices of the night (the
    /// loudest window of each): the page's pixel width, not a point per window.
    public var envelope: [Float]
    /// The classes with an episode, most urgent tier first, and snoring where snores were heard: the timeline's lanes.
    public var lanes: [String]
    public var episodes: [Episode]
    public var alerts: [Alert]
    /// Snores (the snoring class's events), in time order.
    public var snores: [Event]
    public var bouts: [Bout]
    public var profiles: [ProfileColumn]
    /// The snorer's figures of the night (score, bands, pace); nil for a night stored without them.
    public var snoring: NightSummaryRecord?
    /// The loudest snores of bouts over the room, loudest first (`loudestSnoreCount` at most).
    public var loudestSnores: [LoudSnore] = []
    /// What was tried that night (`somniq-analyze tag`), sorted.
    public var tags: [String] = []
    /// The night's pieces in order, this recording among them, when the night was recorded in more than one; empty
    /// when this recording is the whole night.
    public var pieces: [Piece] = []
    /// The snorer's figures of the whole night, its pieces joined (`NightPieces.joined`); nil unless `pieces` is set.
    public var wholeNight: NightSummaryRecord?
    /// The snore scores of the other nights stored, their pieces joined (`NightPieces`), for placing this night's among
    /// them.
    public var otherNightScores: [Double] = []
    /// Clips that could not be cut, and why (the page says the audio is missing, not that there was none).
    public var audioProblem: String?
    /// How well the model that analysed the night hears each class with an episode (its report card's
    /// `ClassQuality`), by class id; empty when its card is not at hand.
    public var classQuality: [String: ClassQuality] = [:]

    public init(recording: Recording, profile: String, warnings: [String], envelope: [Float], lanes: [String], episodes: [Episode],
                alerts: [Alert], snores: [Event], bouts: [Bout], profiles: [ProfileColumn], audioProblem: String? = nil) {
        self.recording = recording
        self.profile = profile
        self.warnings = warnings
        self.envelope = envelope
        self.lanes = lanes
        self.episodes = episodes
        self.alerts = alerts
        self.snores = snores
        self.bouts = bouts
        self.profiles = profiles
        self.audioProblem = audioProblem
    }

    // MARK: - The summary

    public static let tiers = ["critical", "high", "medium", "low"]
    public static let loudestSnoreCount = 5
    public static let severities = ["severe", "moderate", "mild"]

    public var snoringBouts: [Bout] { bouts.filter { $0.classID == "snoring" } }

    public var snoresPerHour: Double {
        recording.durationSeconds > 0 ? Double(snores.count) * 3600 / recording.durationSeconds : 0
    }

    public var boutMinutes: Double { snoringBouts.reduce(0) { $0 + $1.offsetSeconds - $1.onsetSeconds } / 60 }

    public var longestBout: Bout? {
        snoringBouts.max { ($0.offsetSeconds - $0.onsetSeconds, $1.onsetSeconds) < ($1.offsetSeconds - $1.onsetSeconds, $0.onsetSeconds) }
    }

    public func episodeCount(tier: String) -> Int { episodes.count { $0.tier == tier } }
    public func episodeCount(severity: String) -> Int { episodes.count { $0.severity == severity } }
    public func alertCount(tier: String) -> Int { alerts.count { $0.tier == tier } }

    /// The loudest episodes over the room's background (then by peak level), at most `limit`, loudest first.
    public func loudestEpisodes(limit: Int = 5) -> [Episode] {
        let measured = episodes.filter { $0.peakOverBackgroundDb != nil || $0.peakDbfs != nil }
        return Array(measured.sorted { a, b in
            let (x, y) = (a.peakOverBackgroundDb ?? -.infinity, b.peakOverBackgroundDb ?? -.infinity)
            if x != y { return x > y }
            let (p, q) = (a.peakDbfs ?? -.infinity, b.peakDbfs ?? -.infinity)
            if p != q { return p > q }
            return a.number < b.number
        }.prefix(limit))
    }

    /// The longest stretch with no episode and no snore, as (start, end) seconds; nil for an empty recording.
    public var longestQuietStretch: (start: Double, end: Double)? {
        guard recording.durationSeconds > 0 else { return nil }
        let busy = (episodes.map { ($0.startSeconds, $0.endSeconds) } + snores.map { ($0.onsetSeconds, $0.offsetSeconds) })
            .sorted { $0.0 < $1.0 }
        var best = (start: 0.0, end: 0.0), reach = 0.0
        for (start, end) in busy {
            if start - reach > best.end - best.start { best = (reach, start) }
            reach = max(reach, end)
        }
        if recording.durationSeconds - reach > best.end - best.start { best = (reach, recording.durationSeconds) }
        return best
    }

    /// Pauses in snoring followed by a gasp: a gasp episode whose onset comes `SnoringPause.minimumSeconds` to
    /// `maximumSeconds` after the end of the last snore before it, that snore being part of a bout (snoring, not a
    /// lone snore-like sound). A count of sounds, not a measure of breathing: the page says it is no diagnosis.
    public var snoringPausesEndedByGasp: [SnoringPause] {
        var pauses: [SnoringPause] = []
        for gasp in episodes where gasp.classID == "gasp" {
            // The last snore (of any kind) before the gasp must be a bout's: a lone snore after the bout ends the pause.
            guard let last = snores.last(where: { $0.onsetSeconds < gasp.startSeconds }), last.inBout else { continue }
            let gap = gasp.startSeconds - last.offsetSeconds
            guard gap >= SnoringPause.minimumSeconds, gap <= SnoringPause.maximumSeconds else { continue }
            if pauses.last?.startSeconds == last.offsetSeconds { continue }  // one pause, however many gasps end it
            pauses.append(SnoringPause(startSeconds: last.offsetSeconds, gaspSeconds: gasp.startSeconds))
        }
        return pauses
    }
}
