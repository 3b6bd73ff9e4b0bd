import Foundation
import SomniqPipeline

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

    public let nights: [Night]
    public let clock: LocalClock

    /// Nights in the order they were recorded (then by recording id).
    public init(nights: [Night], clock: LocalClock) {
        self.nights = nights.sorted {
            ($0.report.recording.startMilliseconds, $0.report.recording.id) < ($1.report.recording.startMilliseconds, $1.report.recording.id)
        }
        self.clock = clock
    }

    public func render() -> String {
        let first = nights.first?.report.recording.startMilliseconds ?? 0
        let last = nights.last?.report.recording.startMilliseconds ?? 0
        let profiles = Set(nights.map(\.report.profile)).sorted()
        let (firstNight, lastNight) = (clock.date(clock.nightOf(first)), clock.date(clock.nightOf(last)))
        var html = PageStyle.head(title: "\(nights.count) nights, \(firstNight) to \(lastNight)")
        html += "<body>\n<header>\n<h1>\(nights.count) nights</h1>\n<p class=\"meta\">nights of \(esc(firstNight)) to "
            + "\(esc(lastNight)), \(esc(clock.zone(first))) · profile \(esc(profiles.joined(separator: ", "))) · "
            + "\(Formatting.fixed(nights.reduce(0) { $0 + $1.report.recording.durationSeconds } / 3600, 1)) hours recorded</p>\n</header>\n"

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
        for night in nights {
            let report = night.report, start = report.recording.startMilliseconds
            html += "<tr class=\"night\"><td><a href=\"\(esc(night.href))\">\(esc(clock.date(clock.nightOf(start))))</a></td>"
                + "<td>\(clock.time(start))</td><td class=\"n\">\(duration(report.recording.durationSeconds))</td>"
                + "<td class=\"n\">\(report.snoring.map { Formatting.fixed($0.snoreScore, 0) } ?? "—")</td>"
                + "<td class=\"n\">\(report.snoring.map { SnoringWords.percent($0.snoringShare) } ?? "—")</td>"
                + "<td class=\"n\">\(Formatting.fixed(snoresPerHour(report), 0))</td><td class=\"n\">\(Formatting.fixed(report.boutMinutes, 1))</td>"
            for tier in NightReport.tiers { html += "<td class=\"n\">\(report.episodeCount(tier: tier))</td>" }
            for tier in NightReport.tiers { html += "<td class=\"n\">\(report.alertCount(tier: tier))</td>" }
            html += "<td>\(report.tags.map(esc).joined(separator: ", "))</td></tr>\n"
        }
        html += "</table></div>\n</section>\n"

        html += "<section aria-labelledby=\"timelines\">\n<h2 id=\"timelines\">The nights at a glance</h2>\n"
        html += "<p class=\"legend\"><span>Each night from its start, to the same scale of hours:</span>"
        for tier in NightReport.tiers { html += "<span>\(tierHeading(tier)) episodes</span>" }
        html += "<span>grey: loudness</span></p>\n<div class=\"cards\" style=\"grid-template-columns:repeat(auto-fill,minmax(300px,1fr))\">\n"
        let longest = max(nights.map(\.report.recording.durationSeconds).max() ?? 1, 1)
        for night in nights { mini(&html, night, scaleSeconds: longest) }
        html += "</div>\n</section>\n"
        html += "<footer class=\"note\"><p>Written by <code>somniq-analyze report</code>. Sounds a microphone heard, counted by a "
            + "program: not a medical diagnosis.</p></footer>\n</body>\n</html>\n"
        return html
    }

    /// Snores an hour as the night summary counts them (snores of bouts), or every snore for a night stored without one.
    private func snoresPerHour(_ report: NightReport) -> Double { report.snoring?.snoresPerHour ?? report.snoresPerHour }

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
        let scored = nights.filter { $0.report.snoring != nil }
        guard scored.count > 1 else { return }
        html += "<section aria-labelledby=\"charts\">\n<h2 id=\"charts\">Night by night, drawn</h2>\n"
        let tags = Set(scored.flatMap(\.report.tags)).sorted()
        func chart(_ title: String, _ id: String, value: (NightReport) -> Double, format: (Double) -> String) {
            let barWidth = 22.0, gap = 6.0, plotHeight = 110.0, top = 14.0, left = 34.0
            let tagRows = Double(tags.count) * 10
            let width = left + Double(scored.count) * (barWidth + gap) + gap
            let height = top + plotHeight + 18 + tagRows
            let values = scored.map { value($0.report) }
            let ceiling = max(1, Self.niceCeiling(values.max() ?? 0))
            let described = zip(scored, values).map { night, value in
                "\(clock.date(clock.nightOf(night.report.recording.startMilliseconds))): \(format(value))"
                    + (night.report.tags.isEmpty ? "" : " (\(night.report.tags.joined(separator: ", ")))")
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
                let date = clock.date(clock.nightOf(night.report.recording.startMilliseconds))
                html += "<a href=\"\(esc(night.href))\"><rect class=\"bar\(night.report.tags.isEmpty ? "" : " tagged")\" x=\"\(num(x))\" "
                    + "y=\"\(num(top + plotHeight - barHeight))\" width=\"\(num(barWidth))\" height=\"\(num(max(barHeight, 0.5)))\">"
                    + "<title>\(esc(date)): \(format(values[index]))</title></rect></a>"
                html += "<text class=\"axis\" x=\"\(num(x + barWidth / 2))\" y=\"\(num(top + plotHeight + 12))\" text-anchor=\"middle\">"
                    + "\(esc(clock.dayOfMonth(clock.nightOf(night.report.recording.startMilliseconds))))</text>"
                for (row, tag) in tags.enumerated() where night.report.tags.contains(tag) {
                    let y = top + plotHeight + 18 + Double(row) * 10
                    html += "<rect class=\"tagmark\" x=\"\(num(x))\" y=\"\(num(y))\" width=\"\(num(barWidth))\" height=\"7\">"
                        + "<title>\(esc(tag))</title></rect>"
                }
            }
            html += "</svg></div></figure>\n"
        }
        chart("Snore score, night by night (0-100)", "chart-score", value: { $0.snoring?.snoreScore ?? 0 }, format: { Formatting.fixed($0, 0) })
        chart("Snores per hour, night by night", "chart-snores", value: snoresPerHour, format: { Formatting.fixed($0, 0) })
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

    /// A night's timeline in small: its loudness, and its episodes in a row per tier.
    private func mini(_ html: inout String, _ night: Night, scaleSeconds: Double) {
        let report = night.report, start = report.recording.startMilliseconds
        let width = 300.0, envelopeHeight = 24.0, row = 7.0
        let height = envelopeHeight + 4 + row * Double(NightReport.tiers.count)
        let span = width * report.recording.durationSeconds / scaleSeconds
        func x(_ seconds: Double) -> Double { max(0, min(seconds, report.recording.durationSeconds)) / max(scaleSeconds, 0.001) * width }
        let summary = "\(Formatting.counted(report.episodes.count, "episode")), \(Formatting.counted(report.snores.count, "snore")), \(Formatting.fixed(report.boutMinutes, 1)) "
            + "minutes in snoring bouts"
        html += "<a class=\"card\" href=\"\(esc(night.href))\" aria-label=\"\(esc(clock.date(clock.nightOf(start)))): \(esc(summary))\">"
            + "<span>night of \(esc(clock.date(clock.nightOf(start)))), from \(clock.time(start)), \(duration(report.recording.durationSeconds))</span>\n"
            + "<svg class=\"mini\" viewBox=\"0 0 \(num(width)) \(num(height))\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">"
            + "<title>\(esc(clock.date(clock.nightOf(start)))): \(esc(summary))</title>"
            + "<rect x=\"0\" y=\"0\" width=\"\(num(span))\" height=\"\(num(height))\" fill=\"#f6f8fa\"/>"
        if !report.envelope.isEmpty {
            let ceiling = max(30, ((report.envelope.max() ?? 0) / 10).rounded(.up) * 10)
            let slice = span / Double(report.envelope.count)
            var path = "M0 \(num(envelopeHeight))"
            // One point per slice of the mini's width, the loudest of the envelope's slices under it.
            let step = max(1, report.envelope.count / max(1, Int(span)))
            var index = 0
            while index < report.envelope.count {
                let level = report.envelope[index..<min(index + step, report.envelope.count)].max() ?? 0
                path += "H\(num(Double(index) * slice))V\(num(envelopeHeight - Double(min(level, ceiling) / ceiling) * envelopeHeight))"
                index += step
            }
            path += "H\(num(span))V\(num(envelopeHeight))Z"
            html += "<path d=\"\(path)\" fill=\"#7a8794\" opacity=\".75\"/>"
        }
        for (row_, tier) in NightReport.tiers.enumerated() {
            let y = envelopeHeight + 4 + Double(row_) * row
            for episode in report.episodes where episode.tier == tier {
                html += "<rect class=\"t-\(tier)\" x=\"\(num(x(episode.startSeconds)))\" y=\"\(num(y))\" "
                    + "width=\"\(num(max(1, x(episode.endSeconds) - x(episode.startSeconds))))\" height=\"\(num(row - 1))\"/>"
            }
        }
        html += "</svg></a>\n"
    }
}
