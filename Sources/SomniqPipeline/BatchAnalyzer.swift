import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFiles
import SomniqModel
import SomniqStore

/// Analyses many recordings into one database: in parallel, resumable, idempotent, and interruptible.
///
/// Each file goes: unchanged since a complete analysis with this model (same path, size and modification
/// time)? skip, or just add the missing profiles from its stored confidences. Otherwise decode and classify;
/// if the same audio (content hash) was already analysed with this model under another path, record the new
/// location instead of storing it twice. Otherwise run the profiles and store everything in one transaction.
public final class BatchAnalyzer: @unchecked Sendable {
    /// What happened to one file.
    public enum Outcome: Sendable {
        case analysed(RecordingData, [ProfileResult])
        /// Already in the database with this model; `addedProfiles` were computed from its stored confidences, and
        /// where a new start time was given, `startMoved` says what it was set to. `elsewhere`: the audio was stored
        /// from another file, which still holds it (`copy`: this file is a copy of it) or is gone (this file was moved
        /// there, and the stored recording now points here).
        case skipped(path: String, reason: String, addedProfiles: [String], startMoved: String? = nil,
                     elsewhere: (path: String, copy: Bool)? = nil)
        case failed(path: String, code: String, reason: String)
    }

    /// Counts so far, for progress lines and the closing summary.
    public struct Progress: Sendable {
        public var total = 0
        public var done = 0
        public var analysed = 0
        public var skipped = 0
        public var failed = 0
        /// Seconds of audio decoded.
        public var audioSeconds = 0.0
        /// Seconds of audio in files fully handled (analysed or skipped).
        public var audioSecondsHandled = 0.0
        /// Seconds of audio decoded so far in the files being analysed now, and the share of those files done (a
        /// file two-thirds decoded counts 0.67): progress within a long recording, not only between recordings.
        public var audioSecondsInFlight = 0.0
        public var filesInFlightDone = 0.0
        public var failures: [(path: String, reason: String)] = []
        /// Files analysed with a warning: cut short (analysed as far as the audio went), with channels that cancel in
        /// the mono mix, clipped, or dated by a copy where the name says another night.
        public var warnings: [(path: String, kind: WarningKind, message: String)] = []
        /// How many of the files analysed were cut short.
        public var cutShort = 0
        /// Files already done that had profiles added, and which.
        public var profilesAdded: [(path: String, profiles: [String])] = []
        /// Files already done whose start time was set to the one given, or read again in the time zone given, and what
        /// it was.
        public var startsMoved: [(path: String, message: String)] = []
        /// Files whose audio was stored from another file (a copy of it, or a file moved), and what was made of it.
        public var elsewhere: [(path: String, reason: String, copy: Bool)] = []
    }

    /// What a warning of an analysed file is about (`Progress.warnings`).
    public enum WarningKind: Sendable {
        case cutShort, cancellingChannels, clipping, namedNightDate
    }

    /// What to warn of in a recording just analysed (its start read in `timeZone`): cut short, channels that cancel in
    /// the mix, clipped, dated by a copy where its name says another night. Every command that analyses a file says these.
    public static func warnings(_ data: RecordingData, timeZone: TimeZone) -> [(kind: WarningKind, message: String)] {
        [(WarningKind.cutShort, CutShort.warning(data)),
         (.cancellingChannels, CancellingChannels.warning(data.faults, channelCount: data.channelCount)),
         (.clipping, Clipping.warning(data.faults)),
         (.namedNightDate, NamedNightDate.warning(data, timeZone: timeZone))].compactMap { kind, message in message.map { (kind, $0) } }
    }

