import SomniqFeatures
import SomniqModel

/// What a recording's level envelope says about time: the background, every recurring event (snores, coughs, sobs) and
/// bout of the classes that have a rhythm, and the refined start and end of episodes. Built once per recording,
/// shared by every profile.
public struct RecordingTimeline: Sendable {
    public let timing: SoundTiming
    /// Events of every class with a rhythm, by class then onset.
    public let events: [RecurringEvent]
    /// Bouts of every class with a rhythm, by class then onset.
    public let bouts: [Bout]
    /// Per class with a rhythm, the longest pause between event onsets within one bout.
    private let boutGaps: [Int: Double]
    /// The classes whose activity is their bouts (`EventRhythm.boutOnly`): their episodes are timed and cut by the
    /// events of bouts only, never by an event on its own.
    private let boutOnlyClasses: Set<Int>
    /// Per class the bouts correct (`EventRhythm.boutOnly` and `claims`) or that opens a sound or ends a pause
    /// (`SoundClassDefinition.opensSound`, `endsPauseIn`), the windows in which the alert processor does not hear it.
    /// Found once per recording, applied under every profile.
    private let unheard: [(classIndex: Int, windows: [Bool])]

    public init(envelope: LevelEnvelope, model: ClassifierModel, confidences: [Float], windowCount: Int) {
        timing = SoundTiming(envelope: envelope)
        var events: [RecurringEvent] = []
        var bouts: [Bout] = []
        var gaps: [Int: Double] = [:]
        let classCount = model.classes.count
        for (classIndex, definition) in model.classes.enumerated() {
            guard let rhythm = definition.events, definition.status != .unsupported else { continue }
            gaps[classIndex] = rhythm.boutGapSec
            let claimed = rhythm.claims.compactMap { id in model.classes.firstIndex { $0.id == id } }
            let found = RecurringEventFinder.find(classIndex: classIndex, rhythm: rhythm, confidences: confidences,
                                                  classCount: classCount, windowCount: windowCount, timing: timing, claimed: claimed)
            events += found.events
            bouts += found.bouts
        }
        // What the bouts claim: per claimed class, the bouts of the classes that claim it and their events.
        var claimed: [Int: [RecurringEvent]] = [:]
        var claiming: [Int: [Bout]] = [:]
        for (classIndex, definition) in model.classes.enumerated() {
            guard let rhythm = definition.events, !rhythm.claims.isEmpty else { continue }
            let boutEvents = events.filter { $0.classIndex == classIndex && $0.bout != nil }
            for id in rhythm.claims {
                guard let other = model.classes.firstIndex(where: { $0.id == id }) else { continue }
                claimed[other, default: []] += boutEvents
                claiming[other, default: []] += bouts.filter { $0.classIndex == classIndex }
            }
        }
        // A claimed class's events that are a bout's events are not its own; its bouts are counted again without them.
        for (classIndex, claims) in claimed.sorted(by: { $0.key < $1.key }) {
            guard let rhythm = model.classes[classIndex].events else { continue }
            var own = events.filter { event in
                event.classIndex == classIndex && !claims.contains { $0.overlaps(event.onsetSeconds...event.offsetSeconds) }
            }
            events.removeAll { $0.classIndex == classIndex }
            bouts.removeAll { $0.classIndex == classIndex }
            bouts += RecurringEventFinder.groupBouts(&own, rhythm: rhythm, classIndex: classIndex)
            events += own
        }
        events.sort { ($0.classIndex, $0.onsetSeconds) < ($1.classIndex, $1.onsetSeconds) }
        bouts.sort { ($0.classIndex, $0.onsetSeconds) < ($1.classIndex, $1.onsetSeconds) }
        self.events = events
        self.bouts = bouts
        boutGaps = gaps
        boutOnlyClasses = Set(model.classes.indices.filter { model.classes[$0].events?.boutOnly == true })
        unheard = Self.unheardWindows(model: model, events: events, bouts: bouts, claiming: claiming, windowCount: windowCount)
            + Self.withinOtherSounds(model: model, confidences: confidences, windowCount: windowCount, timing: timing)
            + Self.outsidePauses(model: model, confidences: confidences, windowCount: windowCount)
    }

