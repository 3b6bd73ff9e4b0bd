import SomniqFeatures
import SomniqModel

/// One sound of a class that comes as separate, recurring events (a snore, a cough), timed to 10 ms.
public struct RecurringEvent: Equatable, Sendable {
    public var classIndex: Int
    public var onsetSeconds: Double
    public var offsetSeconds: Double
    /// The loudest 10 ms of it, dBFS over the analysis band.
    public var peakDbfs: Float
    /// The class's highest window confidence over the event.
    public var confidence: Float
    /// Index, within the class, of the bout it belongs to; `nil` for an event on its own.
    public var bout: Int?

    public var durationSeconds: Double { offsetSeconds - onsetSeconds }

    public init(classIndex: Int, onsetSeconds: Double, offsetSeconds: Double, peakDbfs: Float, confidence: Float, bout: Int? = nil) {
        self.classIndex = classIndex
        self.onsetSeconds = onsetSeconds
        self.offsetSeconds = offsetSeconds
        self.peakDbfs = peakDbfs
        self.confidence = confidence
        self.bout = bout
    }

    /// Whether the event and `span` share some time.
    public func overlaps(_ span: ClosedRange<Double>) -> Bool {
        onsetSeconds < span.upperBound && span.lowerBound < offsetSeconds
    }
}

/// A run of a class's events at a steady pace (snores once a breath): one activity.
public struct Bout: Equatable, Sendable {
    public var classIndex: Int
    public var onsetSeconds: Double
    public var offsetSeconds: Double
    public var eventCount: Int

    public var durationSeconds: Double { offsetSeconds - onsetSeconds }

    public init(classIndex: Int, onsetSeconds: Double, offsetSeconds: Double, eventCount: Int) {
        self.classIndex = classIndex
        self.onsetSeconds = onsetSeconds
        self.offsetSeconds = offsetSeconds
        self.eventCount = eventCount
    }
}

/// Finds a class's events and bouts: wherever the classifier hears the class (windows at or above the rhythm's
/// confidence), each separate sound rising out of the background is one event; events whose onsets follow each
/// other within `boutGapSec` form a bout when there are at least `boutMinEvents` of them.
public enum RecurringEventFinder {
    /// `claimed`: the indices of the classes the rhythm claims (`EventRhythm.claims`); a sound at a bout's pace that
    /// the classifier gave one of them is one of the bout's events (see `completeBouts`).
    public static func find(classIndex: Int, rhythm: EventRhythm, confidences: [Float], classCount: Int, windowCount: Int,
                            timing: SoundTiming, claimed: [Int] = []) -> (events: [RecurringEvent], bouts: [Bout]) {
        let threshold = Float(rhythm.confidence)
        func at(_ window: Int, _ index: Int) -> Float { confidences[window * classCount + index] }
        // The highest class of a window but this one.
        func topOther(_ window: Int) -> Int {
            var top = -1
            for other in 0..<classCount where other != classIndex && (top < 0 || at(window, other) > at(window, top)) { top = other }
            return top
        }
        // The class's confidence in a window; with `onTop`, 0 where another class is higher.
        func confidence(_ window: Int) -> Float {
            let own = at(window, classIndex)
            guard rhythm.onTop else { return own }
            let top = topOther(window)
            return top >= 0 && at(window, top) > own ? 0 : own
        }
        // A claimed class's confidence where it is the class on top (its own aside): a sound that sounds more like a
        // class the rhythm does not claim (a gasp before snoring resumes) is never taken into a bout.
        func claimedConfidence(_ window: Int) -> Float {
            guard !claimed.isEmpty else { return 0 }
            let top = topOther(window)
            return claimed.contains(top) ? at(window, top) : 0
        }
        var events: [RecurringEvent] = []
        var window = 0
        while window < windowCount {
            guard confidence(window) >= threshold else { window += 1; continue }
            // A long confident stretch is read a part at a time, each judged by its own loudest sound: what a sound is
            // never waits for the end of a stretch that may last minutes (see `RecordingTimeline.horizonSeconds`).
            var last = window
            while last + 1 < windowCount, last + 1 - window < regionWindows, confidence(last + 1) >= threshold { last += 1 }
            let region = AnalysisGrid.windowStartSeconds(window)...(AnalysisGrid.windowStartSeconds(last) + AnalysisGrid.windowSeconds)
            for span in timing.sounds(in: region, reach: AnalysisGrid.windowSeconds, bridgeSeconds: rhythm.bridgeSec,
                                      minimumSeconds: rhythm.minEventSec) {
                if let previous = events.last, span.onsetSeconds < previous.offsetSeconds { continue }
                let best = windowsOverlapping(span, windowCount: windowCount).map(confidence).max() ?? 0
                guard best >= threshold else { continue }
                events.append(RecurringEvent(classIndex: classIndex, onsetSeconds: span.onsetSeconds,
                                             offsetSeconds: span.offsetSeconds, peakDbfs: span.peakDbfs, confidence: best))
            }
            window = last + 1
        }
        events = joinClose(events, rhythm: rhythm)
        _ = groupBouts(&events, rhythm: rhythm, classIndex: classIndex)
        events = joinClose(completeBouts(events, rhythm: rhythm, timing: timing, windowCount: windowCount, confidence: confidence,
                                         claimedConfidence: claimedConfidence), rhythm: rhythm)
        _ = groupBouts(&events, rhythm: rhythm, classIndex: classIndex)
        events = joinTails(events)
        let bouts = groupBouts(&events, rhythm: rhythm, classIndex: classIndex)
        return (events, bouts)
    }