    public let analyzer: RecordingAnalyzer
    public let store: AnalysisStore
    public let profiles: [SensitivityProfile]
    public let jobs: Int
    public let reanalyze: Bool
    public let explicitStart: Date?
    /// Start times of particular recordings (a manifest's `start` column), by path as given; `explicitStart` for the rest.
    public let startsByPath: [String: Date]
    /// Whether a time zone was given (`--timezone`): a recording already stored whose start was read from its name or
    /// its recorder's chunk in some zone has it read again in the analyzer's (`RecordingAnalyzer.timeZone`).
    public let rereadsLocalStarts: Bool
    /// The one channel to analyse (from 1; `--channel`), rather than the mix of all. Without it, a file whose night was
    /// analysed on one channel is analysed on that channel again (a new model, `--reanalyze`), not mixed.
    public let channel: Int?
    /// The cores the batch may use (`ProcessorSupport.usableCores`). While its jobs keep them all busy, each night is
    /// analysed on its job's one thread; the last nights, fewer than the cores, spread over them (`RecordingAnalyzer`'s
    /// `threaded`), as does every night of a batch with fewer jobs than cores.
    public let cores: Int

    private let lock = NSLock()
    private var progress = Progress()
    private var cancelled = false
    private var nextFile = 0
    /// Set when the database itself fails: nothing more can be stored.
    private var storeFailure: StoreError?

    public init(analyzer: RecordingAnalyzer, store: AnalysisStore, profiles: [SensitivityProfile], jobs: Int,
                reanalyze: Bool = false, explicitStart: Date? = nil, startsByPath: [String: Date] = [:],
                rereadsLocalStarts: Bool = false, channel: Int? = nil, cores: Int = ProcessorSupport.usableCores) {
        self.analyzer = analyzer
        self.store = store
        self.profiles = profiles
        self.jobs = max(1, jobs)
        self.reanalyze = reanalyze
        self.explicitStart = explicitStart
        self.startsByPath = Dictionary(startsByPath.map { (Self.absolute($0.key), $0.value) }) { first, _ in first }
        self.rereadsLocalStarts = rereadsLocalStarts
        self.channel = channel
        self.cores = max(1, cores)
    }

    /// Whether the file at `index` of `count` spreads over the cores: when the jobs still running with it (every job,
    /// until fewer files than jobs are left) are fewer than the cores.
    func spreads(index: Int, of count: Int) -> Bool {
        min(jobs, count - index) < cores
    }

    /// `path` absolute and standardised: how a start given for a path is found whichever way the path was written.
    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// The start time given for the recording at `path`, if any.
    private func start(of path: String) -> Date? { startsByPath[Self.absolute(path)] ?? explicitStart }

    /// Stops the batch: no new file starts, files being decoded stop at their next block and store nothing.
    public func cancel() {
        lock.withLock { cancelled = true }
    }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    public var snapshot: Progress {
        lock.withLock {
            var now = progress
            for (decoded, duration) in inFlight.values {
                now.audioSecondsInFlight += decoded
                now.filesInFlightDone += duration > 0 ? min(1, decoded / duration) : 0
            }
            return now
        }
    }

    /// Files being decoded: seconds decoded and their duration, by their place in the batch.
    private var inFlight: [Int: (decoded: Double, duration: Double)] = [:]

    /// The database error that stopped the batch, if one did.
    public var databaseFailure: StoreError? { lock.withLock { storeFailure } }

