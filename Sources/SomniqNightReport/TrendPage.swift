import Foundation
import SomniqPipeline
import SomniqStore

/// The page for several nights: what helped (nights with each tag against those without), charts of the snore score
/// and snores an hour night by night with the tagged nights marked, a row per night (score, snoring, episodes and
/// alerts by tier, tags) and the nights' timelines as small multiples, each linking to its night's page.
public struct TrendPage {
    public struct Night {
        public var report: NightReport
        /// The night's page, relative to the trend page.
        public var href: String

        public init(report: NightReport, href: String) {
            self.report = report
            self.href = href
        }
    }

    /// A night as the page counts it: the recordings of a night recorded in pieces joined (`NightPieces`), every other
    /// recording on its own.
    struct JoinedNight {
        /// Its recordings, in order: the first one's page is the night's link.
        var pieces: [Night]
        /// The snorer's figures of the whole night; nil for a night stored without them.
        var snoring: NightSummaryRecord?
        var tags: [String]

        var start: Int64 { pieces[0].report.recording.startMilliseconds }
        var href: String { pieces[0].href }
        var recordedSeconds: Double { pieces.map(\.report.recording.durationSeconds).reduce(0, +) }
        /// From the first piece's start to the last one's end.
        var spanSeconds: Double {
            pieces.map { Double($0.report.recording.startMilliseconds - start) / 1000 + $0.report.recording.durationSeconds }.max() ?? 0
        }
        var boutMinutes: Double { pieces.map(\.report.boutMinutes).reduce(0, +) }
        var episodeCount: Int { pieces.map(\.report.episodes.count).reduce(0, +) }
        var snoreCount: Int { pieces.map(\.report.snores.count).reduce(0, +) }
        func episodeCount(tier: String) -> Int { pieces.map { $0.report.episodeCount(tier: tier) }.reduce(0, +) }
        func alertCount(tier: String) -> Int { pieces.map { $0.report.alertCount(tier: tier) }.reduce(0, +) }
        /// Snores an hour as the night summary counts them (snores of bouts), or every snore for a night stored without one.
        var snoresPerHour: Double {
            snoring?.snoresPerHour ?? (recordedSeconds > 0 ? Double(snoreCount) * 3600 / recordedSeconds : 0)
        }
    }

    /// Every recording, in the order they were recorded (then by recording id).
    public let nights: [Night]
    public let clock: LocalClock
    /// The nights, pieces of one joined, in order.
    let joined: [JoinedNight]

    /// Nights in the order they were recorded (then by recording id).
    public init(nights: [Night], clock: LocalClock) {
        self.nights = nights.sorted {
            ($0.report.recording.startMilliseconds, $0.report.recording.id) < ($1.report.recording.startMilliseconds, $1.report.recording.id)
        }
        self.clock = clock
        joined = Self.join(self.nights, timeZone: clock.timeZone)
    }

    /// `nights` (in order) with the pieces of each night recorded in pieces joined, as `trends` joins them.
    static func join(_ nights: [Night], timeZone: TimeZone) -> [JoinedNight] {
        let byID = Dictionary(nights.map { ($0.report.recording.id, $0) }) { first, _ in first }
        let starts = byID.mapValues(\.report.recording.startMilliseconds), durations = byID.mapValues(\.report.recording.durationSeconds)
        let summarised = nights.compactMap { night in night.report.snoring.map { (summary: $0, tags: night.report.tags) } }
        var joinedFrom: [Int64: NightPieces.Night] = [:], laterPieces = Set<Int64>()
        for night in NightPieces.nights(summarised, starts: starts, durations: durations, timeZone: timeZone) where night.recordingIDs.count > 1 {
            joinedFrom[night.recordingIDs[0]] = night
            laterPieces.formUnion(night.recordingIDs.dropFirst())
        }
        return nights.compactMap { night in
            let id = night.report.recording.id
            if let whole = joinedFrom[id] {
                return JoinedNight(pieces: whole.recordingIDs.compactMap { byID[$0] }, snoring: whole.summary, tags: whole.tags)
            }
            return laterPieces.contains(id) ? nil : JoinedNight(pieces: [night], snoring: night.report.snoring, tags: night.report.tags)
        }
    }

