import Foundation
import Testing
@testable import SomniqNightReport
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore

/// A night built by hand: snoring bouts with pauses, gasps, an alarm; every figure the page shows is known.
private func night(duration: Double = 600, snores: [NightReport.Event]? = nil, episodes: [NightReport.Episode]? = nil,
                   fileName: String = "night.wav") -> NightReport {
    // Two bouts: snores every 4 s from 10 to 50 s and from 80 to 120 s; a lone snore-like sound at 300 s.
    let bout1 = stride(from: 10.0, through: 50, by: 4).map { NightReport.Event(onsetSeconds: $0, offsetSeconds: $0 + 1, peakDbfs: -30, inBout: true) }
    let bout2 = stride(from: 80.0, through: 120, by: 4).map { NightReport.Event(onsetSeconds: $0, offsetSeconds: $0 + 1, peakDbfs: -28, inBout: true) }
    let lone = [NightReport.Event(onsetSeconds: 300, offsetSeconds: 301, peakDbfs: -40, inBout: false)]
    func episode(_ number: Int, _ classID: String, _ tier: String, _ start: Double, _ end: Double, over: Double?) -> NightReport.Episode {
        NightReport.Episode(number: number, classID: classID, tier: tier, severity: "mild", startSeconds: start, endSeconds: end,
                            peakConfidence: 0.9, alertCount: 1, peakDbfs: over.map { $0 - 60 }, peakOverBackgroundDb: over)
    }
    let defaultEpisodes = [
        episode(1, "snoring", "high", 10, 51, over: 30),
        // 51 -> 66: a pause of 15 s after the first bout, then a gasp: counted.
        episode(2, "gasp", "critical", 66, 67, over: 45),
        episode(3, "snoring", "high", 80, 121, over: 32),
        // 121 -> 128: 7 s, too short a pause to count.
        episode(4, "gasp", "critical", 128, 129, over: 40),
        // After the lone snore at 300 s (not a bout's), a gasp 20 s later: not a pause in snoring.
        episode(5, "gasp", "critical", 321, 322, over: 20),
        episode(6, "smoke_detector", "critical", 400, 430, over: 50),
    ]
    let recording = NightReport.Recording(id: 7, fileName: fileName, path: "/nights/" + fileName, startMilliseconds: 1_795_302_000_000,
                                          startSource: "file-name", durationSeconds: duration, sampleRate: 16_000, channels: 1,
                                          modelName: "default", modelVersion: "2.4.0")
    let episodesUsed = episodes ?? defaultEpisodes
    return NightReport(
        recording: recording, profile: "balanced", warnings: [], envelope: (0..<870).map { Float($0 % 40) }, lanes: ["gasp", "smoke_detector", "snoring"],
        episodes: episodesUsed,
        alerts: episodesUsed.map { NightReport.Alert(classID: $0.classID, tier: $0.tier, kind: "onset", seconds: $0.startSeconds + 1) },
        snores: snores ?? (bout1 + bout2 + lone),
        bouts: [NightReport.Bout(classID: "snoring", onsetSeconds: 10, offsetSeconds: 51, eventCount: bout1.count),
                NightReport.Bout(classID: "snoring", onsetSeconds: 80, offsetSeconds: 121, eventCount: bout2.count)],
        profiles: [])
}

@Suite struct NightSummaryTests {
    @Test func snoringFigures() {
        let report = night()
        #expect(report.snores.count == 23)
        #expect(abs(report.snoresPerHour - 23 * 6) < 1e-9)
        #expect(abs(report.boutMinutes - 82.0 / 60) < 1e-9)
        #expect(report.longestBout?.onsetSeconds == 10, "equal bouts: the first is the longest")
    }

    @Test func aPauseCountsOnlyWhenSnoringStoppedLongEnoughThenAGasp() {
        let pauses = night().snoringPausesEndedByGasp
        #expect(pauses.count == 1, "\(pauses)")
        #expect(pauses.first?.startSeconds == 51)
        #expect(pauses.first?.gaspSeconds == 66)
    }

