import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore

/// Gathers a stored night into a `NightReport`, and cuts the audio of its episodes for the page.
public struct NightReportBuilder {
    public enum Failure: Error, CustomStringConvertible {
        case noSuchRecording(Int64)
        case notComplete(Int64, String, reason: String?)
        case profileNotStored(Int64, profile: String, stored: [String])

        /// Said after the recording's id (`recording 4: error: ...`), so it does not repeat it.
        public var description: String {
            switch self {
            case .noSuchRecording: "no such recording in the database"
            case .notComplete(_, let name, let reason):
                "\(Formatting.printable(name)): its analysis failed\(reason.map { " (\(Formatting.printable($0)))" } ?? ""), so there is no night to report; fix the file and analyse it again"
            case .profileNotStored(_, let profile, let stored):
                "no results under the profile '\(profile)' (it was run under: "
                    + "\(stored.isEmpty ? "none" : stored.joined(separator: ", "))); analyse it again with --profile \(profile) or --profile all"
            }
        }
    }

    public let store: AnalysisStore
    public let bundle: ModelBundle
    /// How many slices the loudness envelope is summarised to: the timeline's width in pixels.
    public var envelopeWidth = NightPage.plotWidth

    public init(store: AnalysisStore, bundle: ModelBundle) {
        self.store = store
        self.bundle = bundle
    }