    /// The longest stretch of confident windows read as one region (10 s of windows).
    static let regionWindows = 20
    /// A bout's typical event (peak, length, pace) is that of its first events: a later snore is judged against what
    /// was heard before it, never against the hours of the bout still to come.
    static let templateEvents = 5
    /// How many beats before a bout's first event are looked for, at most.
    static let earlierBeats = 3

    /// The median of the first `templateEvents` of `values` (in onset order).
    static func typical<T: Comparable>(_ values: [T]) -> T {
        let first = values.prefix(templateEvents).sorted()
        return first[first.count / 2]
    }

    /// How soon after a bout's event ends a soft sound is still that event, seconds: a snore's end that its level's
    /// dip split off. The next snore comes a breath later, 2.4 s or more from the last one's start.
    static let tailGapSeconds = 0.6
    /// How far under the bout's typical event a sound must peak to be taken for the previous one's tail, dB.
    static let tailDepthDb: Float = 10

    /// Events (in onset order, bouts marked) of which a soft one right after another of its bout is that one's tail:
    /// less than `tailGapSeconds` after it ends and more than `tailDepthDb` under the bout's typical peak (its first
    /// events'), it is joined into it, so that a bout counts its snores, not the pieces of them.
    static func joinTails(_ events: [RecurringEvent]) -> [RecurringEvent] {
        let typicalPeak = Dictionary(grouping: events.filter { $0.bout != nil }, by: { $0.bout! }).mapValues { members in
            typical(members.map(\.peakDbfs))
        }
        return joined(events) { last, event in
            guard let bout = event.bout, last.bout == bout else { return false }
            return event.onsetSeconds - last.offsetSeconds < tailGapSeconds && event.peakDbfs < typicalPeak[bout]! - tailDepthDb
        }
    }

    /// Events (in onset order) whose onsets lie closer than the rhythm's `minIntervalSec` joined into one.
    static func joinClose(_ events: [RecurringEvent], rhythm: EventRhythm) -> [RecurringEvent] {
        guard rhythm.minIntervalSec > 0 else { return events }
        return joined(events) { last, event in event.onsetSeconds - last.onsetSeconds < rhythm.minIntervalSec }
    }

    /// Events (in onset order) with each one that `isPartOf(last, event)` says belongs to the one before it joined into
    /// that one: from the first's onset to the later offset, with the louder peak and the higher confidence.
    private static func joined(_ events: [RecurringEvent],
                               where isPartOf: (_ last: RecurringEvent, _ event: RecurringEvent) -> Bool) -> [RecurringEvent] {
        var result: [RecurringEvent] = []
        for event in events {
            if var last = result.last, isPartOf(last, event) {
                last.offsetSeconds = max(last.offsetSeconds, event.offsetSeconds)
                last.peakDbfs = max(last.peakDbfs, event.peakDbfs)
                last.confidence = max(last.confidence, event.confidence)
                result[result.count - 1] = last
            } else {
                result.append(event)
            }
        }
        return result
    }

