import Foundation
import SomniqPipeline

/// The page for several nights: a row per night (snores per hour, bout minutes, episodes and alerts by tier) and
/// the nights' timelines as small multiples, each linking to its night's page.
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

        html += "<section aria-labelledby=\"nights\">\n<h2 id=\"nights\">Night by night</h2>\n<div class=\"scroll\"><table>\n"
        html += "<tr><th rowspan=\"2\">night of</th><th rowspan=\"2\">from</th><th class=\"n\" rowspan=\"2\">length</th>"
            + "<th class=\"n\" rowspan=\"2\">snores<br>per hour</th><th class=\"n\" rowspan=\"2\">minutes<br>in bouts</th>"
            + "<th colspan=\"4\" scope=\"colgroup\">episodes by tier</th><th colspan=\"4\" scope=\"colgroup\">alerts by tier</th></tr>\n<tr>"
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
                + "<td class=\"n\">\(Formatting.fixed(report.snoresPerHour, 0))</td><td class=\"n\">\(Formatting.fixed(report.boutMinutes, 1))</td>"
            for tier in NightReport.tiers { html += "<td class=\"n\">\(report.episodeCount(tier: tier))</td>" }
            for tier in NightReport.tiers { html += "<td class=\"n\">\(report.alertCount(tier: tier))</td>" }
            html += "</tr>\n"
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
        let summary = "\(report.episodes.count) episodes, \(report.snores.count) snores, \(Formatting.fixed(report.boutMinutes, 1)) "
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