    /// - Parameter nights: every night stored, pieces of one joined (`NightPieces.nights(in:timeZone:)`): a piece's
    ///   report names the others and carries the whole night's figures, and every report the other nights' (none where
    ///   not given).
    public func report(recordingID id: Int64, profile: String, nights: [NightPieces.Night] = []) throws -> NightReport {
        guard let record = try store.recording(id: id) else { throw Failure.noSuchRecording(id) }
        guard record.status == "complete", let start = record.startUTC.flatMap(UTCTimestamp.parse) else {
            throw Failure.notComplete(id, record.fileName, reason: record.errorMessage)
        }
        let runs = (try store.profileRuns()[id] ?? []).map(\.profile)
        guard runs.contains(profile) else { throw Failure.profileNotStored(id, profile: profile, stored: runs) }
        let undetectable = record.undetectableClasses.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        let durationSeconds = record.durationSeconds ?? 0, sampleRate = record.sampleRate ?? 0

        let recording = NightReport.Recording(
            id: id, fileName: record.fileName, path: record.path, startMilliseconds: start, startSource: record.startSource ?? "",
            durationSeconds: durationSeconds, sampleRate: sampleRate, channels: record.channels ?? 1,
            modelName: record.modelName ?? "", modelVersion: record.modelVersion ?? "", channel: record.channel,
            analysedFile: ClipCutter.AnalysedFile(size: record.fileSize, modified: record.fileModified, contentHash: record.contentHash))

        let episodes = try store.episodes(recordingID: id, profile: profile).enumerated().map { index, episode in
            NightReport.Episode(number: index + 1, classID: episode.classID, tier: episode.tier, severity: episode.severity,
                                startSeconds: episode.startOffsetSeconds, endSeconds: episode.endOffsetSeconds,
                                peakConfidence: episode.peakConfidence, alertCount: episode.alertCount, peakDbfs: episode.peakDbfs,
                                peakOverBackgroundDb: episode.peakOverBackgroundDb)
        }
        let alerts = try store.alerts(recordingID: id, profile: profile).map {
            NightReport.Alert(classID: $0.classID, tier: $0.tier, kind: $0.kind, seconds: $0.offsetSeconds)
        }
        let events = try store.soundEvents(recordingID: id)
        let snores = events.filter { $0.classID == "snoring" }.map {
            NightReport.Event(onsetSeconds: $0.onsetSeconds, offsetSeconds: $0.offsetSeconds, peakDbfs: $0.peakDbfs, inBout: $0.boutIndex != nil)
        }
        let bouts = try store.bouts(recordingID: id).map {
            NightReport.Bout(classID: $0.classID, onsetSeconds: $0.onsetSeconds, offsetSeconds: $0.offsetSeconds, eventCount: $0.eventCount,
                             breathsPerMinute: $0.breathsPerMinute, breathsPerMinuteLow: $0.breathsPerMinuteLow,
                             breathsPerMinuteHigh: $0.breathsPerMinuteHigh)
        }
        let loudestSnores = try Self.loudestSnores(events.filter { $0.classID == NightSummary.snoringClass && $0.boutIndex != nil }) {
            try store.envelope(recordingID: id)
        }

        // The lanes: every class with an episode, the most urgent tier it reached first, and snoring where snores were
        // heard (the one class whose events the timeline draws); a class's events alone would be an empty lane.
        var rank: [String: Int] = [:]
        for episode in episodes {
            let tierRank = NightReport.tiers.firstIndex(of: episode.tier) ?? NightReport.tiers.count
            rank[episode.classID] = min(rank[episode.classID] ?? .max, tierRank)
        }
        if !snores.isEmpty, rank["snoring"] == nil { rank["snoring"] = NightReport.tiers.count }
        let lanes = rank.keys.sorted { (rank[$0]!, $0) < (rank[$1]!, $1) }

        var warnings: [String] = []
        let profiles: [NightReport.ProfileColumn]
        let profileNames = bundle.profiles.profiles.map(\.name)
        if profileNames.allSatisfy(runs.contains) {
            // Every profile was run when the night was analysed: its own stored results, as compare computes them.
            profiles = try profileNames.map { try storedColumn(recordingID: id, profile: $0) }
        } else if let data = try store.recordingData(id: id) {
            // Some were not: all five computed from the stored confidences, as `compare --db` does.
            let results = RecordingAnalyzer(bundle: bundle).runProfiles(bundle.profiles.profiles, on: data)
            profiles = ProfileComparison(data: data, results: results).columns.map {
                NightReport.ProfileColumn(profile: $0.profile, alerts: $0.alerts, alertsByTier: $0.alertsByTier, episodes: $0.episodes,
                                          episodesBySeverity: $0.episodesBySeverity, minutesInAlert: $0.minutesInAlert)
            }
            let analysedWith = "\(recording.modelName)@\(recording.modelVersion)"
            let comparedWith = "\(bundle.classifier.name)@\(bundle.classifier.version)"
            if analysedWith != comparedWith {
                warnings.append("The five profiles are compared with the model \(comparedWith); this night was analysed with "
                                + "\(analysedWith) (analyse it with --profile all to compare its own results).")
            }
        } else {
            profiles = []
        }

        if record.truncated {
            let promised = record.declaredFrames.map { Double($0) / Double(max(1, sampleRate)) }
            warnings.append("Cut short: the file holds \(Formatting.clock(durationSeconds)) of audio"
                            + (promised.map { " where its header promised \(Formatting.clock($0))" } ?? "")
                            + "; the night is analysed as far as it goes.")
        }
        if let clipping = Clipping.warning(record.faults) { warnings.append("Clipped: \(clipping).") }
        if let cancelling = CancellingChannels.warning(record.faults, channelCount: record.channels ?? 0) {
            warnings.append("Channels that cancel: \(cancelling).")
        }
        if !undetectable.isEmpty {
            warnings.append("Not detectable at \(sampleRate) Hz: \(undetectable.joined(separator: ", ")) "
                            + "(their sounds lie above what this sample rate carries; none of them is reported, which does not mean none was there).")
        }
        if recording.startSource == "modification-time" {
            warnings.append("The start time is the file's modification time (the recording carries none): clock times may be off.")
        }
        let levels = try store.windowLevelsOverBackground(recordingID: id)
        var report = NightReport(recording: recording, profile: profile, warnings: warnings,
                                 envelope: Self.summarise(levels, into: envelopeWidth), lanes: lanes, episodes: episodes, alerts: alerts,
                                 snores: snores, bouts: bouts, profiles: profiles)
        report.snoring = try store.nightSummary(recordingID: id)
        report.loudestSnores = loudestSnores
        report.tags = try store.tags(recordingID: id)
        // The card read is the model's at hand: only when it is the one that analysed the night.
        if recording.modelName == bundle.classifier.name, recording.modelVersion == bundle.classifier.version {
            report.classQuality = bundle.quality.filter { entry in episodes.contains { $0.classID == entry.key } }
        }
        report.otherNightScores = nights.filter { !$0.recordingIDs.contains(id) }.map(\.summary.snoreScore)
        if let night = nights.first(where: { $0.recordingIDs.contains(id) }), night.recordingIDs.count > 1 {
            report.pieces = try night.recordingIDs.compactMap { pieceID in
                guard let piece = try store.recording(id: pieceID), let start = piece.startUTC.flatMap(UTCTimestamp.parse) else { return nil }
                return NightReport.Piece(recordingID: pieceID, startMilliseconds: start, durationSeconds: piece.durationSeconds ?? 0)
            }
            report.wholeNight = night.summary
        }
        return report
    }

    /// The loudest of `snores` over the room's background (read from the envelope only when there are snores),
    /// loudest first, the earlier first on a tie.
    static func loudestSnores(_ snores: [SoundEventRecord], envelope: () throws -> LevelEnvelope) rethrows -> [NightReport.LoudSnore] {
        guard !snores.isEmpty else { return [] }
        let background = BackgroundLevel(envelope: try envelope())
        return snores.map { snore in
            NightReport.LoudSnore(onsetSeconds: snore.onsetSeconds, offsetSeconds: snore.offsetSeconds, peakDbfs: snore.peakDbfs,
                                  overRoomDb: snore.peakDbfs - Double(background.at(seconds: snore.onsetSeconds)))
        }.sorted { ($0.overRoomDb, $1.onsetSeconds) > ($1.overRoomDb, $0.onsetSeconds) }.prefix(NightReport.loudestSnoreCount).map { $0 }
    }

