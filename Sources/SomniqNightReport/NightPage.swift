import Foundation
import SomniqDetection
import SomniqPipeline

/// One night's page: a self-contained HTML document (inline CSS, SVG and one small script; nothing fetched).
public struct NightPage {
    /// The timeline's drawing: 1000 units wide, lane names left of `plotLeft`, the night across `plotWidth`.
    public static let width = 1000
    public static let plotLeft = 120
    public static let plotWidth = 870

    public let report: NightReport
    public let clock: LocalClock
    /// Where the trend page is, when this night is one of several.
    public var trendHref: String?

    /// The night's snoring pauses ended by a gasp, found once for the summary and the timeline.
    private let pauses: [NightReport.SnoringPause]

    public init(report: NightReport, clock: LocalClock, trendHref: String? = nil) {
        self.report = report
        self.clock = clock
        self.trendHref = trendHref
        pauses = report.snoringPausesEndedByGasp
    }

    private var start: Int64 { report.recording.startMilliseconds }
    private func at(_ seconds: Double) -> Int64 { start + Int64((seconds * 1000).rounded()) }

    public var title: String { "Night of \(clock.date(clock.nightOf(start))) — \(report.recording.fileName)" }

    public func render() -> String {
        var html = PageStyle.head(title: title)
        html += "<body>\n"
        header(&html)
        summary(&html)
        snoring(&html)
        timeline(&html)
        profiles(&html)
        episodes(&html)
        html += "<footer class=\"note\"><p>Written by <code>somniq-analyze report</code> from recording \(report.recording.id) "
            + "(<code>\(esc(report.recording.path))</code>). Times are local to \(esc(clock.zone(start))).</p></footer>\n"
        html += "<script>\(PageStyle.zoomScript)</script>\n</body>\n</html>\n"
        return html
    }

    // MARK: - Header

    private func header(_ html: inout String) {
        let recording = report.recording
        if let trendHref { html += "<p class=\"note\"><a href=\"\(esc(trendHref))\">← all nights</a></p>\n" }
        html += "<header>\n<h1>Night of \(esc(clock.date(clock.nightOf(start))))</h1>\n"
        html += "<p class=\"meta\">\(esc(clock.date(start))) \(clock.time(start)) – \(clock.time(at(recording.durationSeconds))) "
            + "(\(duration(recording.durationSeconds))), \(esc(clock.zone(start))) · profile <b>\(esc(report.profile))</b> · "
            + "model \(esc(recording.modelName)) \(esc(recording.modelVersion)) · \(recording.sampleRate) Hz"
            + (recording.channels <= 1 ? "" : recording.channel.map { ", channel \($0) of \(recording.channels) alone" }
                ?? ", \(recording.channels) channels mixed to one")
            + " · <span title=\"\(esc(recording.path))\">\(esc(recording.fileName))</span></p>\n"
            + (report.tags.isEmpty ? "" : "<p class=\"meta\">tried: <b>\(report.tags.map(esc).joined(separator: ", "))</b></p>\n")
        pieces(&html)
        html += "</header>\n"
        if !report.warnings.isEmpty {
            html += "<div class=\"warnings\" role=\"note\">\n"
            for warning in report.warnings { html += "<p>⚠ \(esc(warning))</p>\n" }
            html += "</div>\n"
        }
    }

    /// Which piece of the night this recording is, with the others' times (linked to their pages where the report
    /// wrote them).
    private func pieces(_ html: inout String) {
        guard report.pieces.count > 1, let position = report.pieces.firstIndex(where: { $0.recordingID == report.recording.id }) else { return }
        let listed = report.pieces.map { piece in
            let end = piece.startMilliseconds + Int64((piece.durationSeconds * 1000).rounded())
            let times = "\(clock.time(piece.startMilliseconds))–\(clock.time(end))"
            if piece.recordingID == report.recording.id { return "<b>\(times)</b> (this page)" }
            if let href = piece.href { return "<a href=\"\(esc(href))\">\(times)</a>" }
            return "\(times) (recording \(piece.recordingID))"
        }
        html += "<p class=\"meta\">piece \(position + 1) of the \(report.pieces.count) this night was recorded in: "
            + listed.joined(separator: " · ") + "</p>\n"
    }