    /// How long after a window's end the confidence the alert processor hears there for `classIndex` is settled: a
    /// timeline of the recording cut at any moment and one of the whole recording agree on every window that ends at
    /// least this long before the cut (`RecordingTimelineHorizonTests` checks it). This is what a live follower waits
    /// before it runs the class's alert processor over a window:
    /// - 0 where the processor hears the classifier itself (a smoke alarm, crying, speech);
    /// - for a class that opens a sound (a gasp), the room's background around the window (half a minute ahead);
    /// - for a class heard only within its bouts (snoring), or claimed by another's bouts (a cough among snores), the
    ///   background, a stretch of confident windows read as one, and as many breaths as a bout's confirmation (its
    ///   third snore), its typical snore (its first five) and the beats looked for before and after it can take.
    public static func horizonSeconds(classIndex: Int, model: ClassifierModel) -> Double {
        let definition = model.classes[classIndex]
        let background = Double(BackgroundLevel.spanSeconds + 1) + AnalysisGrid.windowSeconds
        let claiming = model.classes.compactMap(\.events).filter { $0.claims.contains(definition.id) }
        let rhythms = (definition.events?.boutOnly == true || !claiming.isEmpty ? [definition.events].compactMap { $0 } : [])
            + claiming
        if let gap = rhythms.map(\.boutGapSec).max(), let events = rhythms.map(\.boutMinEvents).max() {
            let region = Double(RecurringEventFinder.regionWindows) * AnalysisGrid.hopSeconds + 2 * AnalysisGrid.windowSeconds
            let beats = RecurringEventFinder.templateEvents + events + RecurringEventFinder.earlierBeats + 2
            return background + region + Double(beats) * gap
        }
        return definition.opensSound ? background : 0
    }

    /// A window is quiet when its level stands less than this over the background, dB (as `preceding_quiet_s` reads
    /// a stretch: windows 10 dB over the room).
    static let quietWindowDb: Float = 10
    /// Another class holds a window when it is on top there at this confidence or more.
    static let holdingConfidence: Float = 0.5
    /// How far back a stretch is read, windows (3 s: as far into a stretch as `preceding_quiet_s` reaches).
    static let stretchWindows = 6

    /// Per class that opens a sound (`SoundClassDefinition.opensSound`), the windows where it is not heard: those in a
    /// loud stretch that another class (silence and other aside) held in a window before, the stretch read back to
    /// its last quiet window. Causal: only earlier windows are read.
    private static func withinOtherSounds(model: ClassifierModel, confidences: [Float], windowCount: Int,
                                          timing: SoundTiming) -> [(classIndex: Int, windows: [Bool])] {
        let classCount = model.classes.count
        let ignored = Set(model.classes.indices.filter { TopClass.nothing.contains(model.classes[$0].id) })
        // Per window: 0 not yet read, 1 quiet, 2 loud (read once, and only where a stretch is read back).
        var quiet = [UInt8](repeating: 0, count: windowCount)
        func isQuiet(_ window: Int) -> Bool {
            if quiet[window] == 0 {
                let start = AnalysisGrid.windowStartSeconds(window)
                let span = start...(start + AnalysisGrid.windowSeconds)
                let level = (timing.meanDbfs(in: span) ?? FeatureExtractor.minimumDbfs)
                    - timing.background.at(seconds: start + AnalysisGrid.windowSeconds / 2)
                quiet[window] = level < quietWindowDb ? 1 : 2
            }
            return quiet[window] == 1
        }
        var result: [(classIndex: Int, windows: [Bool])] = []
        for classIndex in model.classes.indices where model.classes[classIndex].opensSound {
            var unheard = [Bool](repeating: false, count: windowCount)
            for window in 0..<windowCount where confidences[window * classCount + classIndex] > 0 {
                for earlier in stride(from: window - 1, through: max(0, window - stretchWindows), by: -1) {
                    if isQuiet(earlier) { break }
                    if let holder = holder(of: earlier, confidences: confidences, classCount: classCount),
                       holder != classIndex, !ignored.contains(holder) {
                        unheard[window] = true
                        break
                    }
                }
            }
            if unheard.contains(true) { result.append((classIndex, unheard)) }
        }
        return result
    }