    @Test func aGaspLongAfterSnoringIsNoPause() {
        var report = night()
        report.episodes.append(NightReport.Episode(number: 7, classID: "gasp", tier: "critical", severity: "mild", startSeconds: 500,
                                                   endSeconds: 501, peakConfidence: 0.9, alertCount: 1))
        report.snores.removeLast()  // the lone sound gone, the last snore before 500 s ended at 121 s: 379 s, too long
        #expect(report.snoringPausesEndedByGasp.count == 1)
    }

    @Test func longestQuietStretchAndLoudest() {
        let report = night()
        let quiet = report.longestQuietStretch
        // 129 s (the second gasp ends) to 300 s (the lone sound): 171 s, a second longer than 430 s to the end.
        #expect(quiet?.start == 129 && quiet?.end == 300, "\(String(describing: quiet))")
        #expect(report.loudestEpisodes(limit: 3).map(\.number) == [6, 2, 4])
        #expect(report.episodeCount(tier: "critical") == 4)
        #expect(report.alertCount(tier: "high") == 2)
    }

    @Test func theEnvelopeKeepsEachSlicesLoudestWindow() {
        var levels = [Float](repeating: 1, count: 57_600)
        levels[20_000] = 42
        levels[57_599] = 9
        let slices = NightReportBuilder.summarise(levels, into: 870)
        #expect(slices.count == 870)
        #expect(slices[20_000 * 870 / 57_600] == 42)
        #expect(slices[869] == 9)
        #expect(slices.filter { $0 == 1 }.count == 868)
        #expect(NightReportBuilder.summarise([], into: 870).isEmpty)
    }
}

@Suite struct LocalClockTests {
    let berlin = LocalClock(timeZone: TimeZone(identifier: "Europe/Berlin")!)

    @Test func timesAndDatesInTheNightsZone() {
        let start: Int64 = 1_795_302_000_000  // 2026-11-21T23:00:00Z
        #expect(berlin.time(start) == "00:00")
        #expect(berlin.date(start) == "Sun 22 Nov 2026")
        #expect(berlin.date(berlin.nightOf(start)) == "Sat 21 Nov 2026", "a night started after midnight is the evening's")
        #expect(berlin.zone(start) == "Europe/Berlin, UTC+01:00")
        #expect(LocalClock(timeZone: TimeZone(identifier: "UTC")!).zone(start) == "UTC")
        #expect(berlin.timeWithSeconds(start + 3_723_000) == "01:02:03")
    }

    @Test func ticksFallOnTheLocalClock() {
        // 23:17:30 UTC is 00:17:30 in Berlin; the next quarter hour there is 00:30, 23:30 UTC.
        let from: Int64 = 1_795_302_000_000 + 17 * 60_000 + 30_000
        #expect(berlin.firstTick(atOrAfter: from, stepSeconds: 900) == 1_795_302_000_000 + 30 * 60_000)
        let kolkata = LocalClock(timeZone: TimeZone(identifier: "Asia/Kolkata")!)  // UTC+05:30: whole hours at :30 UTC
        #expect(kolkata.time(kolkata.firstTick(atOrAfter: from, stepSeconds: 3600)) == "05:00")
        #expect(NightPage.tickStep(durationSeconds: 8 * 3600) == 3600)
        #expect(NightPage.tickStep(durationSeconds: 240) == 60)
    }
}

@Suite struct NightPageTests {
    let clock = LocalClock(timeZone: TimeZone(identifier: "UTC")!)

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func theTimelineDrawsEveryEpisodeAlertAndSnore() {
        let report = night()
        let page = NightPage(report: report, clock: clock).render()
        #expect(count("<rect class=\"ep ", in: page) == report.episodes.count)
        #expect(count("<use class=\"al ", in: page) == report.alerts.count)
        #expect(count("<path class=\"sn\"", in: page) == report.snores.count)
        #expect(count("<rect class=\"pause\"", in: page) == 1)
        #expect(count("<rect class=\"bout\"", in: page) == 2)
        #expect(page.contains("pause → gasp"), "the pauses have their own lane")
        #expect(page.contains("not a medical diagnosis"))
        // Tier is shown by shape and name, not only colour.
        #expect(page.contains("▲ critical") && page.contains("◆ high"))
    }