    // MARK: - Summary

    private func card(_ html: inout String, _ value: String, _ label: String) {
        html += "<div class=\"card\"><b>\(value)</b><span>\(label)</span></div>\n"
    }

    private func summary(_ html: inout String) {
        html += "<section aria-labelledby=\"summary\">\n<h2 id=\"summary\">Summary</h2>\n"
        if let whole = report.wholeNight, report.pieces.count > 1 {
            let recorded = report.pieces.map(\.durationSeconds).reduce(0, +)
            html += "<p>The whole night, its \(report.pieces.count) pieces together (\(duration(recorded)) recorded): snore score "
                + "<b>\(Formatting.fixed(whole.snoreScore, 0))</b>, snoring \(SnoringWords.percent(whole.snoringShare)) of the night, "
                + "\(grouped(whole.snores)) snores, \(Formatting.fixed(whole.snoresPerHour, 0)) an hour. The figures below are this "
                + "piece's.</p>\n"
        }
        html += "<div class=\"cards\">\n"
        if let snoring = report.snoring {
            card(&html, Formatting.fixed(snoring.snoreScore, 0), "<a href=\"#snoring\">snore score</a>")
            card(&html, SnoringWords.percent(snoring.snoringShare), "of the night snoring")
            card(&html, grouped(snoring.snores), "snores")
            card(&html, Formatting.fixed(snoring.snoresPerHour, 0), "snores per hour")
        } else {
            card(&html, grouped(report.snores.count), "snores")
            card(&html, Formatting.fixed(report.snoresPerHour, 0), "snores per hour")
        }
        card(&html, Formatting.fixed(report.boutMinutes, 1), "minutes in \(report.snoringBouts.count) snoring "
             + (report.snoringBouts.count == 1 ? "bout" : "bouts"))
        if let longest = report.longestBout {
            card(&html, duration(longest.offsetSeconds - longest.onsetSeconds),
                 "longest bout, from \(clock.time(at(longest.onsetSeconds)))")
        } else {
            card(&html, "—", "longest bout")
        }
        card(&html, grouped(report.episodes.count), "episodes")
        card(&html, grouped(report.alerts.count), "alerts")
        if let quiet = report.longestQuietStretch {
            card(&html, duration(quiet.end - quiet.start),
                 "longest quiet stretch, \(clock.time(at(quiet.start)))–\(clock.time(at(quiet.end)))")
        }
        card(&html, "\(pauses.count)", "pauses in snoring ended by a gasp")
        html += "</div>\n"

        html += "<div class=\"scroll\"><table>\n<caption class=\"note\">Episodes by tier and severity</caption>\n<tr><th>tier</th>"
        for severity in NightReport.severities { html += "<th class=\"n\">\(severity)</th>" }
        html += "<th class=\"n\">all</th><th class=\"n\">alerts</th></tr>\n"
        for tier in NightReport.tiers {
            html += "<tr><td>\(tierLabel(tier))</td>"
            for severity in NightReport.severities {
                html += "<td class=\"n\">\(grouped(report.episodes.count { $0.tier == tier && $0.severity == severity }))</td>"
            }
            html += "<td class=\"n\">\(grouped(report.episodeCount(tier: tier)))</td><td class=\"n\">\(grouped(report.alertCount(tier: tier)))</td></tr>\n"
        }
        html += "</table></div>\n"

        let loudest = report.loudestEpisodes()
        if !loudest.isEmpty {
            html += "<p><b>Loudest:</b> "
            html += loudest.map { episode in
                "<a href=\"#ep-\(episode.number)\">\(esc(episode.classID))</a> at \(clock.time(at(episode.startSeconds))) ("
                    + (episode.peakOverBackgroundDb.map { "\(Formatting.fixed($0, 0)) dB over the background" }
                        ?? episode.peakDbfs.map { "\(Formatting.fixed($0, 0)) dBFS" } ?? "") + ")"
            }.joined(separator: "; ")
            html += "</p>\n"
        }
        if pauses.isEmpty {
            html += "<p>No pause in snoring of \(Int(NightReport.SnoringPause.minimumSeconds)) s or more ended in a gasp.</p>\n"
        } else {
            // The first few by time; a night with many says how many more, and the timeline shows them all.
            let shown = 10
            let longest = pauses.map { $0.gaspSeconds - $0.startSeconds }.max() ?? 0
            html += "<p><b>\(grouped(pauses.count)) \(pauses.count == 1 ? "pause" : "pauses") in snoring ended by a gasp</b> "
                + "(snoring stopped for \(Int(NightReport.SnoringPause.minimumSeconds)) s or more, then a gasp; "
                + "\(Formatting.fixed(Double(pauses.count) * 3600 / max(report.recording.durationSeconds, 1), 1)) an hour of recording, "
                + "the longest \(Formatting.fixed(longest, 0)) s): "
                + pauses.prefix(shown).map { "\(clock.timeWithSeconds(at($0.gaspSeconds))) after \(Formatting.fixed($0.gaspSeconds - $0.startSeconds, 0)) s" }
                    .joined(separator: ", ")
                + (pauses.count > shown ? " and \(grouped(pauses.count - shown)) more, each on the timeline" : "") + ".</p>\n"
        }
        html += "<p class=\"note\">These are sounds a microphone heard, counted by a program: not a medical diagnosis. Pauses in "
            + "snoring followed by gasps can have many causes; if they worry you, talk to a doctor, who may suggest a sleep study.</p>\n"
        html += "</section>\n"
    }