    /// Per class that ends a pause in others (`SoundClassDefinition.endsPauseIn`), the windows where it is not heard:
    /// those that start more than `withinSec` after the last window one of those classes held, or before any. Causal:
    /// only earlier windows are read.
    private static func outsidePauses(model: ClassifierModel, confidences: [Float], windowCount: Int)
        -> [(classIndex: Int, windows: [Bool])] {
        let classCount = model.classes.count
        var result: [(classIndex: Int, windows: [Bool])] = []
        for (classIndex, definition) in model.classes.enumerated() {
            guard let pause = definition.endsPauseIn else { continue }
            let paused = Set(pause.classes.compactMap { id in model.classes.firstIndex { $0.id == id } })
            var unheard = [Bool](repeating: false, count: windowCount)
            var lastHeld: Int?
            for window in 0..<windowCount {
                let start = AnalysisGrid.windowStartSeconds(window)
                unheard[window] = lastHeld.map { start - AnalysisGrid.windowStartSeconds($0) > pause.withinSec } ?? true
                if let holder = holder(of: window, confidences: confidences, classCount: classCount), paused.contains(holder) {
                    lastHeld = window
                }
            }
            if unheard.contains(true) { result.append((classIndex, unheard)) }
        }
        return result
    }

    /// The class on top in `window` if it stands at `holdingConfidence` or more (the first of equals).
    private static func holder(of window: Int, confidences: [Float], classCount: Int) -> Int? {
        var holder = 0
        for other in 1..<classCount where confidences[window * classCount + other] > confidences[window * classCount + holder] {
            holder = other
        }
        return confidences[window * classCount + holder] >= holdingConfidence ? holder : nil
    }

    /// Where the bouts correct what the alert processor hears: a `boutOnly` class outside its bouts, and a claimed
    /// class within a claiming bout but not over an event of its own.
    private static func unheardWindows(model: ClassifierModel, events: [RecurringEvent], bouts: [Bout], claiming: [Int: [Bout]],
                                       windowCount: Int) -> [(classIndex: Int, windows: [Bool])] {
        // The windows (1 s from each half-second) that share some time with any of `spans`.
        func touched(by spans: [(Double, Double)]) -> [Bool] {
            var marks = [Bool](repeating: false, count: windowCount)
            for (onset, offset) in spans where offset > onset {
                let first = max(0, Int(((onset - AnalysisGrid.windowSeconds) / AnalysisGrid.hopSeconds).rounded(.down)))
                let last = min(windowCount - 1, Int((offset / AnalysisGrid.hopSeconds).rounded(.up)))
                guard first <= last else { continue }
                for window in first...last {
                    let start = AnalysisGrid.windowStartSeconds(window)
                    if onset < start + AnalysisGrid.windowSeconds && start < offset { marks[window] = true }
                }
            }
            return marks
        }
        var result: [(classIndex: Int, windows: [Bool])] = []
        for classIndex in model.classes.indices where model.classes[classIndex].events?.boutOnly == true {
            let inBout = touched(by: bouts.filter { $0.classIndex == classIndex }.map { ($0.onsetSeconds, $0.offsetSeconds) })
            result.append((classIndex, inBout.map { !$0 }))
        }
        for (classIndex, claimingBouts) in claiming.sorted(by: { $0.key < $1.key }) {
            let claimed = touched(by: claimingBouts.map { ($0.onsetSeconds, $0.offsetSeconds) })
            let own = touched(by: events.filter { $0.classIndex == classIndex }.map { ($0.onsetSeconds, $0.offsetSeconds) })
            result.append((classIndex, zip(claimed, own).map { $0 && !$1 }))
        }
        return result
    }