    @Test func samePageEveryTime() {
        let report = night()
        #expect(NightPage(report: report, clock: clock).render() == NightPage(report: report, clock: clock).render())
    }

    /// The snoring section places the night's score among the other nights stored (the whole night's, for a piece), as
    /// the page shows scores: in whole points; with fewer than three other nights it says nothing.
    @Test func theScoreIsPlacedAmongTheOtherNights() {
        func summary(_ score: Double) -> NightSummaryRecord {
            var night = NightSummary(durationSeconds: 600, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
            night.score = score
            return NightSummaryRecord(recordingID: 1, night)
        }
        var report = night()
        var own = NightSummary(durationSeconds: 600, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
        own.score = 24.2
        own.snoringSeconds = 60
        report.snoring = NightSummaryRecord(recordingID: 7, own)
        report.otherNightScores = [58, 12, 32, 40, 23.8, 30.1]
        let clock = LocalClock(timeZone: TimeZone(identifier: "UTC")!)
        var page = NightPage(report: report, clock: clock).render()
        #expect(page.contains("<p>This night&#39;s score, 24, is lower than 4 of the 6 other nights stored, higher than 1 and the same as 1 "
                              + "(their median 31, from 12 to 58).</p>"), "24.2 and 23.8 both show as 24: \(page)")
        // A piece: the whole night's score is placed.
        report.pieces = [NightReport.Piece(recordingID: 7, startMilliseconds: report.recording.startMilliseconds, durationSeconds: 600),
                         NightReport.Piece(recordingID: 8, startMilliseconds: report.recording.startMilliseconds + 700_000, durationSeconds: 600)]
        report.wholeNight = summary(70)
        page = NightPage(report: report, clock: clock).render()
        #expect(page.contains("score, 70, is higher than all 6 other nights stored (their median"))
        // Too few nights to place it among.
        report.otherNightScores = Array(report.otherNightScores.prefix(2))
        #expect(!NightPage(report: report, clock: clock).render().contains("other nights stored"))
        // No snoring at all: placed all the same.
        report.pieces = []
        report.snoring = summary(0)
        report.otherNightScores = [0, 0, 5]
        page = NightPage(report: report, clock: clock).render()
        #expect(page.contains("No snoring bout: snore score 0.</p>\n<p>This night&#39;s"), "\(page)")
        #expect(page.contains("score, 0, is lower than 1 of the 3 other nights stored and the same as 2 (their median 0, from 0 to 5)"))
    }