    public func render() -> String {
        var html: String
        let first = nights.first?.report.recording.startMilliseconds ?? 0
        let last = nights.last?.report.recording.startMilliseconds ?? 0
        let profiles = Set(nights.map(\.report.profile)).sorted()
        let (firstNight, lastNight) = (clock.date(clock.nightOf(first)), clock.date(clock.nightOf(last)))
        let counted = Formatting.counted(joined.count, "night")
        html = PageStyle.head(title: "\(counted), \(firstNight) to \(lastNight)")
        html += "<body>\n<header>\n<h1>\(counted)</h1>\n<p class=\"meta\">nights of \(esc(firstNight)) to "
            + "\(esc(lastNight)), \(esc(clock.zone(first))) · profile \(esc(profiles.joined(separator: ", "))) · "
            + "\(Formatting.fixed(nights.reduce(0) { $0 + $1.report.recording.durationSeconds } / 3600, 1)) hours recorded"
            + (nights.count > joined.count ? " in \(nights.count) recordings" : "") + "</p>\n</header>\n"

        helped(&html)
        charts(&html)
        html += "<section aria-labelledby=\"nights\">\n<h2 id=\"nights\">Night by night</h2>\n<div class=\"scroll\"><table>\n"
        html += "<tr><th rowspan=\"2\">night of</th><th rowspan=\"2\">from</th><th class=\"n\" rowspan=\"2\">length</th>"
            + "<th class=\"n\" rowspan=\"2\">snore<br>score</th><th class=\"n\" rowspan=\"2\">snoring</th>"
            + "<th class=\"n\" rowspan=\"2\">snores<br>per hour</th><th class=\"n\" rowspan=\"2\">minutes<br>in bouts</th>"
            + "<th colspan=\"4\" scope=\"colgroup\">episodes by tier</th><th colspan=\"4\" scope=\"colgroup\">alerts by tier</th>"
            + "<th rowspan=\"2\">tried</th></tr>\n<tr>"
        for _ in 0..<2 {
            for tier in NightReport.tiers {
                html += "<th class=\"n\"><span class=\"tier t-\(tier)\" title=\"\(tier)\">\(PageStyle.tierGlyph[tier] ?? "")</span>"
                    + "<span class=\"sr\"> \(tier)</span></th>"
            }
        }
        html += "</tr>\n"
        for night in joined {
            html += "<tr class=\"night\"><td><a href=\"\(esc(night.href))\">\(esc(clock.date(clock.nightOf(night.start))))</a>"
            if night.pieces.count > 1 {
                let links = night.pieces.map { "<a href=\"\(esc($0.href))\">\(clock.time($0.report.recording.startMilliseconds))</a>" }
                html += "<br><span class=\"note\">in \(night.pieces.count) recordings: \(links.joined(separator: ", "))</span>"
            }
            let score: String = night.snoring.map { Formatting.fixed($0.snoreScore, 0) } ?? "—"
            let share: String = night.snoring.map { SnoringWords.percent($0.snoringShare) } ?? "—"
            html += "</td><td>\(clock.time(night.start))</td><td class=\"n\">\(duration(night.recordedSeconds))</td>"
            html += "<td class=\"n\">\(score)</td><td class=\"n\">\(share)</td>"
            html += "<td class=\"n\">\(Formatting.fixed(night.snoresPerHour, 0))</td><td class=\"n\">\(Formatting.fixed(night.boutMinutes, 1))</td>"
            for tier in NightReport.tiers { html += "<td class=\"n\">\(night.episodeCount(tier: tier))</td>" }
            for tier in NightReport.tiers { html += "<td class=\"n\">\(night.alertCount(tier: tier))</td>" }
            html += "<td>\(night.tags.map(esc).joined(separator: ", "))</td></tr>\n"
        }
        html += "</table></div>\n</section>\n"

        html += "<section aria-labelledby=\"timelines\">\n<h2 id=\"timelines\">The nights at a glance</h2>\n"
        html += "<p class=\"legend\"><span>Each night from its start, to the same scale of hours:</span>"
        for tier in NightReport.tiers { html += "<span>\(tierHeading(tier)) episodes</span>" }
        html += "<span>grey: loudness</span></p>\n<div class=\"cards\" style=\"grid-template-columns:repeat(auto-fill,minmax(300px,1fr))\">\n"
        let longest = max(joined.map(\.spanSeconds).max() ?? 1, 1)
        for night in joined { mini(&html, night, scaleSeconds: longest) }
        html += "</div>\n</section>\n"
        html += "<footer class=\"note\"><p>Written by <code>somniq-analyze report</code>. Sounds a microphone heard, counted by a "
            + "program: not a medical diagnosis.</p></footer>\n</body>\n</html>\n"
        return html
    }