    /// The confidences the alert processor hears, once the whole recording is known: the classifier's, except that
    /// - a `boutOnly` class is heard only within its bouts (one snore-like sound on its own is not the activity);
    /// - a class another class claims is not heard within the claiming class's bouts, except over events of its own
    ///   (a loud snore of a bout, scored as a cough or a door in its window, is a snore);
    /// - a class that opens a sound (a gasp) is not heard within a sound another class already holds;
    /// - a class that ends a pause in others (a gasp, in breathing) is not heard where none of them was heard shortly
    ///   before.
    /// The same for every profile, so that a stricter profile still never alerts more than a looser one. The stored
    /// window confidences stay the classifier's.
    public func heardConfidences(_ confidences: [Float], classCount: Int, windowCount: Int) -> [Float] {
        var matrix = confidences
        for classIndex in Set(unheard.map(\.classIndex)) {
            for (window, confidence) in heard(confidences, classIndex: classIndex, classCount: classCount, windowCount: windowCount).enumerated() {
                matrix[window * classCount + classIndex] = confidence
            }
        }
        return matrix
    }

    /// What the alert processor hears of the class `classIndex` (`heardConfidences`), window by window: one class's column
    /// at a time, so that running a profile over a long night holds a column beside the confidences, not a copy of them.
    public func heard(_ confidences: [Float], classIndex: Int, classCount: Int, windowCount: Int) -> [Float] {
        var column = Self.column(confidences, classIndex: classIndex, classCount: classCount, windowCount: windowCount)
        for (unheardClass, windows) in unheard where unheardClass == classIndex {
            for window in 0..<min(windowCount, windows.count) where windows[window] { column[window] = 0 }
        }
        return column
    }

    /// The confidences of the class `classIndex`, window by window, from the row-major matrix of `classCount` classes.
    public static func column(_ confidences: [Float], classIndex: Int, classCount: Int, windowCount: Int) -> [Float] {
        (0..<windowCount).map { confidences[$0 * classCount + classIndex] }
    }

    /// `episode` with its start and end moved to the sound's own: for a class with events, the first and last event
    /// inside it; otherwise where the level around its first and last confident windows rises out of and falls back
    /// to the background. The alert processor's episode starts when the smoothed confidence crossed its threshold
    /// (late by the smoothing) and ends on the window grid; the refined one does neither. Unchanged when the
    /// envelope shows nothing clear.
    /// `heard` is what the processor heard of the episode's class, window by window (`heard(_:classIndex:classCount:windowCount:)`).
    public func refined(_ episode: Episode, rule: AlertRule, heard: [Float], durationSeconds: Double) -> Episode {
        leveled(retimed(episode, rule: rule, heard: heard, durationSeconds: durationSeconds))
    }

    /// `episode` with its levels read from the envelope over its time.
    private func leveled(_ episode: Episode) -> Episode {
        var result = episode
        let span = episode.startSeconds...max(episode.startSeconds, episode.endSeconds)
        result.peakDbfs = timing.peakDbfs(in: span)
        result.meanDbfs = timing.meanDbfs(in: span)
        result.peakOverBackgroundDb = timing.peakOverBackgroundDb(in: span)
        return result
    }