    /// A piece of a night recorded in pieces says which it is, links the other pieces' pages where the report wrote them,
    /// and heads its summary with the whole night's figures.
    @Test func aPieceNamesTheOthers() {
        var report = night(duration: 3600)
        let start = report.recording.startMilliseconds
        report.pieces = [NightReport.Piece(recordingID: 7, startMilliseconds: start, durationSeconds: 3600),
                         NightReport.Piece(recordingID: 8, startMilliseconds: start + 3_660_000, durationSeconds: 7200, href: "r8 page.html"),
                         NightReport.Piece(recordingID: 9, startMilliseconds: start + 11_000_000, durationSeconds: 600)]
        var whole = NightSummary(durationSeconds: 10_800, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
        whole.score = 33.4
        whole.snoringSeconds = 2160
        report.wholeNight = NightSummaryRecord(recordingID: 7, whole)
        report.wholeNight!.snores = 1234
        report.wholeNight!.snoresPerHour = 1234 / (10_800 / 3600)
        let page = NightPage(report: report, clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        #expect(page.contains("<p class=\"meta\">piece 1 of the 3 this night was recorded in: <b>23:00–00:00</b> (this page) · "
                              + "<a href=\"r8 page.html\">00:01–02:01</a> · 02:03–02:13 (recording 9)</p>"), "\(page.prefix(2500))")
        #expect(page.contains("<p>The whole night, its 3 pieces together (3 h 10 min recorded): snore score <b>33</b>, snoring 20% of "
                              + "the night, 1,234 snores, 411 an hour. The figures below are this piece's.</p>"))
        // A night in one piece says nothing of pieces.
        let whole_ = NightPage(report: night(), clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        #expect(!whole_.contains("this night was recorded in") && !whole_.contains("The whole night"))
    }

    @Test func namesCannotInjectMarkup() {
        let report = night(fileName: "<script>alert(1)</script>\".wav")
        let page = NightPage(report: report, clock: clock).render()
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;.wav"))
    }

    @Test func nothingIsFetched() {
        let page = NightPage(report: night(), clock: clock).render()
        for pattern in ["src=\"http", "href=\"http", "url(http", "@import", "<link"] {
            #expect(!page.contains(pattern), "\(pattern)")
        }
        #expect(page.contains("Content-Security-Policy"))
    }

    @Test func anEightHourNightStaysSmall() {
        // 8 hours, a snore every 4 s through 4 hours of it (3,600 snores), 400 episodes, 1,200 alerts.
        let snores = stride(from: 0.0, to: 4 * 3600, by: 4).map { NightReport.Event(onsetSeconds: $0, offsetSeconds: $0 + 1, peakDbfs: -30, inBout: true) }
        let episodes = (0..<400).map { index in
            NightReport.Episode(number: index + 1, classID: ["snoring", "cough", "speech", "breathing"][index % 4],
                                tier: ["high", "high", "medium", "low"][index % 4], severity: "mild", startSeconds: Double(index) * 72,
                                endSeconds: Double(index) * 72 + 30, peakConfidence: 0.8, alertCount: 3, peakDbfs: -20,
                                peakOverBackgroundDb: 30, clip: "night_audio/clip-\(index + 1).wav")
        }
        var report = night(duration: 8 * 3600, snores: snores, episodes: episodes)
        report.alerts = (0..<1200).map { NightReport.Alert(classID: "cough", tier: "high", kind: "continuing", seconds: Double($0) * 24) }
        report.lanes = ["cough", "snoring", "speech", "breathing"]
        let page = NightPage(report: report, clock: clock).render()
        #expect(page.utf8.count < 2_000_000, "\(page.utf8.count) bytes")
        #expect(count("<path class=\"sn\"", in: page) == 3600)
    }
}

