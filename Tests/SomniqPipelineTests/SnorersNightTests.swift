import Foundation
import SomniqDetection
import SomniqModel
import SomniqPipeline
import GRDB
@testable import SomniqStore
import SomniqSynth
import Testing

/// The snorer's figures of synthesised nights whose snores, pace and levels are known.
@Suite struct SnorersNightTests {
    /// Two bouts over a room at -62 dBFS: 15 snores at -24 dBFS a breath of 4 s apart, then 12 at -54 dBFS 5 s apart. Every
    /// snore is counted, each bout's pace is its own (15 and 12 breaths a minute), the loud bout's snoring (some 45 dB over the
    /// room's quiet floor) is very loud and the soft one's (some 15 dB over it) light, and the score weighs them so.
    @Test func twoBoutsGiveTheirSnoresPacesAndBands() throws {
        let loud = snoringBout(start: 20, count: 15, period: 4.0, level: -24)
        let soft = snoringBout(start: 140, count: 12, period: 5.0, level: -54)
        let samples = scene(seconds: 220, sampleRate: 16_000, seed: 31) { synth in loud(&synth) + soft(&synth) }
        let data = RecordingAnalyzer(bundle: shippedBundle).analyzeRecording(samples: samples, sampleRate: 16_000)
        let summary = try #require(NightSummary(data))
        #expect(summary.snores == 27)
        try #require(summary.bouts.count == 2)
        #expect(summary.bouts[0].snores == 15 && summary.bouts[1].snores == 12)
        let first = try #require(summary.bouts[0].pace), second = try #require(summary.bouts[1].pace)
        #expect(abs(first.median - 15) < 0.5 && abs(second.median - 12) < 0.5, "\(first) \(second)")
        #expect(abs(summary.snoringPace!.median - 15) < 0.5, "15 intervals of 4 s outnumber 11 of 5 s")
        #expect(summary.snoringSeconds > 14 * 4 + 11 * 5, "the bouts run from the first snore to the last one's end")
        let loudBout = summary.bouts[0].offsetSeconds - summary.bouts[0].onsetSeconds
        let softBout = summary.bouts[1].offsetSeconds - summary.bouts[1].onsetSeconds
        #expect(abs(summary.bandSeconds[3] - loudBout) < 1e-6 && abs(summary.bandSeconds[1] - softBout) < 1e-6,
                "very loud \(summary.bandSeconds[3]) s of \(loudBout), light \(summary.bandSeconds[1]) s of \(softBout)")
        #expect(summary.bandSeconds[0] == 0 && summary.bandSeconds[2] == 0)
        // The loud bout counts whole (40 dB over the room or more); the soft one's breaths a quarter to a half each.
        let loudPart = 100 * loudBout / 220
        #expect(summary.score > loudPart + 100 * softBout / 220 * 0.25 && summary.score < loudPart + 100 * softBout / 220 * 0.5,
                "score \(summary.score)")
        #expect(summary.quietBreathingPace == nil, "no breathing was heard outside the bouts")
        // The summary `analyze` prints says the same.
        let text = AnalysisReport.text(data, results: [], detectionFloor: shippedBundle.classifier.detectionFloor)
        #expect(text.contains("  snoring: 27 snores in bouts (442 an hour), 1.9 min in 2 bouts, longest 57 s from 0:20.0;"), "\(text)")
        // Each band's time under a minute in seconds (the bouts' own lengths: 14 breaths of 4 s and 11 of 5 s, and the
        // last snore), where minutes to the tenth said 0.9 for both.
        #expect(text.contains("  snore score \(Formatting.fixed(summary.score, 0)): snoring 1.9 min, 51% of the night (very loud 57 s, "
                              + "light 56 s)\n"), "\(text)")
        #expect(Formatting.duration(loudBout) == "57 s" && Formatting.duration(softBout) == "56 s", "\(loudBout) \(softBout)")
        #expect(text.contains("  breathing 15 a minute (12-15) from 25 breaths between snores (an estimate from sound"), "\(text)")
    }
}

extension SnorersNightTests {
    /// Breathing heard between the bouts, a breath about every 4 s (3.8-4.3 s): its pace is read from its rhythm.
    @Test func breathingBetweenBoutsGivesTheQuietPace() throws {
        var night = SomniqSynth.SyntheticNight(seconds: 200, sampleRate: 16_000, seed: 41)
        night.addBreathing(from: 10, to: 190, levelDbfs: -40)
        let data = RecordingAnalyzer(bundle: shippedBundle).analyzeRecording(samples: night.samples.map(Float.init), sampleRate: 16_000)
        let summary = try #require(NightSummary(data))
        let pace = try #require(summary.quietBreathingPace)
        #expect(abs(pace.median - 60 / 4.05) < 1.5, "\(pace)")
        // Said with the readings it rests on (windows where breathing was on top with a steady rhythm), not as a length
        // of time: they are a sparse sample of the three minutes of breathing ("0.1 min" said too little).
        let text = AnalysisReport.text(data, results: [], detectionFloor: shippedBundle.classifier.detectionFloor)
        #expect(text.contains(" from \(Formatting.counted(pace.count, "reading")) of quiet breathing's rhythm (an estimate"), "\(text)")
    }
}