    /// What helped: each tag's nights against the others', in sentences, with a caution where a side is thin.
    private func helped(_ html: inout String) {
        let starts = Dictionary(nights.map { ($0.report.recording.id, $0.report.recording.startMilliseconds) }) { first, _ in first }
        let durations = Dictionary(nights.map { ($0.report.recording.id, $0.report.recording.durationSeconds) }) { first, _ in first }
        let comparison = TagComparison(nights: nights.compactMap { night in night.report.snoring.map { ($0, night.report.tags) } },
                                       starts: starts, durations: durations, timeZone: clock.timeZone)
        html += "<section aria-labelledby=\"helped\">\n<h2 id=\"helped\">What helped</h2>\n"
        if let note = comparison.piecesNote { html += "<p>\(esc(note)).</p>\n" }
        if let trend = comparison.overTime {
            let sentence = trend.sentence(from: clock.date(clock.nightOf(trend.firstMilliseconds)), to: clock.date(clock.nightOf(trend.lastMilliseconds)))
            html += "<p>\(esc(sentence)).</p>\n"
        }
        if comparison.rows.isEmpty {
            html += "<p>No night is tagged. Tag nights with what you tried (<code>somniq-analyze tag 3 --add mouthguard</code>) "
                + "and this section compares the nights with each tag against the nights without it.</p>\n</section>\n"
            return
        }
        html += "<ul>\n"
        for row in comparison.rows {
            var line = esc(row.comparison)
            if let with = row.with.medianShare, let without = row.without.medianShare, let perHourWith = row.with.medianSnoresPerHour,
               let perHourWithout = row.without.medianSnoresPerHour {
                line += "; snoring \(SnoringWords.percent(with)) of the night against \(SnoringWords.percent(without)), "
                    + "\(Formatting.fixed(perHourWith, 0)) snores an hour against \(Formatting.fixed(perHourWithout, 0))"
            }
            if let chance = row.chance { line += "; " + esc(chance) }
            if let caution = row.caution { line += " (\(esc(caution)))" }
            if let entanglement = row.entanglement { line += "; " + esc(entanglement) }
            html += "<li>\(line).</li>\n"
        }
        html += "</ul>\n<p class=\"note\">Medians over nights, the snore score's range lowest to highest in brackets. Nights "
            + "differ for many reasons besides what was tried; whether a difference in snore scores could be chance is the "
            + "rank-sum (Mann-Whitney) test's, and with many tags about one in twenty differs at p &lt; 0.05 by chance alone.</p>\n</section>\n"
    }