    /// Inside a bout the classifier may miss a snore or two (its rhythm features need a few breaths to settle, so the
    /// first snores of a bout score lower). A sound at the bout's pace that matches its events (within 10 dB of their
    /// typical peak, of similar length; typical: its first events') and that the classifier leans towards (half the event confidence) is one of
    /// them: looked for before the first event, in gaps of a missing beat, and after the last. Leaning towards a
    /// class the rhythm claims counts the same where that class is on top (`claimedConfidence`): a loud snore at the
    /// bout's pace, scored as a cough in its window, is the bout's snore, as it is within the bout
    /// (`EventRhythm.claims`); the bout's first snore, taken for a cough, is where the bout starts.
    static func completeBouts(_ found: [RecurringEvent], rhythm: EventRhythm, timing: SoundTiming, windowCount: Int,
                              confidence: (Int) -> Float, claimedConfidence: (Int) -> Float = { _ in 0 }) -> [RecurringEvent] {
        var events = found
        let relaxed = Float(rhythm.confidence) / 2
        let boutIDs = Set(found.compactMap(\.bout))
        for bout in boutIDs.sorted() {
            var members = events.filter { $0.bout == bout }.sorted { $0.onsetSeconds < $1.onsetSeconds }
            let typicalPeak = typical(members.map(\.peakDbfs)), typicalLength = typical(members.map(\.durationSeconds))
            let pace = typical(zip(members.dropFirst(), members).map { $0.onsetSeconds - $1.onsetSeconds })
            // Sounds like the bout's between `start` and `end` (none where that is shorter than half a snore).
            func matching(from start: Double, to end: Double) -> [RecurringEvent] {
                guard end - start > typicalLength / 2 else { return [] }
                return timing.sounds(in: start...end, reach: 0, bridgeSeconds: rhythm.bridgeSec, minimumSeconds: rhythm.minEventSec)
                    .filter { $0.peakDbfs >= typicalPeak - 10 && (0.4 * typicalLength...2.5 * typicalLength).contains($0.offsetSeconds - $0.onsetSeconds) }
                    .compactMap { span in
                        let windows = windowsOverlapping(span, windowCount: windowCount)
                        let best = windows.map(confidence).max() ?? 0
                        guard best >= relaxed || (windows.map(claimedConfidence).max() ?? 0) >= relaxed else { return nil }
                        return RecurringEvent(classIndex: members[0].classIndex, onsetSeconds: span.onsetSeconds,
                                              offsetSeconds: span.offsetSeconds, peakDbfs: span.peakDbfs, confidence: best, bout: bout)
                    }
            }
            var added: [RecurringEvent] = []
            // Before the first, one beat at a time while they keep coming, a few beats at most.
            var first = members[0]
            for _ in 0..<earlierBeats {
                guard let earlier = matching(from: max(0, first.onsetSeconds - min(rhythm.boutGapSec, 1.5 * pace)),
                                             to: first.onsetSeconds - 0.05).last else { break }
                added.append(earlier)
                first = earlier
            }
            for (previous, next) in zip(members, members.dropFirst()) where next.onsetSeconds - previous.onsetSeconds > 1.5 * pace {
                added += matching(from: previous.offsetSeconds + 0.05, to: next.onsetSeconds - 0.05)
            }
            var last = members[members.count - 1]
            while let later = matching(from: last.offsetSeconds + 0.05, to: last.onsetSeconds + min(rhythm.boutGapSec, 1.5 * pace)).first {
                added.append(later)
                last = later
            }
            // Only sounds no event holds yet (a neighbouring bout may already have them).
            let fresh = added.filter { candidate in
                !events.contains { $0.onsetSeconds < candidate.offsetSeconds && candidate.onsetSeconds < $0.offsetSeconds }
            }
            members += fresh
            events += fresh
        }
        return events.sorted { $0.onsetSeconds < $1.onsetSeconds }
    }

    static func windowsOverlapping(_ span: SoundTiming.Span, windowCount: Int) -> [Int] {
        let first = max(0, Int((span.onsetSeconds / AnalysisGrid.hopSeconds).rounded(.down)) - 1)
        let final = min(windowCount - 1, Int((span.offsetSeconds / AnalysisGrid.hopSeconds).rounded(.down)))
        guard first <= final else { return [] }
        return (first...final).filter {
            AnalysisGrid.windowStartSeconds($0) < span.offsetSeconds
                && AnalysisGrid.windowStartSeconds($0) + AnalysisGrid.windowSeconds > span.onsetSeconds
        }
    }

    /// Marks each event's bout and returns the bouts.
    static func groupBouts(_ events: inout [RecurringEvent], rhythm: EventRhythm, classIndex: Int) -> [Bout] {
        var bouts: [Bout] = []
        for index in events.indices { events[index].bout = nil }
        var start = 0
        while start < events.count {
            var end = start
            while end + 1 < events.count, events[end + 1].onsetSeconds - events[end].onsetSeconds <= rhythm.boutGapSec { end += 1 }
            if end - start + 1 >= rhythm.boutMinEvents {
                for index in start...end { events[index].bout = bouts.count }
                bouts.append(Bout(classIndex: classIndex, onsetSeconds: events[start].onsetSeconds,
                                  offsetSeconds: events[start...end].map(\.offsetSeconds).max()!, eventCount: end - start + 1))
            }
            start = end + 1
        }
        return bouts
    }
}
