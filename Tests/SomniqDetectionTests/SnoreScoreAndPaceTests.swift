import SomniqFeatures
import Testing
@testable import SomniqDetection

@Suite struct SnoreScoreAndPaceTests {
    /// A room steady at -60 dBFS for `seconds`.
    func room(seconds: Int, dbfs: Float = -60) -> BackgroundLevel {
        var envelope = LevelEnvelope()
        for _ in 0..<(seconds * LevelEnvelope.rateHz) { envelope.append(dbfs: dbfs) }
        return BackgroundLevel(envelope: envelope)
    }

    func snore(_ onset: Double, peak: Float, bout: Int?) -> RecurringEvent {
        RecurringEvent(classIndex: 0, onsetSeconds: onset, offsetSeconds: onset + 1, peakDbfs: peak, confidence: 0.9, bout: bout)
    }

    /// Four snores of one bout, one in each band, a breath (4 s) apart: each breath's time goes to its snore's band, the
    /// score weighs each by its loudness over the room (capped at 40 dB), and the pace is 60 / 4 s.
    @Test func theScoreWeighsEachBreathByItsSnoresLoudness() {
        let background = room(seconds: 100)
        let floor = background.at(seconds: 10)
        let snores = [snore(10, peak: floor + 5, bout: 0), snore(14, peak: floor + 15, bout: 0), snore(18, peak: floor + 25, bout: 0),
                      snore(22, peak: floor + 45, bout: 0), snore(60, peak: floor + 30, bout: nil)]
        let bout = Bout(classIndex: 0, onsetSeconds: 10, offsetSeconds: 23, eventCount: 4)
        let summary = NightSummary(durationSeconds: 100, snores: snores, bouts: [bout], background: background)

        #expect(summary.snores == 4, "the lone snore-like sound at 60 s is not a snore of the night")
        #expect(summary.snoringSeconds == 13)
        #expect(abs(summary.snoringShare - 0.13) < 1e-12)
        #expect(summary.bandSeconds == [4, 4, 4, 1], "the last snore's breath runs to the bout's end")
        // 100 × (4 × 5/40 + 4 × 15/40 + 4 × 25/40 + 1 × 40/40) / 100 s
        let expected = 100 * (4 * 5.0 / 40 + 4 * 15.0 / 40 + 4 * 25.0 / 40 + 1 * 1.0) / 100
        #expect(abs(summary.score - expected) < 1e-4, "score \(summary.score), expected \(expected)")
        #expect(abs(summary.snoresPerHour - 144) < 1e-9)
        #expect(summary.loudestOverRoomDb.map { abs($0 - 45) < 1e-4 } == true)
        let pace = summary.snoringPace
        #expect(pace?.median == 15 && pace?.low == 15 && pace?.high == 15 && pace?.count == 3, "\(String(describing: pace))")
        #expect(summary.bouts.count == 1 && summary.bouts[0].snores == 4 && summary.bouts[0].pace?.median == 15)
    }

    /// Twice as much of the same snoring in a night of the same length doubles the score; the same snoring in a night
    /// twice as long halves it (the score is per unit of recording time).
    @Test func theScoreIsPerUnitOfRecordingTime() {
        let background = room(seconds: 400)
        let floor = background.at(seconds: 0)
        func bout(_ index: Int, from start: Double) -> ([RecurringEvent], Bout) {
            ((0..<5).map { snore(start + Double($0) * 4, peak: floor + 20, bout: index) },
             Bout(classIndex: 0, onsetSeconds: start, offsetSeconds: start + 17, eventCount: 5))
        }
        let (first, one) = bout(0, from: 20), (second, two) = bout(1, from: 100)
        let single = NightSummary(durationSeconds: 200, snores: first, bouts: [one], background: background)
        let double = NightSummary(durationSeconds: 200, snores: first + second, bouts: [one, two], background: background)
        let longer = NightSummary(durationSeconds: 400, snores: first, bouts: [one], background: background)
        #expect(single.score > 0)
        #expect(abs(double.score - 2 * single.score) < 1e-9)
        #expect(abs(longer.score - single.score / 2) < 1e-9)
        #expect(single.bandSeconds == [0, 0, 17, 0], "20 dB over the room is loud")
    }