@Suite struct TrendPageTests {
    @Test func aRowAndATimelinePerNightInOrder() {
        var later = night()
        later.recording.id = 8
        later.recording.startMilliseconds += 86_400_000
        let page = TrendPage(nights: [.init(report: later, href: "b.html"), .init(report: night(), href: "a.html")],
                             clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        #expect(page.components(separatedBy: "<tr class=\"night\">").count - 1 == 2)
        let first = page.range(of: "href=\"a.html\"")!, second = page.range(of: "href=\"b.html\"")!
        #expect(first.lowerBound < second.lowerBound, "nights in the order they were recorded")
        #expect(page.components(separatedBy: "<svg class=\"mini\"").count - 1 == 2)
        #expect(page.contains(">138<"), "snores per hour of the night (23 snores in 10 minutes)")
    }

    /// A night recorded in two pieces is one row, one bar and one small timeline, with the whole night's figures: the
    /// score weighted by each piece's length, snores an hour over both, minutes and episodes summed, both pieces' tags.
    @Test func aNightInPiecesIsOneNight() {
        func piece(_ id: Int64, after hours: Double, lasting seconds: Double, score: Double, tags: [String]) -> TrendPage.Night {
            var report = night(duration: seconds)
            report.recording.id = id
            report.recording.startMilliseconds += Int64(hours * 3_600_000)
            var summary = NightSummary(durationSeconds: seconds, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
            summary.score = score
            report.snoring = NightSummaryRecord(recordingID: id, summary)
            report.snoring!.snores = 100
            report.snoring!.snoresPerHour = 100 * 3600 / seconds
            report.tags = tags
            return TrendPage.Night(report: report, href: "r\(id).html")
        }
        // 23:00 for 2 hours, then 01:00 for 6 hours (the recorder restarted); the next night apart.
        let nights = [piece(1, after: 0, lasting: 7200, score: 40, tags: ["mouthguard"]), piece(2, after: 2, lasting: 21_600, score: 20, tags: ["side"]),
                      piece(3, after: 24, lasting: 28_800, score: 10, tags: [])]
        let page = TrendPage(nights: nights.reversed(), clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        #expect(page.contains("<h1>2 nights</h1>") && page.contains("16.0 hours recorded in 3 recordings</p>"))
        let rows = page.components(separatedBy: "<tr class=\"night\">").dropFirst()
        #expect(rows.count == 2)
        let first = rows.first ?? ""
        #expect(first.contains("<a href=\"r1.html\">Sat 21 Nov 2026</a><br><span class=\"note\">in 2 recordings: "
                               + "<a href=\"r1.html\">23:00</a>, <a href=\"r2.html\">01:00</a></span>"), "\(first)")
        #expect(first.contains("<td class=\"n\">8 h 00 min</td><td class=\"n\">25</td>"), "(40 × 2 h + 20 × 6 h) / 8 h: \(first)")
        #expect(first.contains("<td class=\"n\">25</td><td class=\"n\">2.7</td>"), "200 snores in 8 hours; 2 × 1.37 minutes in bouts")
        #expect(first.contains("<td>mouthguard, side</td>"))
        #expect(first.contains("<td class=\"n\">8</td><td class=\"n\">4</td><td class=\"n\">0</td><td class=\"n\">0</td>"
                               + "<td class=\"n\">8</td><td class=\"n\">4</td>"),
                "episodes and alerts by tier summed: a piece's 3 gasps and smoke alarm are critical, its 2 snoring episodes high")
        #expect(page.components(separatedBy: "<svg class=\"mini\"").count - 1 == 2)
        #expect(page.contains("from 23:00, 8 h 00 min in 2 recordings</span>"))
        #expect(page.contains("Sat 21 Nov 2026: 25 (mouthguard, side); Sun 22 Nov 2026: 10"), "one bar a night")
    }

    /// What helped names another tag tried on the same nights, as `trends` does.
    @Test func whatHelpedNamesATagTriedOnTheSameNights() {
        let nights = (0..<6).map { index in
            var report = night()
            report.recording.id = Int64(index + 1)
            report.recording.startMilliseconds += Int64(index) * 86_400_000
            var summary = NightSummary(durationSeconds: 600, snores: [], bouts: [], background: BackgroundLevel(envelope: LevelEnvelope()))
            summary.score = index < 3 ? 10 + Double(index) : 40 + Double(index)
            report.snoring = NightSummaryRecord(recordingID: report.recording.id, summary)
            report.tags = index < 3 ? ["mouthguard", "side"] : []
            return TrendPage.Night(report: report, href: "n\(index).html")
        }
        let page = TrendPage(nights: nights, clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        #expect(page.contains("but side is on 3 of these 3 nights and 0 of the 3 others: the difference may come from side as much as "
                              + "from mouthguard.</li>"), "\(page)")
    }
}

