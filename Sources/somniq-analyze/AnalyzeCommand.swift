import ArgumentParser
import Foundation
import SomniqAudio
import SomniqCluster
import SomniqFiles
import SomniqModel
import SomniqPipeline
import SomniqStore

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse recordings into the database and print what each profile made of them.",
        discussion: """
            Folders are searched recursively for audio. Recordings are analysed in parallel (--jobs); each is \
            decoded and classified once, the chosen profiles run on its stored per-window confidences, and its \
            rows are written in one transaction. A recording is identified by the hash of its audio (XXH3-128): running \
            the same command again skips what is done (adding only missing profiles), and a moved or renamed \
            file is recognised. A file that cannot be read is reported and recorded as failed; the others go on.
            A file cut short (its header promises more audio than it holds) is analysed as far as its audio goes, \
            with a warning (--strict refuses it). Given --start for a recording already analysed, its stored times \
            move to that start without decoding it again.
            Exit status: 0 every recording analysed or already done; 1 some failed; 2 nothing could be done \
            (model or database unusable, disk full); 64 usage error; 130 / 143 interrupted by SIGINT / SIGTERM \
            (rerun the same command to resume).
            """)

    @Argument(help: ArgumentHelp("Audio files, or folders to search for them.", valueName: "files-or-folders"))
    var inputs: [String] = []

    @Option(help: ArgumentHelp(
        "A file listing the recordings: one path a line, or a CSV or TSV table with a 'path' column.",
        discussion: "Paths are relative to the manifest's folder unless absolute; a file that is missing is recorded as failed, the others go on. A 'start' column gives each recording's start time (as --start does for one, in --timezone's zone unless it gives its own; an empty cell: from the file); a 'tags' column tags each night (comma-separated; see 'tag').",
        valueName: "file"))
    var manifest: String?

    // Unconditional: '--shard -1/4' is a wrong share to name as such, not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Analyse only the K-th of N disjoint shares of the inputs (K from 1 to N), or 'auto': the share a Slurm array task or a Kubernetes Indexed Job is given.",
        discussion: "A file's share depends on it alone (a hash of its path as the manifest writes it, or as given), so adding, removing or renaming other files moves nothing. Run each share into its own --db, then 'somniq-analyze merge'.",
        valueName: "K/N|auto"))
    var shard: String?

    @Option(help: ArgumentHelp(
        "With --shard auto under a Kubernetes Indexed Job: the number of shares (the Job's completions; default $SOMNIQ_SHARD_COUNT).",
        valueName: "N"))
    var shardCount: Int?

    @Option(help: ArgumentHelp("SQLite database to write.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("Profile to run, or 'all'. Default: the model's default (balanced).", valueName: "name|all"))
    var profile: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp(
        "Recording start time, e.g. 2026-11-21T23:14 (in --timezone's zone) or 2026-11-21T23:14:05+01:00; one recording only.",
        discussion: "Otherwise taken from a sleep_recording_<unix-seconds> file name, the file's metadata, a date and time in the file name (20261130_231405, 2026-11-30 23.14.05, 21.11.2026 23.14), or its modification time minus its duration.",
        valueName: "date-time"))
    var start: String?

    @Option(help: ArgumentHelp(
        "Time zone of start times given without one, a tz database name in any letter case (default: the system's, $TZ).",
        discussion: "A date and time in a file name and a recorder's own date chunk are its clock's local time: they are read in this zone. Given for recordings already analysed, their start is read again in it (nothing is decoded again); without it they keep theirs.",
        valueName: "zone"))
    var timezone: String?

    @Option(help: ArgumentHelp(
        "Analyse this channel alone (from 1) rather than the channels mixed to mono.",
        discussion: "For a stereo recording whose channels cancel in the mix (one inverted: analyze warns of it), or whose other channel is dead or noisy. The night is stored as that channel's (a rerun without --channel keeps it; the report's clips are cut from it); a file with fewer channels fails with a clear error, the rest of the batch goes on.",
        valueName: "n"))
    var channel: Int?

    @Option(help: ArgumentHelp("Recordings analysed at once (default: the cores this process may use).",
        discussion: "While the jobs keep every core busy, each recording is analysed on one thread; with fewer jobs than cores (one recording, the last of a batch), one recording's decoding and analysis run on two."))
    var jobs = ProcessorSupport.usableCores

    @Option(name: .customLong("tag"), help: ArgumentHelp(
        "A tag for every night given here (repeatable): what was tried, as 'tag --add' adds it.",
        discussion: "Added to the nights analysed, and to those the database already held (their other tags kept); a file that fails takes none.",
        valueName: "tag"))
    var tags: [String] = []

    @Flag(help: "Analyse again even what the database already holds with this model.")
    var reanalyze = false

    @Flag(help: "No progress and no per-recording summaries; only the closing summary on stderr.")
    var quiet = false

    @Flag(help: "Add our tables to --db even though it is another application's SQLite database (refused otherwise).")
    var adoptDatabase = false

    @Flag(help: ArgumentHelp(
        "Refuse a file cut short (its header promises more audio than it holds) as an error.",
        discussion: "By default such a file (a recorder that crashed, a phone that died) is analysed as far as its audio goes, stored with truncated = 1, and named in a warning."))
    var strict = false

    func validate() throws {
        if let start, let problem = RecordingStartTime.problem(withGivenStart: start) {
            throw ValidationError("--start \(start): \(problem)")
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let channel, channel < 1 { throw ValidationError("--channel counts from 1 (the first channel)") }
        _ = try TimeZoneOption.zone(timezone)
        try TagCommand.validate(tags, option: "--tag")
        if inputs.isEmpty && manifest == nil { throw ValidationError("give audio files or folders, or --manifest FILE") }
        if let shardCount, shardCount < 1 { throw ValidationError("--shard-count must be at least 1") }
        if shardCount != nil && shard != "auto" { throw ValidationError("--shard-count goes with --shard auto") }
        if let shard, shard != "auto" {
            do { _ = try Shard.parse(shard) } catch { throw ValidationError(error.description) }
        }
    }

    /// The recordings to analyse (the command line's and the manifest's, then this shard's share of them), and the start
    /// times the manifest gives some of them (its `start` column).
    func selectedFilesAndStarts() throws -> (files: [String], starts: [String: Date], tags: [String: [String]]) {
        var files = try InputCollector.collectNamed(inputs)
        var identities = files.map(Manifest.normalise)
        var starts: [String: Date] = [:]
        var tags: [String: [String]] = [:]
        if let manifest {
            let zone = try TimeZoneOption.zone(timezone) ?? .current
            do {
                let listed = try Manifest(path: manifest, timeZone: zone)
                files += listed.entries.map(\.path)
                identities += listed.entries.map(\.identity)
                for entry in listed.entries {
                    starts[entry.path] = entry.start
                    if !entry.tags.isEmpty { tags[entry.path] = entry.tags }
                }
            } catch .unreadable(let file, let reason) {
                // The file, not the command line, is at fault: nothing can be done.
                Terminal.error(Manifest.Failure.unreadable(file, reason).description)
                throw ExitStatus.nothingDone
            } catch {
                throw ValidationError(error.description)
            }
        }
        if start != nil, !starts.isEmpty {
            throw ValidationError("--start and the manifest's start column both give start times; keep one")
        }
        guard let shard else { return (files, starts, tags) }
        let chosen: Shard
        do {
            chosen = shard == "auto" ? try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount) : try Shard.parse(shard)
        } catch {
            throw ValidationError(error.description)
        }
        let selection = ShardSelection(shard: chosen, paths: files, identities: identities)
        Terminal.error(selection.summary)
        return (selection.paths, starts, tags)
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let profiles = try selectedProfiles(bundle)
        let (files, starts, manifestTags) = try selectedFilesAndStarts()
        guard !files.isEmpty || shard != nil else {
            throw ValidationError("no audio files found in \((inputs + [manifest].compactMap { $0 }).joined(separator: ", "))")
        }
        if start != nil, files.count > 1 {
            throw ValidationError("--start applies to one recording, but \(files.count) were given")
        }

        let store = try StoreOpening.open(db, adoptForeign: adoptDatabase)
        if !tags.isEmpty { TagCommand.warnOfNearTwins(tags, inUse: try store.tagsInUse()) }
        let zone = try TimeZoneOption.zone(timezone) ?? .current
        let batch = BatchAnalyzer(analyzer: RecordingAnalyzer(bundle: bundle, acceptsCutShort: !strict, timeZone: zone), store: store,
                                  profiles: profiles, jobs: jobs,
                                  reanalyze: reanalyze, explicitStart: start.flatMap { RecordingStartTime.parseGivenStart($0, timeZone: zone) },
                                  startsByPath: starts, rereadsLocalStarts: timezone != nil, channel: channel)
        let interruption = SignalCatcher(signals: [SIGINT, SIGTERM]) { _ in batch.cancel() }
        // On a terminal: progress, and each skipped or failed file as it happens. Otherwise (or with --quiet)
        // stderr gets nothing but the closing summary.
        let live = !quiet && Terminal.stderrIsTerminal
        let printSummaries = !quiet
        let began = Date()
        let ticker = live ? ProgressTicker(batch: batch, began: began) : nil
        batch.run(files) { outcome in
            switch outcome {
            case .analysed(let data, let results):
                if printSummaries {
                    Terminal.output(AnalysisReport.text(data, results: results, detectionFloor: bundle.classifier.detectionFloor))
                }
            case .skipped(let path, let reason, let added, let moved, _):
                if live {
                    var line = added.isEmpty ? "\(path): skipped: \(reason)" : "\(path): profiles added: \(added.joined(separator: ", "))"
                    if let moved { line += "; \(moved)" }
                    Terminal.error(line)
                }
            case .failed(let path, _, let reason):
                if live { Terminal.error("\(path): error: \(reason)") }
            }
        }
        ticker?.stop()
        interruption.stop()
        // The manifest's tags and --tag, on the nights now in the database (added to any they had; `tag --remove`
        // takes one off).
        var tagged = Set<Int64>()
        for path in Set(files).sorted() {
            let nightTags = (manifestTags[path] ?? []) + tags
            guard !nightTags.isEmpty, let id = try? store.recordingID(forPath: path) else { continue }
            try store.changeTags(recordingID: id, adding: nightTags, removing: [])
            if !tags.isEmpty { tagged.insert(id) }
        }
        if !tags.isEmpty {
            Terminal.error("tagged \(Formatting.counted(tagged.count, "night")) \(tags.map { "'\(Formatting.printable($0))'" }.joined(separator: ", "))")
        }

        let summary = batch.snapshot
        let wall = Date().timeIntervalSince(began)
        let speed = wall > 0 && summary.audioSeconds > 0 ? ", \(Formatting.fixed(summary.audioSeconds / wall, 0))x realtime" : ""
        // Failures first, one line each and sorted, so that the summary reads the same whatever the thread timing.
        for failure in summary.failures.sorted(by: { $0.path < $1.path }) { Terminal.error("\(failure.path): error: \(failure.reason)") }
        for warning in summary.warnings.sorted(by: { $0.path < $1.path }) { Terminal.error("\(warning.path): warning: \(warning.message)") }
        // What a rerun changed in recordings already done (on a terminal these were said as they happened).
        if !live {
            for added in summary.profilesAdded.sorted(by: { $0.path < $1.path }) {
                Terminal.error("\(added.path): profiles added: \(added.profiles.joined(separator: ", "))")
            }
            for moved in summary.startsMoved.sorted(by: { $0.path < $1.path }) { Terminal.error("\(moved.path): \(moved.message)") }
            // A copy of a stored night, or a night moved, is worth a line even where reruns' skips are not.
            for file in summary.elsewhere.sorted(by: { $0.path < $1.path }) { Terminal.error("\(file.path): skipped: \(file.reason)") }
        }
        let updatedPaths = Set(summary.profilesAdded.map(\.path) + summary.startsMoved.map(\.path))
        let copies = Set(summary.elsewhere.filter(\.copy).map(\.path)).subtracting(updatedPaths).count
        let closing = "\(summary.analysed) analysed" + (summary.cutShort == 0 ? "" : " (\(summary.cutShort) cut short)")
            + (updatedPaths.isEmpty ? "" : ", \(updatedPaths.count) updated (profiles added or start time set)")
            + ", \(summary.skipped - updatedPaths.count - copies) skipped (already done)"
            + (copies > 0 ? ", \(copies) skipped (the same audio as another file stored)" : "")
            + ", \(summary.failed) failed"
            + " of \(Formatting.counted(files.count, "recording")); \(Formatting.fixed(summary.audioSeconds / 3600, 2)) h of audio decoded in "
            + "\(Formatting.fixed(wall, 1)) s\(speed); database \(db)"
        Terminal.error(closing)
        if let failure = batch.databaseFailure {
            Terminal.error(failure.description)
            Terminal.error("stopped: the database cannot take more; what was stored before is intact. Free space on its disk "
                           + "(or make it writable), then run the same command again: what is stored is skipped")
            throw ExitStatus.nothingDone
        }
        if let signal = interruption.received {
            let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
            Terminal.error("interrupted by \(name): \(summary.done - summary.failed) of \(Formatting.counted(files.count, "recording")) are in the database; "
                + "those being decoded were dropped, nothing of them is stored. Run the same command again to finish the rest.")
            throw ExitCode(128 + signal)
        }
        if summary.failed > 0 { throw ExitStatus.someInputsFailed }
    }

    private func selectedProfiles(_ bundle: ModelBundle) throws -> [SensitivityProfile] {
        let name = profile ?? bundle.profiles.defaultProfile
        if name == "all" { return bundle.profiles.profiles }
        guard let chosen = bundle.profiles.profile(named: name) else {
            throw ValidationError("unknown profile '\(name)'; choose one of \(bundle.profiles.profileNames.joined(separator: ", ")) or all")
        }
        return [chosen]
    }
}