    @Test func bandsStartAtTheirFloors() {
        #expect(NightSummary.Band(overRoomDb: -3) == .quiet)
        #expect(NightSummary.Band(overRoomDb: 9.99) == .quiet)
        #expect(NightSummary.Band(overRoomDb: 10) == .light)
        #expect(NightSummary.Band(overRoomDb: 20) == .loud)
        #expect(NightSummary.Band(overRoomDb: 29.9) == .loud)
        #expect(NightSummary.Band(overRoomDb: 30) == .veryLoud)
    }

    /// A missed snore doubles one interval; the median and the 10th-90th percentile range are read past it.
    @Test func aMissedSnoreDoesNotSetThePace() {
        let background = room(seconds: 200)
        let onsets = [10.0, 14, 18, 22, 26, 30, 34, 38, 46, 50, 54, 58]  // 42 missed
        let snores = onsets.map { snore($0, peak: -30, bout: 0) }
        let bout = Bout(classIndex: 0, onsetSeconds: 10, offsetSeconds: 59, eventCount: snores.count)
        let pace = NightSummary(durationSeconds: 200, snores: snores, bouts: [bout], background: background).snoringPace!
        #expect(pace.median == 15 && pace.count == 11)
        #expect(pace.low == 15 && pace.high == 15, "ten breaths of 4 s and one of 8 s: \(pace)")
    }

    /// Breathing heard with a steady rhythm outside snoring bouts gives the quiet-breathing pace; the windows within a
    /// bout are the snores' and are left out; a window without breathing on top or without a steady rhythm is no reading.
    @Test func quietBreathingIsReadOutsideTheBouts() {
        let background = room(seconds: 200)
        let snores = [snore(100, peak: -30, bout: 0), snore(104, peak: -30, bout: 0), snore(108, peak: -30, bout: 0)]
        let bout = Bout(classIndex: 0, onsetSeconds: 100, offsetSeconds: 109, eventCount: 3)
        var windows = (0..<40).compactMap {
            NightSummary.RhythmWindow(window: $0, topClass: "breathing", topConfidence: 0.8, periodicity: 0.8, periodSeconds: $0 < 20 ? 5 : 4)
        }
        windows += (200...210).compactMap {  // 100-105 s: within the bout
            NightSummary.RhythmWindow(window: $0, topClass: "breathing", topConfidence: 0.8, periodicity: 0.8, periodSeconds: 2)
        }
        #expect(NightSummary.RhythmWindow(window: 50, topClass: "snoring", topConfidence: 0.8, periodicity: 0.9, periodSeconds: 4) == nil)
        #expect(NightSummary.RhythmWindow(window: 50, topClass: "breathing", topConfidence: 0.8, periodicity: 0.3, periodSeconds: 4) == nil)
        #expect(NightSummary.RhythmWindow(window: 50, topClass: "breathing", topConfidence: 0.4, periodicity: 0.9, periodSeconds: 4) == nil)
        let summary = NightSummary(durationSeconds: 200, snores: snores, bouts: [bout], background: background, breathingRhythm: windows)
        let quiet = summary.quietBreathingPace!
        #expect(quiet.count == 40)
        #expect(quiet.median == 13.5, "half the windows at 12 a minute, half at 15: \(quiet)")
        #expect(quiet.low == 12 && quiet.high == 15)
    }

    @Test func aNightWithoutSnoringScoresNothing() {
        let summary = NightSummary(durationSeconds: 3600, snores: [], bouts: [], background: room(seconds: 10))
        #expect(summary.score == 0 && summary.snores == 0 && summary.snoringSeconds == 0)
        #expect(summary.bandSeconds == [0, 0, 0, 0] && summary.snoringPace == nil && summary.loudestOverRoomDb == nil)
    }
}
