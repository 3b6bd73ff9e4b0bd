import SomniqFeatures
import SomniqModel
import Testing
@testable import SomniqDetection

@Suite struct RecurringEventTests {
    /// An envelope (10 ms levels, dBFS) of `seconds` of quiet room at -60 dBFS with loud stretches laid on it.
    func envelope(seconds: Double, loud: [(Double, Double)], level: Float = -20) -> LevelEnvelope {
        var envelope = LevelEnvelope()
        for index in 0..<Int(seconds * 100) {
            let time = Double(index) / 100
            envelope.append(dbfs: loud.contains { time >= $0.0 && time < $0.1 } ? level : -60)
        }
        return envelope
    }

    /// A bout whose last event lasts longer than the bout's pace (a long final snore) once made the search for a missed
    /// snore after it ask for a backwards range, and trapped. It must simply find nothing there.
    @Test func aLastEventLongerThanThePaceIsNoTrap() {
        let timing = SoundTiming(envelope: envelope(seconds: 40, loud: [(5, 6), (7, 8), (9, 10), (11, 17)]))
        let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3)
        var events = [(5.0, 6.0), (7.0, 8.0), (9.0, 10.0), (11.0, 17.0)].map {
            RecurringEvent(classIndex: 0, onsetSeconds: $0.0, offsetSeconds: $0.1, peakDbfs: -20, confidence: 0.9)
        }
        _ = RecurringEventFinder.groupBouts(&events, rhythm: rhythm, classIndex: 0)
        let completed = RecurringEventFinder.completeBouts(events, rhythm: rhythm, timing: timing, windowCount: 79, confidence: { _ in 0.9 })
        #expect(completed.count == 4)
    }

    /// Events a pace apart are one bout; a gap longer than `boutGapSec` starts another; fewer than `boutMinEvents`
    /// in a run are events on their own.
    @Test func boutsFollowThePace() {
        let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3)
        var events = [2.0, 6.0, 10.0, 14.0, 40.0, 44.0, 70.0, 74.0, 78.0].map {
            RecurringEvent(classIndex: 1, onsetSeconds: $0, offsetSeconds: $0 + 1, peakDbfs: -20, confidence: 0.9)
        }
        let bouts = RecurringEventFinder.groupBouts(&events, rhythm: rhythm, classIndex: 1)
        #expect(bouts.map(\.eventCount) == [4, 3])
        #expect(bouts.map(\.onsetSeconds) == [2, 70])
        #expect(bouts.map(\.offsetSeconds) == [15, 79])
        #expect(events.map(\.bout) == [0, 0, 0, 0, nil, nil, 1, 1, 1])
    }

    /// A snore's end that a dip in its level split off (a sound 12–15 dB softer, 0.15–0.5 s after it, as in the dev
    /// nights' single-snore clips) is that snore, so a bout counts its snores; a soft sound a breath later, a loud one
    /// right after, or one outside any bout stays an event of its own.
    @Test func aSnoresSplitOffEndIsThatSnore() {
        let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3)
        // (onset, offset, peak): snores every 4.5 s at about -27 dBFS; tails after the first two; a soft sound 1.5 s after
        // the third (a breath, not a tail); a loud sound 0.3 s after the fourth (as loud as a snore); a lone pair at 60 s.
        let sounds: [(Double, Double, Float)] = [
            (10, 11.2, -27), (11.4, 11.6, -40), (14.5, 15.8, -26), (16.1, 16.3, -39), (19, 20, -28), (21.5, 21.8, -40),
            (23.5, 24.5, -27), (24.8, 25.3, -29), (28, 29, -25), (60, 61, -27), (61.2, 61.4, -41),
        ]
        var events = sounds.map { RecurringEvent(classIndex: 0, onsetSeconds: $0.0, offsetSeconds: $0.1, peakDbfs: $0.2, confidence: 0.9) }
        _ = RecurringEventFinder.groupBouts(&events, rhythm: rhythm, classIndex: 0)
        var joined = RecurringEventFinder.joinTails(events)
        #expect(joined.map(\.onsetSeconds) == [10, 14.5, 19, 21.5, 23.5, 24.8, 28, 60, 61.2])
        #expect(joined[0].offsetSeconds == 11.6 && joined[1].offsetSeconds == 16.3 && joined[0].peakDbfs == -27)
        let bouts = RecurringEventFinder.groupBouts(&joined, rhythm: rhythm, classIndex: 0)
        #expect(bouts.map(\.eventCount) == [7])
    }

    /// With `onTop`, a sound is one of the class's events only where the class is on top: four sounds scored 0.6 for
    /// class 0, two of them with class 1 at 0.9 beside it, are two events; without it, four.
    @Test func onTopAsksTheClassToBeHeardAboveTheOthers() {
        let sounds = [10.0, 20.0, 30.0, 40.0]
        let timing = SoundTiming(envelope: envelope(seconds: 60, loud: sounds.map { ($0, $0 + 1) }))
        let windows = 119
        var confidences = [Float](repeating: 0.02, count: windows * 2)
        for sound in sounds {
            for window in AnalysisGrid.windowIndex(atSeconds: sound - 0.5)...AnalysisGrid.windowIndex(atSeconds: sound + 0.5) {
                confidences[window * 2] = 0.6
                if sound == 20 || sound == 40 { confidences[window * 2 + 1] = 0.9 }
            }
        }
        for (onTop, expected) in [(true, [10.0, 30.0]), (false, sounds)] {
            let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 5, boutMinEvents: 2, onTop: onTop)
            let found = RecurringEventFinder.find(classIndex: 0, rhythm: rhythm, confidences: confidences, classCount: 2,
                                                  windowCount: windows, timing: timing)
            #expect(found.events.map(\.onsetSeconds) == expected, "onTop \(onTop)")
        }
    }

    /// A snore whose level dips for a moment (0.2 s, longer than the bridge) is one snore, not two: sounds whose onsets
    /// lie closer than `minIntervalSec` are one event. Snores a breath apart stay apart; without the limit the dip
    /// splits every snore in two.
    @Test func aSnoreThatDipsIsOneSnore() {
        // Eight snores, 3 s apart, each 0.4 s of sound, a 0.2 s dip, then 0.4 s more.
        let snores = (0..<8).map { 10.0 + 3.0 * Double($0) }
        let timing = SoundTiming(envelope: envelope(seconds: 60, loud: snores.flatMap { [($0, $0 + 0.4), ($0 + 0.6, $0 + 1.0)] }))
        let windows = 119
        let confidences = [Float](repeating: 0.9, count: windows)
        for (limit, expected) in [(1.2, 8), (0.0, 16)] {
            let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3, minIntervalSec: limit)
            let found = RecurringEventFinder.find(classIndex: 0, rhythm: rhythm, confidences: confidences, classCount: 1,
                                                  windowCount: windows, timing: timing)
            #expect(found.events.count == expected, "limit \(limit)")
            #expect(found.bouts.count == 1 && found.bouts[0].eventCount == expected)
        }
        let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3, minIntervalSec: 1.2)
        let found = RecurringEventFinder.find(classIndex: 0, rhythm: rhythm, confidences: confidences, classCount: 1,
                                              windowCount: windows, timing: timing)
        for (event, onset) in zip(found.events, snores) {
            #expect(abs(event.onsetSeconds - onset) <= 0.01 && abs(event.offsetSeconds - (onset + 1.0)) <= 0.01, "\(event)")
        }
    }

    /// A bout's first snore and one in its middle, scored as coughs in their windows (class 1, which the snoring rhythm
    /// claims), are snores of the bout: the bout starts at the first and counts all eight. A class it does not claim
    /// gives nothing, and neither does a cough-scored sound off the bout's pace.
    @Test func aSnoreScoredAsAClaimedClassCompletesTheBout() {
        let snores = (0..<8).map { 10.0 + 4.0 * Double($0) }
        let stray = 50.5  // well after the bout, more than 1.5 paces from its last snore
        let timing = SoundTiming(envelope: envelope(seconds: 60, loud: (snores + [stray]).map { ($0, $0 + 1.0) }))
        let windows = 119, classCount = 2
        var confidences = [Float](repeating: 0, count: windows * classCount)
        for onset in snores + [stray] {
            let asCough = onset == snores[0] || onset == snores[4] || onset == stray
            for window in AnalysisGrid.windowIndex(atSeconds: max(0, onset - 0.5))...AnalysisGrid.windowIndex(atSeconds: onset + 0.5) {
                confidences[window * classCount + (asCough ? 1 : 0)] = 0.9
            }
        }
        let rhythm = EventRhythm(confidence: 0.5, boutGapSec: 10, boutMinEvents: 3, minIntervalSec: 1.2, claims: ["cough"])
        let claimed = RecurringEventFinder.find(classIndex: 0, rhythm: rhythm, confidences: confidences, classCount: classCount,
                                                windowCount: windows, timing: timing, claimed: [1])
        #expect(claimed.bouts.count == 1 && claimed.bouts[0].eventCount == 8, "\(claimed.bouts)")
        #expect(abs(claimed.bouts[0].onsetSeconds - snores[0]) <= 0.01)
        #expect(!claimed.events.contains { $0.onsetSeconds >= stray - 0.01 })
        let unclaimed = RecurringEventFinder.find(classIndex: 0, rhythm: rhythm, confidences: confidences, classCount: classCount,
                                                  windowCount: windows, timing: timing)
        #expect(unclaimed.bouts.map(\.eventCount) == [6], "\(unclaimed.bouts)")
        #expect(abs(unclaimed.bouts[0].onsetSeconds - snores[1]) <= 0.01)
    }

    /// Any range of time, even an empty or backwards one at the envelope's end, gives an answer rather than a trap.
    @Test func timingAnswersForAnyRange() {
        let timing = SoundTiming(envelope: envelope(seconds: 10, loud: [(4, 5)]))
        #expect(timing.peakDbfs(in: 10...10) != nil)
        #expect(timing.peakDbfs(in: 3...3) == -60)
        #expect(timing.span(peakIn: 4.2...4.2, within: 4.2...4.2) != nil)
        #expect(timing.sounds(in: 20...30, reach: 1, bridgeSeconds: 0.1, minimumSeconds: 0.1).isEmpty)
        let span = timing.span(peakIn: 3.5...5.5, within: 0...10)!
        #expect(abs(span.onsetSeconds - 4) <= 0.01 && abs(span.offsetSeconds - 5) <= 0.01, "\(span)")
    }
}