    // MARK: - Snoring

    /// A phrase of `SnoringWords` as the start of a sentence: its first letter a capital.
    private func sentence(_ phrase: String) -> String { phrase.prefix(1).uppercased() + phrase.dropFirst() }

    /// The snore score and what it is made of: the time in each loudness band, the breathing pace (over the night and
    /// per bout), and the loudest snores to play.
    private func snoring(_ html: inout String) {
        guard let snoring = report.snoring else { return }
        html += "<section aria-labelledby=\"snoring\">\n<h2 id=\"snoring\">Snoring</h2>\n"
        // This night's score (the whole night's, for a night recorded in pieces) among the other nights'.
        let night = report.pieces.count > 1 ? report.wholeNight ?? snoring : snoring
        let among = SnoringWords.amongOthers(score: night.snoreScore, others: report.otherNightScores).map { "<p>\(esc(sentence($0))).</p>\n" } ?? ""
        guard let score = SnoringWords.score(snoring) else {
            html += "<p>No snoring bout: snore score 0.</p>\n" + among
            if let pace = SnoringWords.pace(snoring) { html += "<p>\(esc(sentence(pace))).</p>\n" }
            html += "</section>\n"
            return
        }
        html += "<p>\(esc(sentence(score))). The score is the share of the night spent snoring, "
            + "each breath weighed by how loud its snore stood over the room (\(Int(NightSummary.fullWeightDb)) dB or more counts "
            + "whole): 0 is a night without snoring, 100 a whole night of snores \(Int(NightSummary.fullWeightDb)) dB over the room.</p>\n"
        html += among
        html += "<div class=\"scroll\"><table>\n<caption class=\"note\">Snoring time by loudness over the room's background</caption>\n"
            + "<tr><th>loudness</th><th>over the room</th><th class=\"n\">minutes</th><th class=\"n\">share of snoring</th></tr>\n"
        let floors = NightSummary.Band.floorsDb.map { Int($0) }
        for (index, band) in NightSummary.Band.allCases.enumerated().reversed() {
            let range = index == 0 ? "under \(floors[0]) dB" : index == floors.count ? "\(floors[index - 1]) dB and more"
                : "\(floors[index - 1])–\(floors[index]) dB"
            let minutes = snoring.bandMinutes[index]
            html += "<tr><td>\(band.words)</td><td>\(range)</td><td class=\"n\">\(Formatting.fixed(minutes, 1))</td>"
                + "<td class=\"n\">\(SnoringWords.percent(minutes / snoring.snoringMinutes))</td></tr>\n"
        }
        html += "</table></div>\n"
        if let pace = SnoringWords.pace(snoring) { html += "<p>\(esc(sentence(pace))).</p>\n" }
        let bouts = report.snoringBouts
        if !bouts.isEmpty {
            html += "<div class=\"scroll\"><table>\n<caption class=\"note\">Snoring bouts and their breathing pace (breaths a "
                + "minute: the median, and the 10th to 90th percentile)</caption>\n<tr><th>from</th><th class=\"n\">length</th>"
                + "<th class=\"n\">snores</th><th class=\"n\">breaths a minute</th></tr>\n"
            for bout in bouts {
                var pace = "—"
                if let median = bout.breathsPerMinute, let low = bout.breathsPerMinuteLow, let high = bout.breathsPerMinuteHigh {
                    pace = Formatting.fixed(median, 0) + (Formatting.fixed(low, 0) == Formatting.fixed(high, 0) ? ""
                        : " (\(Formatting.fixed(low, 0))–\(Formatting.fixed(high, 0)))")
                }
                html += "<tr><td>\(clock.timeWithSeconds(at(bout.onsetSeconds)))</td>"
                    + "<td class=\"n\">\(duration(bout.offsetSeconds - bout.onsetSeconds))</td><td class=\"n\">\(grouped(bout.eventCount))</td>"
                    + "<td class=\"n\">\(pace)</td></tr>\n"
            }
            html += "</table></div>\n"
        }
        if !report.loudestSnores.isEmpty {
            html += "<p><b>Loudest snores:</b></p>\n<ol>\n"
            for snore in report.loudestSnores {
                html += "<li>\(clock.timeWithSeconds(at(snore.onsetSeconds))), \(Formatting.fixed(snore.overRoomDb, 0)) dB over the room"
                if let clip = snore.clip {
                    html += " <audio controls preload=\"none\" src=\"\(esc(clip))\" "
                        + "aria-label=\"snore at \(clock.timeWithSeconds(at(snore.onsetSeconds)))\"></audio>"
                }
                html += "</li>\n"
            }
            html += "</ol>\n"
        }
        html += "</section>\n"
    }