    /// The snore score and snores an hour night by night, as bars, the tagged nights marked beneath them; each chart's
    /// text alternative says every night's value.
    private func charts(_ html: inout String) {
        let scored = joined.filter { $0.snoring != nil }
        guard scored.count > 1 else { return }
        html += "<section aria-labelledby=\"charts\">\n<h2 id=\"charts\">Night by night, drawn</h2>\n"
        let tags = Set(scored.flatMap(\.tags)).sorted()
        func chart(_ title: String, _ id: String, value: (JoinedNight) -> Double, format: (Double) -> String) {
            let barWidth = 22.0, gap = 6.0, plotHeight = 110.0, top = 14.0, left = 34.0
            let tagRows = Double(tags.count) * 10
            let width = left + Double(scored.count) * (barWidth + gap) + gap
            let height = top + plotHeight + 18 + tagRows
            let values = scored.map(value)
            let ceiling = max(1, Self.niceCeiling(values.max() ?? 0))
            let described = zip(scored, values).map { night, value in
                "\(clock.date(clock.nightOf(night.start))): \(format(value))"
                    + (night.tags.isEmpty ? "" : " (\(night.tags.joined(separator: ", ")))")
            }.joined(separator: "; ")
            html += "<figure><figcaption class=\"note\">\(esc(title))</figcaption><div class=\"scroll\">"
                + "<svg class=\"bars\" id=\"\(id)\" viewBox=\"0 0 \(num(width)) \(num(height))\" width=\"\(num(width))\" height=\"\(num(height))\" "
                + "role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\" xmlns=\"http://www.w3.org/2000/svg\">"
                + "<title id=\"\(id)-title\">\(esc(title))</title><desc id=\"\(id)-desc\">\(esc(described))</desc>"
            for fraction in [0.0, 0.5, 1.0] {
                let y = top + plotHeight * (1 - fraction)
                html += "<line class=\"grid\" x1=\"\(num(left))\" x2=\"\(num(width))\" y1=\"\(num(y))\" y2=\"\(num(y))\"/>"
                    + "<text class=\"axis\" x=\"\(num(left - 4))\" y=\"\(num(y + 4))\" text-anchor=\"end\">\(format(ceiling * fraction))</text>"
            }
            for (index, night) in scored.enumerated() {
                let x = left + gap + Double(index) * (barWidth + gap)
                let barHeight = plotHeight * min(values[index], ceiling) / ceiling
                let date = clock.date(clock.nightOf(night.start))
                html += "<a href=\"\(esc(night.href))\"><rect class=\"bar\(night.tags.isEmpty ? "" : " tagged")\" x=\"\(num(x))\" "
                    + "y=\"\(num(top + plotHeight - barHeight))\" width=\"\(num(barWidth))\" height=\"\(num(max(barHeight, 0.5)))\">"
                    + "<title>\(esc(date)): \(format(values[index]))</title></rect></a>"
                html += "<text class=\"axis\" x=\"\(num(x + barWidth / 2))\" y=\"\(num(top + plotHeight + 12))\" text-anchor=\"middle\">"
                    + "\(esc(clock.dayOfMonth(clock.nightOf(night.start))))</text>"
                for (row, tag) in tags.enumerated() where night.tags.contains(tag) {
                    let y = top + plotHeight + 18 + Double(row) * 10
                    html += "<rect class=\"tagmark\" x=\"\(num(x))\" y=\"\(num(y))\" width=\"\(num(barWidth))\" height=\"7\">"
                        + "<title>\(esc(tag))</title></rect>"
                }
            }
            html += "</svg></div></figure>\n"
        }
        chart("Snore score, night by night (0-100)", "chart-score", value: { $0.snoring?.snoreScore ?? 0 }, format: { Formatting.fixed($0, 0) })
        chart("Snores per hour, night by night", "chart-snores", value: { $0.snoresPerHour }, format: { Formatting.fixed($0, 0) })
        if !tags.isEmpty {
            html += "<p class=\"legend\"><span>Bars: each night, left to right, labelled by the day of the month it began; "
                + "tagged nights darker.</span><span>Marks under the bars, a row per tag, top to bottom: "
                + "\(tags.map(esc).joined(separator: ", ")).</span></p>\n"
        }
        html += "</section>\n"
    }