/// Turns SIGINT and SIGTERM into a call, so that a batch can stop cleanly instead of dying mid-write.
///
/// Catchers may follow one another in a process (`follow FOLDER` waits between recordings, then follows one): each
/// signal is watched by one dispatch source for the life of the process, created with the first catcher that asks
/// for it (the signal's default action then ignored), and delivered to the catchers not yet stopped. A source per
/// catcher, cancelled with it, left the next catcher's signals ignored on Linux.
final class SignalCatcher: @unchecked Sendable {
    private let signals: Set<Int32>
    private let handler: @Sendable (Int32) -> Void
    private let lock = NSLock()
    private var first: Int32?

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = Set(signals)
        self.handler = handler
        Self.hub.add(self)
    }

    /// The first signal received, if any.
    var received: Int32? { lock.withLock { first } }

    /// No more signals are delivered to this catcher (they stay ignored by the process).
    func stop() { Self.hub.remove(self) }

    private func deliver(_ number: Int32) {
        lock.withLock { if first == nil { first = number } }
        handler(number)
    }

    private static let hub = Hub()

    private final class Hub: @unchecked Sendable {
        private let lock = NSLock()
        private var sources: [Int32: DispatchSourceSignal] = [:]
        private var catchers: [SignalCatcher] = []

        func add(_ catcher: SignalCatcher) {
            lock.withLock {
                catchers.append(catcher)
                for number in catcher.signals.sorted() where sources[number] == nil {
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                    source.setEventHandler { [unowned self] in self.deliver(number) }
                    source.resume()
                    sources[number] = source
                }
            }
        }

        func remove(_ catcher: SignalCatcher) { lock.withLock { catchers.removeAll { $0 === catcher } } }

        private func deliver(_ number: Int32) {
            for catcher in lock.withLock({ catchers.filter { $0.signals.contains(number) } }) { catcher.deliver(number) }
        }
    }
}

/// Rewrites a progress line on stderr twice a second: files, audio hours, speed and the time left.
final class ProgressTicker: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(batch: BatchAnalyzer, began: Date) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
        timer.setEventHandler {
            let progress = batch.snapshot
            let elapsed = Date().timeIntervalSince(began)
            // Audio decoded so far, the files under way included, and the time left from the share of files done,
            // a file under way counting for the share of it decoded: a steady estimate within one long recording.
            let decoded = progress.audioSeconds + progress.audioSecondsInFlight
            let speed = elapsed > 0 ? decoded / elapsed : 0
            var line = "\(progress.done)/\(progress.total) recordings, \(Formatting.fixed(decoded / 3600, 2)) h of audio"
            if speed > 0 { line += ", \(Formatting.fixed(speed, 0))x realtime" }
            let filesDone = Double(progress.done) + progress.filesInFlightDone
            if filesDone > 0, progress.done < progress.total {
                let remaining = elapsed / filesDone * (Double(progress.total) - filesDone)
                line += ", about \(Formatting.clock(remaining)) left"
            }
            if progress.failed > 0 { line += ", \(progress.failed) failed" }
            Terminal.progress(line)
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        Terminal.clearProgress()
    }
}