    private func tierLabel(_ tier: String) -> String {
        "<span class=\"tier t-\(esc(tier))\">\(PageStyle.tierGlyph[tier] ?? "•") \(esc(tier))</span>"
    }

    // MARK: - Timeline

    private func x(_ seconds: Double) -> Double {
        let total = max(report.recording.durationSeconds, 0.001)
        return Double(Self.plotLeft) + min(max(seconds, 0), total) / total * Double(Self.plotWidth)
    }

    /// The tick step (seconds) that puts at most about 12 ticks on the night.
    static func tickStep(durationSeconds: Double) -> Int {
        let steps = [60, 120, 300, 600, 900, 1800, 3600, 7200]
        return steps.first { durationSeconds / Double($0) <= 12 } ?? 7200
    }

    private func timeline(_ html: inout String) {
        let duration = report.recording.durationSeconds
        let laneHeight = 26.0, axisHeight = 18.0, envelopeTop = 22.0, envelopeHeight = 56.0
        let lanesTop = envelopeTop + envelopeHeight + 8
        let laneNames = report.lanes + (pauses.isEmpty ? [] : ["pause → gasp"])
        let height = lanesTop + Double(laneNames.count) * laneHeight + 4
        let right = Double(Self.plotLeft + Self.plotWidth)

        html += "<section aria-labelledby=\"timeline-heading\">\n<h2 id=\"timeline-heading\">Timeline</h2>\n<figure>\n"
        html += "<div class=\"controls\" hidden><button type=\"button\" id=\"zoom-out\" aria-label=\"zoom out\">−</button>"
            + "<button type=\"button\" id=\"zoom-in\" aria-label=\"zoom in\">+</button>"
            + "<button type=\"button\" id=\"zoom-reset\">whole night</button>"
            + "<input type=\"range\" id=\"pan\" min=\"0\" max=\"1000\" value=\"0\" aria-label=\"move along the night\" disabled>"
            + "<span id=\"zoom-state\" class=\"note\">whole night</span></div>\n"
        html += "<div class=\"scroll\"><svg id=\"timeline\" class=\"timeline\" viewBox=\"0 0 \(Self.width) \(num(height))\" "
            + "role=\"img\" aria-labelledby=\"tl-title tl-desc\" data-x0=\"\(Self.plotLeft)\" data-pw=\"\(Self.plotWidth)\" "
            + "data-duration=\"\(num(duration))\" xmlns=\"http://www.w3.org/2000/svg\">\n"
        html += "<title id=\"tl-title\">The night from \(clock.time(start)) to \(clock.time(at(duration)))</title>\n"
        html += "<desc id=\"tl-desc\">\(esc(timelineDescription()))</desc>\n"
        html += "<defs><clipPath id=\"plot\"><rect x=\"\(Self.plotLeft)\" y=\"0\" width=\"\(Self.plotWidth)\" height=\"\(num(height))\"/>"
            + "</clipPath><pattern id=\"hatch\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            + "<rect width=\"2\" height=\"4\" fill=\"#D55E00\" opacity=\".45\"/></pattern>"
            + "<path id=\"m-critical\" d=\"M0 -5L5 4H-5Z\"/><path id=\"m-high\" d=\"M0 -5L5 0L0 5L-5 0Z\"/>"
            + "<circle id=\"m-medium\" r=\"4\"/><path id=\"m-low\" d=\"M-4 -4H4V4H-4Z\"/></defs>\n"

        // Lane backgrounds and names, outside the zoomed part.
        html += "<text x=\"\(Self.plotLeft - 6)\" y=\"\(num(envelopeTop + 14))\" text-anchor=\"end\">loudness</text>"
            + "<text x=\"\(Self.plotLeft - 6)\" y=\"\(num(envelopeTop + 27))\" text-anchor=\"end\" class=\"axis\">dB over background</text>\n"
        for (index, name) in laneNames.enumerated() {
            let top = lanesTop + Double(index) * laneHeight
            html += "<rect class=\"lane\" x=\"\(Self.plotLeft)\" y=\"\(num(top + 1))\" width=\"\(Self.plotWidth)\" height=\"\(num(laneHeight - 2))\"/>"
                + "<text x=\"\(Self.plotLeft - 6)\" y=\"\(num(top + laneHeight / 2 + 4))\" text-anchor=\"end\">\(esc(name))</text>\n"
        }

        html += "<g clip-path=\"url(#plot)\">\n"
        // Clock ticks, moved one by one when zoomed (so that their labels keep their size).
        let step = Self.tickStep(durationSeconds: duration)
        var tick = clock.firstTick(atOrAfter: start, stepSeconds: step)
        while Double(tick - start) / 1000 <= duration {
            let seconds = Double(tick - start) / 1000
            let tx = x(seconds)
            html += "<g data-t=\"\(num(seconds))\"><line class=\"grid\" x1=\"\(num(tx))\" x2=\"\(num(tx))\" y1=\"\(num(axisHeight - 4))\" "
                + "y2=\"\(num(height))\"/><text class=\"axis\" x=\"\(num(tx + 2))\" y=\"11\">\(clock.time(tick))</text></g>\n"
            tick += Int64(step) * 1000
        }

        // Everything drawn along time, scaled as one when zoomed.
        html += "<g class=\"z\">\n"
        let ceiling = max(30, ((report.envelope.max() ?? 0) / 10).rounded(.up) * 10)
        if !report.envelope.isEmpty {
            let bottom = envelopeTop + envelopeHeight
            var path = "M\(Self.plotLeft) \(num(bottom))"
            let slice = Double(Self.plotWidth) / Double(report.envelope.count)
            for (index, level) in report.envelope.enumerated() {
                let y = bottom - Double(min(level, ceiling) / ceiling) * envelopeHeight
                path += "H\(num(Double(Self.plotLeft) + Double(index) * slice))V\(num(y))"
            }
            path += "H\(num(right))V\(num(bottom))Z"
            html += "<path class=\"env\" d=\"\(path)\"><title>loudness over the room's background, up to \(Int(ceiling)) dB</title></path>\n"
        }
        for (index, name) in laneNames.enumerated() {
            let top = lanesTop + Double(index) * laneHeight
            if name == "snoring" {
                for bout in report.snoringBouts {
                    html += "<rect class=\"bout\" x=\"\(num(x(bout.onsetSeconds)))\" y=\"\(num(top + 1))\" "
                        + "width=\"\(num(max(0.5, x(bout.offsetSeconds) - x(bout.onsetSeconds))))\" height=\"\(num(laneHeight - 2))\">"
                        + "<title>snoring bout, \(clock.time(at(bout.onsetSeconds)))–\(clock.time(at(bout.offsetSeconds))), "
                        + "\(Formatting.counted(bout.eventCount, "snore"))</title></rect>\n"
                }
            }
            for episode in report.episodes where episode.classID == name {
                let width = max(1.0, x(episode.endSeconds) - x(episode.startSeconds))
                html += "<a href=\"#ep-\(episode.number)\"><rect class=\"ep t-\(esc(episode.tier))\" data-episode=\"\(episode.number)\" "
                    + "x=\"\(num(x(episode.startSeconds)))\" y=\"\(num(top + 7))\" width=\"\(num(width))\" height=\"12\" "
                    + "vector-effect=\"non-scaling-stroke\"><title>\(esc(episodeTitle(episode)))</title></rect></a>\n"
            }
            if name == "snoring" {
                for snore in report.snores {
                    html += "<path class=\"sn\" d=\"M\(num(x(snore.onsetSeconds))) \(num(top + 3))v\(num(laneHeight - 6))\" "
                        + "vector-effect=\"non-scaling-stroke\"/>"
                }
                if !report.snores.isEmpty { html += "\n" }
            }
            if name == "pause → gasp" {
                for pause in pauses {
                    html += "<rect class=\"pause\" x=\"\(num(x(pause.startSeconds)))\" y=\"\(num(top + 5))\" "
                        + "width=\"\(num(max(1, x(pause.gaspSeconds) - x(pause.startSeconds))))\" height=\"\(num(laneHeight - 10))\" "
                        + "vector-effect=\"non-scaling-stroke\"><title>snoring stopped at \(clock.timeWithSeconds(at(pause.startSeconds))); "
                        + "a gasp \(Formatting.fixed(pause.gaspSeconds - pause.startSeconds, 0)) s later</title></rect>\n"
                }
            }
        }
        html += "</g>\n"

        // Alerts: a marker by tier at the moment each fired, moved one by one when zoomed (so they keep their shape).
        for alert in report.alerts {
            guard let lane = laneNames.firstIndex(of: alert.classID) else { continue }
            let top = lanesTop + Double(lane) * laneHeight
            html += "<use class=\"al t-\(esc(alert.tier))\" href=\"#m-\(esc(alert.tier))\" x=\"\(num(x(alert.seconds)))\" "
                + "y=\"\(num(top + 5))\" data-t=\"\(num(alert.seconds))\"><title>\(esc(alert.tier)) alert (\(esc(alert.kind))): "
                + "\(esc(alert.classID)) at \(clock.timeWithSeconds(at(alert.seconds)))</title></use>\n"
        }
        html += "</g>\n"
        html += "<line class=\"grid\" x1=\"\(Self.plotLeft)\" x2=\"\(num(right))\" y1=\"\(num(envelopeTop + envelopeHeight))\" "
            + "y2=\"\(num(envelopeTop + envelopeHeight))\"/>\n"
        html += "</svg></div>\n"
        html += "<figcaption class=\"legend\"><span>Tiers:</span>"
        for tier in NightReport.tiers { html += "<span>\(tierLabel(tier))</span>" }
        html += "<span>bars: episodes (coloured by tier; click one to hear it)</span><span>markers: alerts, where a live app "
            + "would have notified</span><span>ticks: snores, on a band for each snoring bout</span>"
            + (pauses.isEmpty ? "" : "<span>hatched: snoring paused, then a gasp</span>") + "</figcaption>\n"
        html += "</figure>\n</section>\n"
    }