    /// A profile's column from the night's stored alerts and episodes.
    func storedColumn(recordingID id: Int64, profile: String) throws -> NightReport.ProfileColumn {
        let alerts = try store.alerts(recordingID: id, profile: profile)
        let episodes = try store.episodes(recordingID: id, profile: profile)
        var byTier: [String: Int] = [:], bySeverity: [String: Int] = [:]
        for alert in alerts { byTier[alert.tier, default: 0] += 1 }
        for episode in episodes { bySeverity[episode.severity, default: 0] += 1 }
        return NightReport.ProfileColumn(
            profile: profile, alerts: alerts.count, alertsByTier: byTier, episodes: episodes.count, episodesBySeverity: bySeverity,
            minutesInAlert: ProfileComparison.covered(episodes.map { ($0.startOffsetSeconds, $0.endOffsetSeconds) }) / 60)
    }

    /// `levels` (one per window) as `width` slices, each the loudest of its windows (0 for a slice with none, and
    /// the levels under 0 dB, below the background, as 0).
    static func summarise(_ levels: [Float], into width: Int) -> [Float] {
        guard !levels.isEmpty, width > 0 else { return [] }
        var slices = [Float](repeating: 0, count: width)
        for (index, level) in levels.enumerated() where level.isFinite {
            let slice = min(width - 1, index * width / levels.count)
            slices[slice] = max(slices[slice], level)
        }
        return slices
    }

    // MARK: - Audio

    /// Where the clips go: a folder beside the page (named relative to it), or embedded in the page.
    public enum AudioPlacement {
        case folder(path: String, href: String)
        case embedded(scratch: String)
    }

    /// Cuts each episode's audio (as `clips` does: the episode with `margin` seconds either side, at most
    /// `maximumSeconds` of the episode) and sets the episodes' clips. A recording that cannot be read leaves the page
    /// without audio and says why (`audioProblem`); the error is returned for the caller to report.
    @discardableResult
    public static func attachAudio(to report: inout NightReport, placement: AudioPlacement, margin: Double = 2,
                                   maximumSeconds: Double = 60) -> String? {
        guard !report.episodes.isEmpty || !report.loudestSnores.isEmpty else { return nil }
        let start = report.recording.startMilliseconds
        func utc(_ seconds: Double) -> String {
            UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(startMilliseconds: start, offsetSeconds: seconds))
        }
        // The episodes, then the loudest snores (each with its breath either side).
        let excerpts = report.episodes.map { episode in
            ClipCutter.Excerpt(classID: episode.classID, tier: episode.tier, kind: "episode", profile: report.profile,
                               startSeconds: episode.startSeconds, endSeconds: min(episode.endSeconds, episode.startSeconds + maximumSeconds),
                               startUTC: utc(episode.startSeconds))
        } + report.loudestSnores.map { snore in
            ClipCutter.Excerpt(classID: NightSummary.snoringClass, tier: "", kind: "snore", profile: report.profile,
                               startSeconds: snore.onsetSeconds, endSeconds: snore.offsetSeconds, startUTC: utc(snore.onsetSeconds))
        }
        let folder: String
        switch placement {
        case .folder(let path, _): folder = path
        case .embedded(let scratch): folder = scratch
        }
        let clips: [ClipCutter.Clip]
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            clips = try ClipCutter(margin: margin).cut(recordingPath: report.recording.path, recordingID: report.recording.id,
                                                       excerpts: excerpts, into: folder, encoding: .pcm16,
                                                       channel: report.recording.channel, analysed: report.recording.analysedFile)
        } catch {
            let problem = switch error as? AudioFileError {
            case .notFound?, .brokenLink?: "\(error) (was the recording moved? analysing it again where it is now records its new place)"
            default: "\(error)"
            }
            report.audioProblem = problem
            return problem
        }
        for clip in clips {
            let source: String
            switch placement {
            case .folder(_, let href):
                source = href + "/" + clip.file
            case .embedded(let scratch):
                let file = (scratch as NSString).appendingPathComponent(clip.file)
                guard let bytes = FileManager.default.contents(atPath: file) else { continue }
                source = "data:audio/wav;base64," + bytes.base64EncodedString()
                try? FileManager.default.removeItem(atPath: file)
            }
            if clip.excerptIndex < report.episodes.count {
                report.episodes[clip.excerptIndex].clip = source
                report.episodes[clip.excerptIndex].clipStartSeconds = clip.clipStartSeconds
                report.episodes[clip.excerptIndex].clipSeconds = clip.clipSeconds
            } else {
                report.loudestSnores[clip.excerptIndex - report.episodes.count].clip = source
                report.loudestSnores[clip.excerptIndex - report.episodes.count].clipStartSeconds = clip.clipStartSeconds
            }
        }
        return nil
    }
}