    private func retimed(_ episode: Episode, rule: AlertRule, heard: [Float], durationSeconds: Double) -> Episode {
        // How far before the processor's onset the sound may have begun: its smoothing, hold and debounce.
        let lag = rule.windowSec + rule.holdSec + rule.debounceSec + AnalysisGrid.windowSeconds
        var result = episode
        let inside = episodeEvents(of: episode.classIndex).filter {
            $0.offsetSeconds > episode.startSeconds - lag && $0.onsetSeconds < episode.endSeconds
        }
        if let first = inside.first, let last = inside.max(by: { $0.offsetSeconds < $1.offsetSeconds }) {
            // A bout is one activity: an episode that holds part of one holds all of it (the processor may have
            // needed several snores to switch on).
            let classBouts = bouts.filter { $0.classIndex == episode.classIndex }
            let boutIndex: (RecurringEvent) -> Int? = { event in
                event.bout.flatMap { index in index < classBouts.count ? index : nil }
            }
            result.startSeconds = max(0, boutIndex(first).map { classBouts[$0].onsetSeconds } ?? first.onsetSeconds)
            result.endSeconds = min(durationSeconds, max(last.offsetSeconds, boutIndex(last).map { classBouts[$0].offsetSeconds } ?? 0))
            return result
        }
        let uncertainty = Float(rule.uncertainty)
        let firstFrame = AnalysisGrid.windowIndex(atSeconds: max(0, episode.startSeconds - lag))
        let lastFrame = min(heard.count - 1, AnalysisGrid.windowIndex(atSeconds: max(0, episode.endSeconds - AnalysisGrid.windowSeconds)))
        guard firstFrame <= lastFrame else { return result }
        let confident = (firstFrame...lastFrame).filter { heard[$0] >= uncertainty }
        guard let a = confident.first, let b = confident.last else { return result }
        let ta = AnalysisGrid.windowStartSeconds(a), tb = AnalysisGrid.windowStartSeconds(b)
        let hop = AnalysisGrid.hopSeconds, window = AnalysisGrid.windowSeconds
        if let start = timing.span(peakIn: ta...(ta + window), within: max(0, ta - hop)...(tb + window)),
           let end = timing.span(peakIn: tb...(tb + window), within: ta...(tb + window + hop)),
           start.onsetSeconds < end.offsetSeconds {
            result.startSeconds = max(0, start.onsetSeconds)
            result.endSeconds = min(durationSeconds, end.offsetSeconds)
        }
        return result
    }

    /// The events that time and cut an episode of class `classIndex`: of a `boutOnly` class, those of its bouts (a
    /// snore-like sound on its own just before a bout is not where the snoring began).
    private func episodeEvents(of classIndex: Int) -> [RecurringEvent] {
        let onlyBouts = boutOnlyClasses.contains(classIndex)
        return events.filter { $0.classIndex == classIndex && (!onlyBouts || $0.bout != nil) }
    }

    /// A rhythmic class's episode cut where its events pause: the alert processor merges activations up to its tier's
    /// merge gap apart (a minute for snoring and coughs), but two bouts of snores with a pause between are two snoring
    /// episodes (the pause may be one in breathing), and coughs a minute apart are two coughing spells, not a minute
    /// of coughing. The pieces are the runs of the class's events whose onsets follow within its `boutGapSec`. An
    /// episode holding at most one run is returned as it is. `heard` as `refined` takes it.
    public func boutEpisodes(_ episode: Episode, heard: [Float]) -> [Episode] {
        guard let gap = boutGaps[episode.classIndex] else { return [episode] }
        let inside = episodeEvents(of: episode.classIndex).filter {
            $0.offsetSeconds > episode.startSeconds && $0.onsetSeconds < episode.endSeconds
        }
        var runs: [(start: Double, end: Double)] = []
        var previousOnset = -Double.infinity
        for event in inside {
            if !runs.isEmpty, event.onsetSeconds - previousOnset <= gap {
                runs[runs.count - 1].end = max(runs[runs.count - 1].end, event.offsetSeconds)
            } else {
                runs.append((event.onsetSeconds, event.offsetSeconds))
            }
            previousOnset = event.onsetSeconds
        }
        guard runs.count > 1 else { return [episode] }
        return runs.enumerated().map { position, run in
            var piece = episode
            piece.startSeconds = position == 0 ? min(episode.startSeconds, run.start) : run.start
            piece.endSeconds = position == runs.count - 1 ? max(episode.endSeconds, run.end) : run.end
            if position > 0 { piece.suppressedCount = 0 }
            let first = AnalysisGrid.windowIndex(atSeconds: max(0, piece.startSeconds - AnalysisGrid.windowSeconds))
            let last = min(heard.count - 1, AnalysisGrid.windowIndex(atSeconds: piece.endSeconds))
            piece.peakConfidence = first <= last ? heard[first...last].max() ?? 0 : episode.peakConfidence
            return leveled(piece)
        }
    }
}