    private func episodeTitle(_ episode: NightReport.Episode) -> String {
        "\(episode.classID), \(episode.tier) tier, \(episode.severity): \(clock.timeWithSeconds(at(episode.startSeconds)))–"
            + "\(clock.timeWithSeconds(at(episode.endSeconds))) (\(duration(episode.endSeconds - episode.startSeconds)))"
    }

    /// The timeline said in words, for readers who cannot see it.
    private func timelineDescription() -> String {
        var parts: [String] = []
        for lane in report.lanes {
            let episodes = report.episodes.filter { $0.classID == lane }
            var part = "\(lane): \(episodes.count) \(episodes.count == 1 ? "episode" : "episodes")"
            if !episodes.isEmpty {
                part += " (" + episodes.prefix(6).map { "\(clock.time(at($0.startSeconds)))–\(clock.time(at($0.endSeconds)))" }
                    .joined(separator: ", ") + (episodes.count > 6 ? ", …" : "") + ")"
            }
            if lane == "snoring" {
                part += "; \(Formatting.counted(report.snores.count, "snore")) in \(Formatting.counted(report.snoringBouts.count, "bout"))"
            }
            parts.append(part)
        }
        if !pauses.isEmpty { parts.append("\(Formatting.counted(pauses.count, "pause")) in snoring ended by a gasp") }
        let loudest = report.envelope.max() ?? 0
        return "Loudness up to \(Int(loudest.rounded())) dB over the background. "
            + (parts.isEmpty ? "Nothing was heard." : parts.joined(separator: ". ") + ".")
            + " \(Formatting.counted(report.alerts.count, "alert")). The table of episodes below lists every one."
    }