extension SnorersNightTests {
    /// A night stored before the summaries existed gets, from its stored snores, bouts, envelope and windows, the very
    /// figures `analyze` stores for it (what the v8 migration fills in for every earlier night).
    @Test func aNightStoredBeforeTheSummariesGetsTheSameFigures() throws {
        var night = SomniqSynth.SyntheticNight(seconds: 240, sampleRate: 16_000, seed: 43)
        night.addBreathing(from: 5, to: 100, levelDbfs: -40)
        night.addSnoringBout(from: 120, to: 200, levelDbfs: -30)
        var data = RecordingAnalyzer(bundle: shippedBundle).analyzeRecording(samples: night.samples.map(Float.init), sampleRate: 16_000)
        data.contentHash = "test-43"
        let store = try AnalysisStore.inMemory()
        let id = try store.save(data, bundle: shippedBundle, results: []).recordingID
        let analysed = try #require(try store.nightSummary(recordingID: id))
        #expect(analysed.snores > 10 && analysed.breathsPerMinute != nil && analysed.quietBreathsPerMinute != nil, "\(analysed)")
        let paces = try store.bouts(recordingID: id).filter { $0.classID == "snoring" }.map(\.breathsPerMinute)
        #expect(!paces.isEmpty && paces.allSatisfy { $0 != nil })

        try store.writer.write { db in
            try db.execute(sql: "DELETE FROM night_summaries")
            try db.execute(sql: "UPDATE bouts SET breaths_per_minute = NULL, breaths_per_minute_low = NULL, breaths_per_minute_high = NULL")
        }
        #expect(try store.nightSummary(recordingID: id) == nil)
        try store.writer.write { db in try AnalysisStore.fillNightSummaries(db) }
        #expect(try store.nightSummary(recordingID: id) == analysed)
        #expect(try store.bouts(recordingID: id).filter { $0.classID == "snoring" }.map(\.breathsPerMinute) == paces)
    }

    /// One sound is said in the singular: "1 cough event", not "1 cough events".
    @Test func aSingleEventIsSaidInTheSingular() throws {
        let bundle = try ModelBundle.load(path: root + "/models/rules")
        let samples = scene(seconds: 20, sampleRate: 16_000, seed: 41) { synth in [(8, synth.cough(levelDbfs: -20))] }
        let data = RecordingAnalyzer(bundle: bundle).analyzeRecording(samples: samples, sampleRate: 16_000)
        let text = AnalysisReport.text(data, results: [], detectionFloor: bundle.classifier.detectionFloor)
        // Without a bout, no bouts are said ("0.0 min in 0 bouts" said nothing).
        #expect(text.contains("  cough: 1 cough event (180 an hour); loudest 0:08."), "\(text)")
        #expect(!text.contains("bouts"), "\(text)")
        // A second on top is said as one ("cough 0.0" minutes read as never).
        let onTop = try #require(text.split(separator: "\n").first { $0.hasPrefix("  time on top: ") }, "\(text)")
        #expect(onTop.contains("cough 1 s") || onTop.contains("cough 2 s"), "\(onTop)")
        #expect(!onTop.contains("0.0"), "\(onTop)")
        let short = RecordingAnalyzer(bundle: bundle).analyzeRecording(samples: Array(samples[0..<5_600]), sampleRate: 16_000)
        let shortText = AnalysisReport.text(short, results: [], detectionFloor: bundle.classifier.detectionFloor)
        // 0.35 s: the clock and the seconds rounded alike (the seconds once printed the binary value's "0.3").
        #expect(shortText.contains("  0:00.4 (0.4 s), ") && shortText.contains(" 1 ch, 1 window\n"), "\(shortText)")
    }
}

extension SnorersNightTests {
    /// Times under a minute are said in seconds: a bout of 58 s is "58 s", not "1.0 min", and a stretch of a second and
    /// a half is "2 s", not "0.0 min".
    @Test func timesUnderAMinuteAreSaidInSeconds() {
        #expect(Formatting.duration(0) == "0 s")
        #expect(Formatting.duration(0.3) == "<1 s")
        #expect(Formatting.duration(0.5) == "1 s" && Formatting.duration(1.5) == "2 s" && Formatting.duration(2.5) == "3 s")
        #expect(Formatting.duration(57.9) == "58 s")
        #expect(Formatting.duration(59.6) == "1.0 min")
        #expect(Formatting.duration(84) == "1.4 min")
    }
}