    /// The smallest of 1, 2 or 5 times a power of ten at or above `value`: a chart's top.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    private func tierHeading(_ tier: String) -> String {
        "<span class=\"tier t-\(tier)\">\(PageStyle.tierGlyph[tier] ?? "") \(tier)</span>"
    }

    /// A night's timeline in small: its loudness, and its episodes in a row per tier; a night in pieces drawn piece by
    /// piece from its first one's start, the gaps between them left blank.
    private func mini(_ html: inout String, _ night: JoinedNight, scaleSeconds: Double) {
        let width = 300.0, envelopeHeight = 24.0, row = 7.0
        let height = envelopeHeight + 4 + row * Double(NightReport.tiers.count)
        func x(_ seconds: Double) -> Double { max(0, seconds) / max(scaleSeconds, 0.001) * width }
        let date = clock.date(clock.nightOf(night.start))
        let summary = "\(Formatting.counted(night.episodeCount, "episode")), \(Formatting.counted(night.snoreCount, "snore")), "
            + "\(Formatting.fixed(night.boutMinutes, 1)) minutes in snoring bouts"
        html += "<a class=\"card\" href=\"\(esc(night.href))\" aria-label=\"\(esc(date)): \(esc(summary))\">"
            + "<span>night of \(esc(date)), from \(clock.time(night.start)), \(duration(night.recordedSeconds))"
            + (night.pieces.count > 1 ? " in \(night.pieces.count) recordings" : "") + "</span>\n"
            + "<svg class=\"mini\" viewBox=\"0 0 \(num(width)) \(num(height))\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">"
            + "<title>\(esc(date)): \(esc(summary))</title>"
        for piece in night.pieces {
            let report = piece.report, length = report.recording.durationSeconds
            let offset = Double(report.recording.startMilliseconds - night.start) / 1000
            let (left, span) = (x(offset), x(offset + length) - x(offset))
            html += "<rect x=\"\(num(left))\" y=\"0\" width=\"\(num(span))\" height=\"\(num(height))\" fill=\"#f6f8fa\"/>"
            if !report.envelope.isEmpty {
                let ceiling = max(30, ((report.envelope.max() ?? 0) / 10).rounded(.up) * 10)
                let slice = span / Double(report.envelope.count)
                var path = "M\(num(left)) \(num(envelopeHeight))"
                // One point per slice of the mini's width, the loudest of the envelope's slices under it.
                let step = max(1, report.envelope.count / max(1, Int(span)))
                var index = 0
                while index < report.envelope.count {
                    let level = report.envelope[index..<min(index + step, report.envelope.count)].max() ?? 0
                    path += "H\(num(left + Double(index) * slice))V\(num(envelopeHeight - Double(min(level, ceiling) / ceiling) * envelopeHeight))"
                    index += step
                }
                path += "H\(num(left + span))V\(num(envelopeHeight))Z"
                html += "<path d=\"\(path)\" fill=\"#7a8794\" opacity=\".75\"/>"
            }
            for (row_, tier) in NightReport.tiers.enumerated() {
                let y = envelopeHeight + 4 + Double(row_) * row
                for episode in report.episodes where episode.tier == tier {
                    let (start, end) = (offset + min(max(episode.startSeconds, 0), length), offset + min(max(episode.endSeconds, 0), length))
                    html += "<rect class=\"t-\(tier)\" x=\"\(num(x(start)))\" y=\"\(num(y))\" "
                        + "width=\"\(num(max(1, x(end) - x(start))))\" height=\"\(num(row - 1))\"/>"
                }
            }
        }
        html += "</svg></a>\n"
    }
}