    // MARK: - Profiles

    private func profiles(_ html: inout String) {
        guard !report.profiles.isEmpty else { return }
        html += "<section aria-labelledby=\"profiles\">\n<h2 id=\"profiles\">The five profiles on this night</h2>\n"
        html += "<div class=\"scroll\"><table>\n<tr><th></th>"
        for column in report.profiles {
            html += "<th class=\"n\">\(column.profile == report.profile ? "<b>\(esc(column.profile))</b>" : esc(column.profile))</th>"
        }
        html += "</tr>\n"
        func row(_ label: String, _ value: (NightReport.ProfileColumn) -> String) {
            html += "<tr><th>\(label)</th>" + report.profiles.map { "<td class=\"n\">\(value($0))</td>" }.joined() + "</tr>\n"
        }
        row("alerts") { grouped($0.alerts) }
        for tier in NightReport.tiers { row("&nbsp;&nbsp;\(tierLabel(tier))") { grouped($0.alertsByTier[tier] ?? 0) } }
        row("episodes") { grouped($0.episodes) }
        for severity in NightReport.severities { row("&nbsp;&nbsp;\(severity)") { grouped($0.episodesBySeverity[severity] ?? 0) } }
        row("minutes in alert") { Formatting.fixed($0.minutesInAlert, 1) }
        html += "</table></div>\n<p class=\"note\">As <code>somniq-analyze compare</code> computes them from the night's stored "
            + "confidences; the page shows the <b>\(esc(report.profile))</b> profile.</p>\n</section>\n"
    }