@Suite struct NightReportBuilderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A fixture night (the apnea night unless another is named) analysed under `profiles`, stored in memory.
    func stored(profiles names: [String], model: String = "rules", night: String = "nights/apnea-night_8k.caf")
        throws -> (AnalysisStore, ModelBundle, RecordingData, [ProfileResult]) {
        let bundle = try ModelBundle.load(path: Self.root + "/models/" + model)
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let data = try analyzer.analyze(path: Self.root + "/fixtures/" + night)
        let all = analyzer.runProfiles(bundle.profiles.profiles, on: data)
        let store = try AnalysisStore.inMemory()
        _ = try store.save(data, bundle: bundle, results: all.filter { names.contains($0.profile) })
        return (store, bundle, data, all)
    }

    @Test func theProfileTableIsWhatCompareComputes() throws {
        let (store, bundle, data, all) = try stored(profiles: ["very-conservative", "conservative", "balanced", "sensitive", "very-sensitive"])
        let report = try NightReportBuilder(store: store, bundle: bundle).report(recordingID: 1, profile: "balanced")
        let compare = ProfileComparison(data: data, results: all).columns
        #expect(report.profiles.map(\.profile) == compare.map(\.profile))
        for (page, computed) in zip(report.profiles, compare) {
            #expect(page.alerts == computed.alerts && page.episodes == computed.episodes, "\(page.profile)")
            #expect(page.alertsByTier == computed.alertsByTier && page.episodesBySeverity == computed.episodesBySeverity, "\(page.profile)")
            #expect(abs(page.minutesInAlert - computed.minutesInAlert) < 1e-6, "\(page.profile)")
        }
        #expect(report.warnings.allSatisfy { !$0.contains("compared with the model") })
        // Stored under one profile only: the five are computed from the stored confidences, to the same figures.
        let (single, _, _, _) = try stored(profiles: ["balanced"])
        let computed = try NightReportBuilder(store: single, bundle: bundle).report(recordingID: 1, profile: "balanced")
        #expect(computed.profiles.map(\.alerts) == compare.map(\.alerts))
        #expect(computed.profiles.map(\.episodes) == compare.map(\.episodes))
    }

    /// A lane for each class with an episode, and one for the snores: under models/default and the strictest profile the
    /// sample night also holds events of a class that reaches no episode (its single cough), which draw nothing and get
    /// no lane.
    @Test func noLaneIsEmpty() throws {
        let (store, bundle, _, _) = try stored(profiles: ["very-conservative"], model: "default",
                                               night: "sample-night/sleep_recording_1795302000.caf")
        let report = try NightReportBuilder(store: store, bundle: bundle).report(recordingID: 1, profile: "very-conservative")
        let episodeClasses = Set(report.episodes.map(\.classID))
        #expect(try store.soundEvents(recordingID: 1).contains { !episodeClasses.contains($0.classID) && $0.classID != "snoring" },
                "the night holds events of a class without an episode")
        #expect(Set(report.lanes) == episodeClasses.union(report.snores.isEmpty ? [] : ["snoring"]), "\(report.lanes)")
    }

    /// The episodes' classes with how far their names can be trusted, from the card of the model that analysed the
    /// night; none from a card of another model than the night's.
    @Test func theEpisodesSoundsComeWithTheModelsHeldOutPrecision() throws {
        let (store, bundle, _, _) = try stored(profiles: ["balanced"], model: "default", night: "sample-night/sleep_recording_1795302000.caf")
        let report = try NightReportBuilder(store: store, bundle: bundle).report(recordingID: 1, profile: "balanced")
        let carded = Set(report.episodes.map(\.classID)).intersection(bundle.quality.keys)
        #expect(carded.contains("snoring") && carded.contains("smoke_detector"), "\(carded)")
        #expect(Set(report.classQuality.keys) == carded, "the gasp, hand-written, has no card; classes without an episode are left out")
        let page = NightPage(report: report, clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render()
        let note = try #require(page.range(of: "<p class=\"note\" id=\"trust\">").map { String(page[$0.lowerBound...].prefix(600)) })
        // snoring first (the night's first episode), at the card's 0.789 and 0.603.
        #expect(note.contains("that sound: snoring 79%, "), "\(note)")
        #expect(note.contains("learnt from: snoring 60%, "), "\(note)")

        let (other, rules, _, _) = try stored(profiles: ["balanced"], model: "rules", night: "sample-night/sleep_recording_1795302000.caf")
        _ = rules
        let byAnother = try NightReportBuilder(store: other, bundle: bundle).report(recordingID: 1, profile: "balanced")
        #expect(byAnother.classQuality.isEmpty, "the night was analysed with the rules, not the model whose card is at hand")
        #expect(!NightPage(report: byAnother, clock: LocalClock(timeZone: TimeZone(identifier: "UTC")!)).render().contains("id=\"trust\""))
    }

    /// A recording that is a piece of a night gets the night's pieces (from the store, in order) and its whole figures.
    @Test func aPieceOfANightKnowsTheOthers() throws {
        // The fixture stored as recording 1 (dated by its file), then as two pieces of the night of 1 Jan 2020: 22:00, and
        // 30 s after that piece's end.
        let (store, bundle, data, all) = try stored(profiles: ["balanced"])
        func piece(_ name: String, _ start: Int64) throws {
            var copy = data
            copy.path += name
            copy.contentHash = String(repeating: name.last!, count: 64)
            copy.startMilliseconds = start
            _ = try store.save(copy, bundle: bundle, results: all.filter { $0.profile == "balanced" })
        }
        let evening: Int64 = 1_577_916_000_000, length = Int64(data.durationSeconds * 1000)
        try piece(".a", evening)
        try piece(".b", evening + length + 30_000)
        let utc = TimeZone(identifier: "UTC")!
        let nights = try NightPieces.nights(in: store, timeZone: utc)
        #expect(nights.map(\.recordingIDs).sorted { $0[0] < $1[0] } == [[1], [2, 3]])
        let builder = NightReportBuilder(store: store, bundle: bundle)
        let second = try builder.report(recordingID: 3, profile: "balanced", nights: nights)
        #expect(second.pieces.map(\.recordingID) == [2, 3])
        #expect(second.pieces.map(\.startMilliseconds) == [evening, evening + length + 30_000])
        #expect(second.pieces.map(\.durationSeconds) == [data.durationSeconds, data.durationSeconds])
        let summaries = try store.nightSummaries()
        let joined = NightPieces.joined([(summaries[2]!, data.durationSeconds), (summaries[3]!, data.durationSeconds)])
        #expect(second.wholeNight == joined && joined.snores == 2 * summaries[2]!.snores)
        #expect(second.otherNightScores == [summaries[1]!.snoreScore], "the other night: recording 1, not the night's own pieces")
        // Without the nights, and for a night in one piece, a report names no pieces.
        #expect(try builder.report(recordingID: 3, profile: "balanced").pieces.isEmpty)
        let first = try builder.report(recordingID: 1, profile: "balanced", nights: nights)
        #expect(first.pieces.isEmpty && first.otherNightScores == [joined.snoreScore])
        // Begun the next evening: a night of its own.
        try piece(".c", evening + 86_400_000)
        #expect(try NightPieces.nights(in: store, timeZone: utc).map(\.recordingIDs).sorted { $0[0] < $1[0] } == [[1], [2, 3], [4]])
    }

    @Test func aProfileNotStoredIsNamed() throws {
        let (store, bundle, _, _) = try stored(profiles: ["balanced"])
        #expect(throws: NightReportBuilder.Failure.self) {
            try NightReportBuilder(store: store, bundle: bundle).report(recordingID: 1, profile: "sensitive")
        }
        let report = try NightReportBuilder(store: store, bundle: bundle).report(recordingID: 1, profile: "balanced")
        #expect(report.lanes.first == "gasp" || report.lanes.first == "smoke_detector", "critical classes first: \(report.lanes)")
        #expect(report.snoringPausesEndedByGasp.count == 2, "the fixture's two pauses, each ended by a gasp")
        #expect(report.envelope.count == NightPage.plotWidth)
    }
}