    /// Runs every file on `jobs` threads; `report` is called once per file (serialised, in completion order).
    public func run(_ files: [String], report: @escaping @Sendable (Outcome) -> Void) {
        lock.withLock {
            progress.total = files.count
            nextFile = 0
        }
        let group = DispatchGroup()
        for _ in 0..<min(jobs, max(1, files.count)) {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                while true {
                    let index: Int? = lock.withLock {
                        guard !cancelled, storeFailure == nil, nextFile < files.count else { return nil }
                        defer { nextFile += 1 }
                        return nextFile
                    }
                    guard let index else { return }
                    guard let outcome = process(files[index], index: index, threaded: spreads(index: index, of: files.count)) else { continue }
                    lock.withLock {
                        record(outcome)
                        report(outcome)
                    }
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
    }

    private func record(_ outcome: Outcome) {
        progress.done += 1
        switch outcome {
        case .analysed(let data, _):
            progress.analysed += 1
            progress.audioSecondsHandled += data.durationSeconds
            for (kind, warning) in Self.warnings(data, timeZone: analyzer.timeZone) {
                progress.warnings.append((data.path, kind, warning))
                if kind == .cutShort { progress.cutShort += 1 }
            }
        case .skipped(let path, let reason, let added, let moved, let earlier):
            progress.skipped += 1
            if !added.isEmpty { progress.profilesAdded.append((path, added)) }
            if let moved { progress.startsMoved.append((path, moved)) }
            if let earlier { progress.elsewhere.append((path, reason, earlier.copy)) }
        case .failed(let path, _, let reason):
            progress.failed += 1
            progress.failures.append((path, reason))
        }
    }

    /// One file, start to end; `nil` when it was interrupted (nothing of it was stored).
    private func process(_ file: String, index: Int, threaded: Bool) -> Outcome? {
        defer { lock.withLock { _ = inFlight.removeValue(forKey: index) } }
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970
        do {
            var channel = self.channel
            if channel == nil { channel = try store.analysedChannel(path: path) }
            if !reanalyze, let size, let modified,
               let existing = try store.completeAnalysis(path: path, fileSize: size, fileModified: modified),
               existing.modelTag == analyzer.bundle.versionTag, existing.channel == channel {
                let moved = try restarted(existing.id, path: path)
                return try completeProfiles(of: existing, path: path, reason: "already analysed", startMoved: moved)
            }
            let analysed = { [self] (channel: Int?) throws(AudioFileError) -> RecordingData in
                try analyzer.analyze(path: path, explicitStart: start(of: path), isCancelled: { [self] in isCancelled },
                                     progress: { [self] decoded, duration in
                                         lock.withLock { inFlight[index] = (decoded, duration) }
                                     }, keeping: .spooled, timed: false, channel: channel, threaded: threaded)
            }
            let data: RecordingData
            do {
                do {
                    data = try analysed(channel)
                } catch .noSuchChannel where self.channel == nil {
                    // The channel its last night was analysed on is not in the file now (another recording written
                    // over it): the channels mixed, as for any new recording.
                    data = try analysed(nil)
                }
            } catch {
                if case .interrupted = error { return nil }
                try store.saveFailure(filePath: path, code: error.code, message: error.reason)
                let kept = try store.recordingID(forPath: path) != nil
                return .failed(path: path, code: error.code, reason: error.reason + (kept ? " (the earlier analysis of this file is kept)" : ""))
            }
            lock.withLock {
                progress.audioSeconds += data.durationSeconds
                inFlight[index] = nil
            }
            // A file that held more audio when it was analysed before and is now cut short has been damaged in place
            // (not left short by a recorder that died): its good analysis stays, and the damage is reported as the
            // failure it is. (A night cut short from the start is analysed again as it is, with --reanalyze or a new model.)
            if let declared = data.declaredFrameCount, let earlier = try store.recordingID(forPath: path),
               (try store.recording(id: earlier)?.frameCount ?? 0) > data.frameCount {
                let error = AudioFileError.truncated(path: path, expectedFrames: declared, readFrames: data.frameCount)
                try store.saveFailure(filePath: path, code: error.code, message: error.reason)
                return .failed(path: path, code: error.code, reason: error.reason + " (the earlier analysis of this file is kept)")
            }
            // A night stored before the audio's identity was XXH3-128 carries SHA-256: where one could hold this audio,
            // the file is hashed once more the old way, and a night that matches takes the new identity (and so is found
            // as moved, copied or already analysed, its tags kept).
            if let hash = data.contentHash, try store.completeAnalysis(contentHash: hash) == nil,
               try store.mayHoldUnderOlderIdentity(data),
               let older = try? AudioFileReader.contentHash(of: path, channel: data.channel, kind: .sha256) {
                try store.adoptIdentity(hash, forOlder: older)
            }
            // The recording's timeline and its profiles are worked out on a thread of their own while the store writes
            // the window rows, the longest part of saving (the same values: each is a function of the windows alone).
            let completed = BackgroundValue { [analyzer, profiles, data] in
                var timed = data
                timed.timeline = analyzer.timeline(envelope: data.envelope, confidences: data.confidences, windowCount: data.windowCount)
                return (data: timed, results: analyzer.runProfiles(profiles, on: timed))
            }
            if isCancelled {
                _ = completed.value
                return nil
            }
            let profilesFor = { (names: [String]) in
                self.analyzer.runProfiles(names.compactMap { self.analyzer.bundle.profiles.profile(named: $0) }, on: completed.value.data)
            }
            switch try store.save(data, bundle: analyzer.bundle, profiles: profiles.map(\.name), completion: { completed.value },
                                  replacing: reanalyze, profilesFor: profilesFor) {
            case .stored:
                return .analysed(completed.value.data, completed.value.results)
            case .alreadyStored(let id, let previousPath):
                // The store points a recording moved (its old file gone) to its new place, and notes a copy beside it.
                let elsewhere = previousPath == path ? nil : (path: previousPath, copy: FileManager.default.fileExists(atPath: previousPath))
                let reason = elsewhere.map { $0.copy ? "same audio as \($0.path), already analysed"
                                                     : "moved from \($0.path), already analysed (its night now points here)" }
                    ?? "already analysed"
                lock.withLock { progress.audioSecondsHandled += data.durationSeconds }
                return .skipped(path: path, reason: reason, addedProfiles: [], startMoved: try restarted(id, path: path),
                                elsewhere: elsewhere)
            }
        } catch {
            lock.withLock {
                if storeFailure == nil { storeFailure = error }
            }
            return .failed(path: path, code: "database", reason: error.description)
        }
    }

    /// Where a start time was given that the stored recording does not have, moves the recording to it (the start
    /// is metadata: nothing is decoded again) and says so. Where a time zone was given instead, a start read from the
    /// file's name or its recorder's chunk (a clock's local time) is read again in it, and moved the same way.
    private func restarted(_ recordingID: Int64, path: String) throws(StoreError) -> String? {
        if let explicitStart = start(of: path) {
            let milliseconds = Int64((explicitStart.timeIntervalSince1970 * 1000).rounded())
            return try store.setStart(recordingID: recordingID, startMilliseconds: milliseconds, source: "explicit").map {
                "start time set to \(UTCTimestamp.format(milliseconds: milliseconds)) (was \($0))"
            }
        }
        let local: Set<RecordingStartTime.Source> = [.localFileName, .metadata]
        guard rereadsLocalStarts, let stored = try store.recording(id: recordingID),
              let source = stored.startSource.flatMap(RecordingStartTime.Source.init(rawValue:)), local.contains(source),
              let again = analyzer.startTime(path: path, durationSeconds: stored.durationSeconds ?? 0),
              again.source == source else { return nil }
        let milliseconds = Int64((again.date.timeIntervalSince1970 * 1000).rounded())
        return try store.setStart(recordingID: recordingID, startMilliseconds: milliseconds, source: source.rawValue).map {
            "start time read again in \(analyzer.timeZone.identifier): \(UTCTimestamp.format(milliseconds: milliseconds)) (was \($0))"
        }
    }

    /// Adds the requested profiles a stored analysis lacks, from its stored confidences (no decoding).
    private func completeProfiles(of existing: AnalysisStore.StoredAnalysis, path: String, reason: String,
                                  startMoved: String?) throws(StoreError) -> Outcome {
        let missing = profiles.filter { !existing.profiles.contains($0.name) }
        var duration = 0.0
        if !missing.isEmpty, let data = try store.recordingData(id: existing.id) {
            try store.addProfiles(analyzer.runProfiles(missing, on: data), to: data, recordingID: existing.id)
            duration = data.durationSeconds
        } else if let record = try store.recording(id: existing.id) {
            duration = record.durationSeconds ?? 0
        }
        lock.withLock { progress.audioSecondsHandled += duration }
        return .skipped(path: path, reason: reason, addedProfiles: missing.map(\.name), startMoved: startMoved)
    }
}