    // MARK: - Episodes

    private func episodes(_ html: inout String) {
        html += "<section aria-labelledby=\"episodes\">\n<h2 id=\"episodes\">Episodes</h2>\n"
        if let problem = report.audioProblem {
            html += "<p class=\"warnings\">⚠ The audio could not be cut from the recording: \(esc(problem))</p>\n"
        }
        guard !report.episodes.isEmpty else {
            html += "<p>No episode under the \(esc(report.profile)) profile.</p>\n</section>\n"
            return
        }
        html += "<div class=\"scroll\"><table>\n<tr><th class=\"n\">#</th><th>time</th><th class=\"n\">length</th><th>sound</th>"
            + "<th>tier</th><th>severity</th><th class=\"n\">peak over background</th><th class=\"n\">alerts</th><th>listen</th></tr>\n"
        for episode in report.episodes {
            html += "<tr id=\"ep-\(episode.number)\"><td class=\"n\">\(episode.number)</td>"
                + "<td>\(clock.timeWithSeconds(at(episode.startSeconds)))</td>"
                + "<td class=\"n\">\(duration(episode.endSeconds - episode.startSeconds))</td><td>\(esc(episode.classID))</td>"
                + "<td>\(tierLabel(episode.tier))</td><td>\(esc(episode.severity))</td>"
                + "<td class=\"n\">\(episode.peakOverBackgroundDb.map { "\(Formatting.fixed($0, 0)) dB" } ?? "—")</td>"
                + "<td class=\"n\">\(episode.alertCount)</td><td>"
            if let clip = episode.clip {
                let from = episode.clipStartSeconds.map { clock.timeWithSeconds(at($0)) } ?? ""
                html += "<audio controls preload=\"none\" src=\"\(esc(clip))\" aria-label=\"\(esc(episode.classID)) at \(from)\"></audio>"
                if let clipSeconds = episode.clipSeconds, episode.endSeconds - episode.startSeconds > clipSeconds {
                    html += " <span class=\"note\">first \(duration(clipSeconds))</span>"
                }
            } else {
                html += "<span class=\"note\">—</span>"
            }
            html += "</td></tr>\n"
        }
        html += "</table></div>\n"
        trust(&html)
        html += "</section>\n"
    }

    /// How far to trust the names of tonight's sounds: the model's held-out precision for each class with an episode,
    /// in the order they first come, beside the same for recordings unlike any it learnt from.
    private func trust(_ html: inout String) {
        var seen = Set<String>()
        let classes = report.episodes.map(\.classID).filter { report.classQuality[$0] != nil && seen.insert($0).inserted }
        guard !classes.isEmpty else { return }
        func share(_ value: Double?) -> String { value.map { "\(Int(($0 * 100).rounded()))%" } ?? "none called so" }
        let known = classes.map { "\(esc($0)) \(share(report.classQuality[$0]!.precision))" }.joined(separator: ", ")
        let unknown = classes.map { "\(esc($0)) \(share(report.classQuality[$0]!.newSourcePrecision))" }.joined(separator: ", ")
        html += "<p class=\"note\" id=\"trust\">How far to trust a sound's name: of the test clips the model called so, "
            + "each scored by a model fitted without it, the share that were that sound: \(known); from recorders and rooms "
            + "unlike any it learnt from: \(unknown). Listen to an episode before acting on it (<code>somniq-analyze classes</code> "
            + "lists every class).</p>\n"
    }
}
