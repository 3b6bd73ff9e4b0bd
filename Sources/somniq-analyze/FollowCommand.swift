import ArgumentParser
import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore

extension RawPCMFormat.Encoding: ExpressibleByArgument {}

struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow a recording while it is being made, and print each alert as it is raised.",
        discussion: """
            Reads a WAV, CAF or FLAC file that a recorder is still writing (its header not yet final, or simply \
            growing), or with '-' raw PCM on standard input (arecord -f S16_LE -r 16000 -c 1 | somniq-analyze follow - \
            --rate 16000), analyses the audio as it arrives, and prints each alert of the profile on stdout the moment \
            it is settled: within half a second for a class heard as the classifier hears it (a smoke alarm), once its \
            bout is settled for snoring (up to about three minutes later). The alerts printed are those 'analyze' \
            stores for the finished recording, at the same offsets. It ends when the recorder finalises the file or \
            closes the pipe, when nothing has come for --idle seconds, or on SIGINT or SIGTERM; then it stores the \
            night as 'analyze' would, in --db. Meanwhile what it has heard is committed to --db every minute of audio \
            (a partial night), so a crash or a power cut loses at most a minute; following the same file again resumes \
            that night and raises none of the alerts already raised. Standard input is recorded as it comes (--record, or a WAV named after \
            the start beside the database), so that the night stored has its audio for review clips and reanalysis. \
            Given a folder, it follows each recording a recorder writes into it, or into a folder directly inside it \
            (a folder a night), in turn (a file a night, or a new one after a restart), storing each as it ends, until \
            SIGINT or SIGTERM; a folder gone for 5 s ends it.
            Exit status: 0 followed and stored; 1 the audio could not be read; 2 the model or database is unusable; \
            64 usage error.
            """)

    @Argument(help: ArgumentHelp(
        "The recording being written; a folder, to follow each recording written into it in turn; or - for raw PCM on standard input.",
        valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Sample rate of the raw PCM on standard input (with -).", valueName: "Hz"))
    var rate: Int?

    @Option(help: ArgumentHelp("Channels of the raw PCM on standard input, interleaved (with -).", valueName: "count"))
    var channels = 1

    @Option(help: ArgumentHelp("Encoding of the raw PCM on standard input (with -): s16le, s24le, s32le or f32le.",
                               valueName: "encoding"))
    var encoding = RawPCMFormat.Encoding.s16le

    @Option(help: ArgumentHelp(
        "Hear this channel alone (from 1) rather than the channels mixed to mono, as 'analyze --channel' does.",
        discussion: "For a stereo microphone whose channels cancel in the mix (one inverted), or whose other channel is dead or noisy. The night is stored as that channel's; with -, the recording still holds every channel. Without it, a file whose night was analysed on one channel is followed on that channel.",
        valueName: "number"))
    var channel: Int?

    @Option(help: ArgumentHelp(
        "With -: the audio file to record standard input to as it comes (.wav, .flac, .caf or .aiff; never an existing file). Default: live-<start, UTC>.wav beside the database.",
        valueName: "path"))
    var record: String?

    @Option(help: ArgumentHelp("SQLite database to store the night in at the end.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("Profile whose alerts are printed. Default: the model's default (balanced).", valueName: "name"))
    var profile: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("Seconds without the file growing after which the recording is taken to have ended.", valueName: "seconds"))
    var idle = 30.0

    @Option(help: "How each alert is printed: text (a line for people) or jsonl (one JSON object a line).")
    var format = Format.text

    @Option(name: .customLong("on-alert"), help: ArgumentHelp(
        "A command to run for each alert, executed directly (no shell), the alert in its environment: SOMNIQ_CLASS, SOMNIQ_TIER, SOMNIQ_KIND, SOMNIQ_OFFSET_S, SOMNIQ_TIME, SOMNIQ_CONFIDENCE, SOMNIQ_PROFILE, SOMNIQ_RECORDING.",
        valueName: "command"))
    var onAlert: String?

    @Option(name: .customLong("on-alert-timeout"), help: ArgumentHelp("Seconds an --on-alert command may run before it is stopped.", valueName: "seconds"))
    var onAlertTimeout = 10.0

    @Option(help: ArgumentHelp(
        "Recording start time (2026-11-21T23:14 in --timezone's zone, 2026-11-21T23:14:05+01:00, or now); otherwise from the file name, or the moment the follow began minus the audio already in the file.",
        valueName: "date-time"))
    var start: String?

    @Option(help: ArgumentHelp(
        "Time zone of a date and time in a recording's file name (20261130_231405.wav) and of the times the text lines print, a tz database name in any letter case (default: the system's, $TZ).",
        valueName: "zone"))
    var timezone: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp(
        "A tag for the night (repeatable): what was tried, as 'tag --add' adds it; added when the night is stored.",
        valueName: "tag"))
    var tags: [String] = []

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    var readsStandardInput: Bool { file == "-" }

    /// The folder given instead of a file, whose recordings are followed one after another.
    var followedFolder: String? {
        var isFolder: ObjCBool = false
        guard !readsStandardInput, FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue else { return nil }
        return URL(fileURLWithPath: file).standardizedFileURL.path
    }

    func validate() throws {
        if !(idle > 0) { throw ValidationError("--idle must be a positive number of seconds") }
        if !(onAlertTimeout > 0) { throw ValidationError("--on-alert-timeout must be a positive number of seconds") }
        try TagCommand.validate(tags, option: "--tag")
        _ = try TimeZoneOption.zone(timezone)
        if let channel, channel < 1 { throw ValidationError("--channel counts from 1 (the first channel)") }
        if let start, start != "now", let problem = RecordingStartTime.problem(withGivenStart: start) {
            throw ValidationError("--start \(start): \(problem)")
        }
        if followedFolder != nil, start != nil {
            throw ValidationError("--start gives one recording's start; each recording of a folder takes its own (from its name, or when it is heard)")
        }
        guard readsStandardInput else {
            if rate != nil || channels != 1 || encoding != .s16le || record != nil {
                throw ValidationError("--rate, --channels, --encoding and --record describe raw PCM on standard input: use them with 'follow -'")
            }
            return
        }
        guard let rate else {
            throw ValidationError("raw PCM on standard input has no header: give its sample rate with --rate (e.g. --rate 16000)")
        }
        guard (AudioFormatInfo.supportedSampleRates).contains(rate) else {
            throw ValidationError("--rate \(rate): not a sample rate the analysis takes (\(AudioFormatInfo.supportedSampleRates.lowerBound)-\(AudioFormatInfo.supportedSampleRates.upperBound) Hz)")
        }
        guard (1...32).contains(channels) else { throw ValidationError("--channels \(channels): give 1 to 32") }
        if let channel, channel > channels {
            throw ValidationError("--channel \(channel): standard input has \(Formatting.counted(channels, "channel")) (--channels \(channels)), so there is no channel \(channel) to hear")
        }
        if let record {
            _ = try Self.recordingFormat(path: record, encoding: encoding)
            if FileManager.default.fileExists(atPath: record) {
                throw ValidationError("--record \(record): the file exists, and follow never writes over a file; name a new one")
            }
        }
    }

    /// The container and encoding a recording of standard input is written in: the container by the file's extension,
    /// the encoding the input's own (the recording holds the very samples heard).
    static func recordingFormat(path: String, encoding: RawPCMFormat.Encoding) throws -> (AudioFileWriter.Container, AudioFileWriter.Encoding) {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let container = AudioFileWriter.Container(rawValue: ext == "aif" ? "aiff" : ext) else {
            throw ValidationError("--record \(path): name the file .wav, .flac, .caf or .aiff (its extension says how it is written)")
        }
        let written: AudioFileWriter.Encoding = switch encoding {
        case .s16le: .pcm16
        case .s24le: .pcm24
        case .s32le: .pcm32
        case .f32le: .float32
        }
        if container == .flac, written == .pcm32 || written == .float32 {
            throw ValidationError("--record \(path): FLAC holds at most 24-bit integers, not \(encoding.rawValue); record to .wav or .caf")
        }
        return (container, written)
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let name = profile ?? bundle.profiles.defaultProfile
        guard let chosen = bundle.profiles.profile(named: name) else {
            throw ValidationError("unknown profile '\(name)'; choose one of \(bundle.profiles.profileNames.joined(separator: ", "))")
        }
        let command: AlertCommand?
        do {
            command = try onAlert.map { try AlertCommand(command: $0, timeoutSeconds: onAlertTimeout, report: { Terminal.error($0) }) }
        } catch {
            throw ValidationError(String(describing: error))
        }
        // The program reading the alerts may end first (`follow ... | head -1`): the write then fails (EPIPE) and the
        // follow ends as Ctrl-C ends it, storing the night, where SIGPIPE would kill it, and the recording, at once.
        signal(SIGPIPE, SIG_IGN)
        // The database first: a follow that cannot store its night must not start recording one.
        let store = try StoreOpening.open(db)
        if !tags.isEmpty { TagCommand.warnOfNearTwins(tags, inUse: try store.tagsInUse()) }
        let session = Session(bundle: bundle, profile: chosen, command: command, store: store)
        if let folder = followedFolder {
            try follow(folder: folder, session)
        } else {
            try follow(readsStandardInput ? nil : URL(fileURLWithPath: file).standardizedFileURL.path, session)
        }
    }

    /// What every recording followed shares: the model, the profile, the --on-alert command and the database.
    struct Session {
        let bundle: ModelBundle
        let profile: SensitivityProfile
        let command: AlertCommand?
        let store: AnalysisStore
    }

    /// Follows the recordings written into `folder` (or a folder directly inside it: `RecordingFolder`) one after
    /// another, each stored as it ends, until SIGINT or SIGTERM: those written to since shortly before the follow began
    /// (within --idle), the earliest first; clips this tool cut are passed over. One that cannot be read is reported and
    /// the next waited for; a database that fails stops the follow.
    func follow(folder: String, _ session: Session) throws {
        let watched = RecordingFolder(path: folder)
        let since = Date().addingTimeInterval(-idle)
        let finished = watched.recordings().filter { $0.modified < since }
        if !finished.isEmpty {
            Terminal.error("\(folder): \(Formatting.counted(finished.count, "recording")) there \(finished.count == 1 ? "is" : "are") finished and not "
                           + "followed ('somniq-analyze analyze \(Formatting.shellQuoted(folder))' reads \(finished.count == 1 ? "it" : "them"))")
        }
        var followed = Set<String>(), recordings = 0, failures = 0, folderGone = false
        while true {
            Terminal.error("\(folder): waiting for \(followed.isEmpty ? "a" : "the next") recording to be written there (Ctrl-C ends)")
            let waiting = SignalCatcher(signals: [SIGINT, SIGTERM]) { _ in }
            let waited = watched.waitForNext(since: since, excluding: followed) { waiting.received != nil }
            waiting.stop()
            guard case .recording(let next) = waited else {
                if waited == .folderGone {
                    Terminal.error("\(folder): error: the folder is gone (removed, renamed, or its disk unmounted) while waiting for "
                                   + "the next recording; the follow ends: follow the folder again where the recorder now writes")
                    folderGone = true
                }
                break
            }
            followed.insert(next)
            // A clip `report` or `clips` cut into the folder (or a folder inside it) is not a recording.
            if ClipCutter.isOurClip(next) {
                Terminal.error("\(next): a clip this tool cut, not a recording: not followed")
                continue
            }
            recordings += 1
            do {
                let outcome = try follow(next, session)
                // A file the recorder renamed while it was followed is stored under its new name: not a new recording.
                followed.insert(outcome.storedFrom)
                if outcome.interrupted { break }
            } catch let status as ExitCode where status == ExitStatus.someInputsFailed {
                failures += 1
            }
        }
        Terminal.error("\(folder): \(Formatting.counted(recordings, "recording")) followed"
                       + (failures > 0 ? ", \(failures) of them not stored (above)" : ""))
        if folderGone && recordings == failures { throw ExitStatus.nothingDone }
        if failures > 0 || folderGone { throw ExitStatus.someInputsFailed }
    }

    /// Follows one recording, the file at `file` or standard input where it is `nil`, and stores its night; returns
    /// the file it was stored from (another name, where the recorder renamed it) and whether SIGINT or SIGTERM ended it.
    @discardableResult
    func follow(_ file: String?, _ session: Session) throws -> (storedFrom: String, interrupted: Bool) {
        let (bundle, chosen, command, store) = (session.bundle, session.profile, session.command, session.store)
        let began = Date()
        let zone = try TimeZoneOption.zone(timezone) ?? .current
        var startDate = start == "now" ? began : start.flatMap { RecordingStartTime.parseGivenStart($0, timeZone: zone) }
        // Without --channel, a file is heard as the night stored for it was analysed: on its channel, where one was chosen.
        var keptChannel: Int?
        do throws(StoreError) {
            if channel == nil, let file { keptChannel = try store.analysedChannel(path: file) }
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
        let input: Input
        do throws(AudioFileError) {
            if let file {
                input = try followedFile(path: file, kept: keptChannel)
            } else {
                input = try standardInput(start: &startDate, began: began)
            }
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.someInputsFailed
        }
        let path = input.path
        if let heardChannel = input.channel, channel == nil {
            Terminal.error("\(path): following channel \(heardChannel) alone, as the night stored for this file was analysed (--channel chooses another)")
        }
        // Stored as it is heard, a minute at a time; a night a follow of this file stored before is resumed.
        let followed: FollowedNight
        do {
            followed = try FollowedNight(store: store, bundle: bundle, path: path, profile: chosen.name, format: input.format,
                                         channel: input.channel)
        } catch {
            Terminal.error(error.description)
            if case .standardInput(_, let recording) = input {
                // Nothing was recorded yet: the empty file this command created goes.
                try? input.finish()
                try? FileManager.default.removeItem(atPath: recording)
            }
            throw ExitStatus.nothingDone
        }
        if followed.resumedWindows > 0 {
            Terminal.error("\(path): resuming the night stored by an earlier follow (\(Formatting.clock(Double(followed.resumedWindows) * AnalysisGrid.hopSeconds)) heard); alerts it raised are not raised again")
        }
        var toldStale = false
        var storing = true
        func keep(_ work: () throws(StoreError) -> Void) {
            do {
                try work()
                if !storing { Terminal.error("\(path): storing the night as it is heard again") }
                storing = true
            } catch {
                if storing { Terminal.error("\(path): warning: \(error.description); the follow goes on and stores the night at the end") }
                storing = false
            }
        }
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let rules = bundle.rules(for: chosen, frameHz: AnalysisGrid.frameHz)
        var live = LiveAlerts(profile: chosen, bundle: bundle)
        let printer = AlertPrinter(format: format, profile: chosen.name, classIDs: bundle.classifier.classIDs, path: path, timeZone: zone)
        var raisedCount = 0
        var lastRaised: (classID: String, offsetSeconds: Double)?
        var outputClosed = false
        func raise(_ alerts: [Alert], start: Date, heardSeconds: Double) {
            for alert in alerts {
                let tier = rules[alert.classIndex]?.tier ?? bundle.classifier.classes[alert.classIndex].tier
                let fields = printer.fields(alert, tier: tier, start: start, heardSeconds: heardSeconds)
                guard followed.shouldRaise(classID: fields.classID, kind: fields.kind, windowIndex: alert.frame) else { continue }
                raisedCount += 1
                lastRaised = (fields.classID, fields.offsetSeconds)
                if !outputClosed, !Terminal.outputIfOpen(printer.line(fields) + "\n") {
                    outputClosed = true
                    Terminal.error("\(path): standard output was closed (the program reading the alerts ended): the follow ends here and stores the night heard")
                    input.stop()
                }
                command?.submit(fields.environment)
                keep { () throws(StoreError) in
                    try followed.noteRaised(classID: fields.classID, kind: fields.kind, windowIndex: alert.frame, tier: fields.tier,
                                            offsetSeconds: fields.offsetSeconds, utc: fields.time, confidence: fields.confidence)
                }
            }
        }
        let stop = input.stop
        let interruption = SignalCatcher(signals: [SIGINT, SIGTERM]) { _ in stop() }
        if let note = input.finishedNote(idle: idle) { Terminal.error(note) }
        if Terminal.stderrIsTerminal {
            Terminal.error("following \(readsStandardInput ? "standard input, recorded to \(path)," : path) under \(chosen.name); Ctrl-C ends it and stores the night")
        }
        let heard: RecordingAnalyzer.Heard
        var nextStatus = Date.distantPast
        do {
            heard = try analyzer.follow(audio: input.audio) { heard in
                // Nothing to hear before the first whole window; with it, a resumed night is checked to be this audio.
                guard heard.windowCount > 0 else { return }
                keep { () throws(StoreError) in try followed.check(heard) }
                if followed.discardedStaleNight, !toldStale {
                    toldStale = true
                    Terminal.error("\(path): the night an earlier follow stored for this file is not the audio it holds now (another recording or model); this night is stored afresh")
                }
                // The start: as given, as an earlier follow of this audio stored it, from the file name (the app's, or a
                // recorder's local date and time), or the moment the follow began minus the audio there then.
                let start = startDate ?? (followed.discardedStaleNight ? nil : followed.resumedStart)
                    ?? RecordingStartTime.dateFromFileName(path) ?? RecordingStartTime.localDateFromFileName(path, timeZone: zone)
                    ?? began.addingTimeInterval(-heard.heardSeconds)
                startDate = start
                keep { () throws(StoreError) in try followed.commitIfDue(heard, start: start) }
                raise(live.update(confidences: heard.confidences, windowCount: heard.windowCount, envelope: heard.envelope,
                                  heardSeconds: heard.heardSeconds), start: start, heardSeconds: heard.heardSeconds)
                // On a terminal, a line kept current (once a second at most) says the follow is alive and hearing.
                if Terminal.stderrIsTerminal, Date() >= nextStatus {
                    nextStatus = Date().addingTimeInterval(1)
                    Terminal.progress(FollowStatus(heardSeconds: heard.heardSeconds, storedSeconds: followed.committedSeconds,
                                                   lastSecondDbfs: FollowStatus.lastSecondDbfs(heard.envelope), alerts: raisedCount,
                                                   lastAlert: lastRaised).line)
                }
            }
            Terminal.clearProgress()
            try input.finish()
        } catch {
            interruption.stop()
            command?.finish()
            Terminal.error(error.description)
            throw ExitStatus.someInputsFailed
        }
        interruption.stop()
        // What the recording ended too soon after to settle, from the whole of it.
        let timeline = analyzer.timeline(envelope: heard.envelope, confidences: heard.confidences, windowCount: heard.windowCount)
        let whole = ProfileRunner.run(profile: chosen, bundle: bundle, confidences: heard.confidences, windowCount: heard.windowCount,
                                      durationSeconds: heard.heardSeconds, timeline: timeline)
        if let start = startDate {
            raise(live.finish(whole), start: start, heardSeconds: heard.heardSeconds)
            // What came after the last commit, so that a night the database then refuses to store whole keeps all of it.
            keep { () throws(StoreError) in try followed.commitIfDue(heard, start: start, force: true) }
        }
        command?.finish()
        // The night is stored as `analyze` stores the finished file, the same rows, from wherever the file followed is
        // now; where it can no longer be read whole, what was heard stays as it was stored.
        let storedFrom = try Self.whereToStore(input, heardSeconds: heard.heardSeconds, kept: storing, db: db)
        let batch = BatchAnalyzer(analyzer: analyzer, store: store, profiles: [chosen], jobs: 1, reanalyze: false,
                                  explicitStart: startDate, startsByPath: [:], channel: input.channel)
        batch.run([storedFrom]) { _ in }
        if let failure = batch.snapshot.failures.first?.reason {
            Terminal.error("\(path): error: the night was followed (\(Formatting.clock(heard.heardSeconds))) but could not be stored: \(failure)")
            throw ExitStatus.someInputsFailed
        }
        // What `analyze` says of such a file (clipped, channels that cancel in the mix, ...), said of the night stored;
        // but that it was not finished, which a followed recording often is not, and which the follow has said.
        for warning in batch.snapshot.warnings where warning.kind != .cutShort {
            Terminal.error("\(warning.path): warning: \(warning.message)")
        }
        // The whole night is stored (under the file's new name, where it was renamed; or found stored already, as when a
        // finished recording is followed): the night stored as it was heard goes.
        do { try followed.dropPartial() } catch {
            Terminal.error("\(path): warning: the night stored as it was heard could not be removed (\(error.description)); 'recordings' lists it as partial beside the whole night")
        }
        var taggedAs = ""
        if !tags.isEmpty {
            do throws(StoreError) {
                guard let id = try store.recordingID(forPath: storedFrom) else { throw StoreError.notFound(path: db, what: "the night of \(storedFrom)") }
                taggedAs = "; its tags: " + (try store.changeTags(recordingID: id, adding: tags, removing: []))
                    .map { "'\(Formatting.printable($0))'" }.joined(separator: ", ")
            } catch {
                Terminal.error("\(path): error: the night is stored, but its tags could not be added: \(error.description); "
                               + "add them with 'somniq-analyze tag \(Formatting.shellQuoted(storedFrom)) --add TAG'")
                throw ExitStatus.someInputsFailed
            }
        }
        let ending = input.ending(idle: idle)
        let heardFrom = input.channel.map { " on channel \($0) of \(input.format.channelCount) alone" } ?? ""
        Terminal.error("\(path): \(Formatting.clock(heard.heardSeconds)) followed\(heardFrom) (\(ending)); stored in \(db)\(taggedAs)")
        return (storedFrom, interruption.received != nil || outputClosed)
    }

    /// The path to store the followed night from: the file's own, the name it was given while followed, or the file that
    /// took its name; throws (after saying why) where the file followed is gone or shorter than what was heard of it,
    /// whose night then stays as it was stored while heard (`kept`: whether every commit succeeded).
    static func whereToStore(_ input: Input, heardSeconds: Double, kept: Bool, db: String) throws -> String {
        guard case .file(let source, _) = input else { return input.path }
        let path = input.path
        let heard = Formatting.clock(heardSeconds)
        let keeping = kept
            ? "the \(heard) heard is kept as a partial night in \(db) ('somniq-analyze recordings' lists it; reports read whole nights only)"
            : "of the \(heard) heard, what the database took is kept as a partial night in \(db)"
        switch source.whereabouts() {
        case .inPlace:
            return path
        case .renamed(let newPath):
            Terminal.error("\(path): renamed to \(newPath) while followed (as a recorder names the file it has finished); the night is stored from there")
            return newPath
        case .replaced:
            Terminal.error("\(path): another file took this name while followed (a recorder saving the finished file anew?); the night is stored from the file there now")
            return path
        case .gone:
            Terminal.error("\(path): error: the file followed is gone from its folder (deleted, or moved elsewhere, while followed); \(keeping). "
                           + "To store the whole night, analyse the recording where it is now: 'somniq-analyze analyze PATH --db \(Formatting.shellQuoted(db))'")
            throw ExitStatus.someInputsFailed
        case .shrunk(let bytes, let heardBytes):
            Terminal.error("\(path): error: the file is shorter than what was heard of it (\(bytes) bytes now, \(heardBytes) read): cut, or written anew "
                           + "from its start, while followed; \(keeping), and what the file holds now is not stored over it")
            throw ExitStatus.someInputsFailed
        }
    }

    /// What is followed: a file being written, or raw PCM on standard input recorded to a file as it comes.
    enum Input {
        case file(GrowingAudioSource, AudioFileReader)
        case standardInput(RawPCMStream, recording: String)

        var audio: any LiveAudio {
            switch self {
            case .file(_, let reader): reader
            case .standardInput(let stream, _): stream
            }
        }

        /// The recording's rate, channels, container and encoding (its length aside).
        var format: AudioFormatInfo {
            switch self {
            case .file(_, let reader): reader.format
            case .standardInput(let stream, _): stream.recordingFormat!
            }
        }

        /// The one channel heard (from 1), `nil` for the channels mixed (or a single channel).
        var channel: Int? {
            switch self {
            case .file(_, let reader): reader.channel.map { $0 + 1 }
            case .standardInput(let stream, _): stream.channel
            }
        }

        /// The file the night is stored from.
        var path: String {
            switch self {
            case .file(let source, _): source.path
            case .standardInput(_, let recording): recording
            }
        }

        var stop: @Sendable () -> Void {
            switch self {
            case .file(let source, _): { source.stop() }
            case .standardInput(let stream, _): { stream.stop() }
            }
        }

        /// Closes the recording of standard input (its header then final).
        func finish() throws(AudioFileError) {
            if case .standardInput(let stream, _) = self { try stream.finish() }
        }

        /// For a file written to last longer ago than `idle` (a finished recording, followed by mistake or to store it),
        /// that it looks finished, what the follow will wait for, and what reads it without waiting.
        func finishedNote(idle: Double, now: Date = Date()) -> String? {
            guard case .file(let source, _) = self, source.endReason != .complete,
                  let modified = (try? FileManager.default.attributesOfItem(atPath: source.path))?[.modificationDate] as? Date
            else { return nil }
            let age = now.timeIntervalSince(modified)
            guard age >= idle else { return nil }
            let ago = age < 3_600 ? Formatting.duration(age) : Formatting.fixed(age / 3_600, 1) + " h"
            return "\(source.path): last written \(ago) ago, so it looks finished; it is followed in case it grows again, until it "
                + "has not for \(Formatting.fixed(idle, 0)) s (--idle). 'somniq-analyze analyze \(Formatting.shellQuoted(source.path))' "
                + "reads a finished recording without waiting."
        }

        func ending(idle: Double) -> String {
            switch self {
            case .file(let source, _):
                switch source.endReason {
                case .finalised?: "the recorder finished the file"
                case .stopped?: "stopped"
                case .complete?: "its header gave its whole length: a finished recording"
                case .idle?, nil: "the file did not grow for \(Formatting.fixed(idle, 0)) s"
                }
            case .standardInput(let stream, _):
                switch stream.endReason {
                case .ended?: "standard input ended"
                case .stopped?: "stopped"
                case .idle?, nil: "nothing came on standard input for \(Formatting.fixed(idle, 0)) s"
                }
            }
        }
    }

    /// The file at `path`, heard on --channel, or else on `kept` (the channel its stored night was analysed on) where
    /// the file has it, or else mixed, as `analyze` hears it.
    func followedFile(path: String, kept: Int?) throws(AudioFileError) -> Input {
        let source = try GrowingAudioSource(path: path, idleSeconds: idle)
        let reader = try AudioFileReader(following: source)
        if let chosen = channel ?? kept.flatMap({ $0 <= reader.format.channelCount ? $0 : nil }) {
            try reader.readOnly(channel: chosen)
        }
        return .file(source, reader)
    }

    /// Raw PCM on standard input, recorded to --record (or to live-<start>.wav beside the database) as it comes. The
    /// start is fixed before the first sample (the moment the follow began, unless --start says), and written into the
    /// recording, so that a later `analyze` of it dates the night alike.
    func standardInput(start: inout Date?, began: Date) throws(AudioFileError) -> Input {
        let startDate = start ?? Date(timeIntervalSince1970: began.timeIntervalSince1970.rounded(.down))
        start = startDate
        let stamp = ISO8601DateFormatter.string(from: startDate, timeZone: TimeZone(identifier: "UTC")!,
                                                formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        let path = URL(fileURLWithPath: record ?? Self.defaultRecording(besides: db, start: startDate)).standardizedFileURL.path
        let (container, written) = (try? Self.recordingFormat(path: path, encoding: encoding)) ?? (.wav, .pcm16)
        // Never over a file this command did not write: created exclusively, then handed to libsndfile.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "the file exists; name a new one with --record (follow never writes over a file)"
                : String(cString: strerror(errno))
            throw .cannotCreate(path: path, reason: reason)
        }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(descriptor: descriptor, path: path, sampleRate: rate!, channelCount: channels,
                                         container: container, encoding: written)
        } catch {
            close(descriptor)
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        writer.setSoftware("somniq-analyze follow")
        writer.setDateString(stamp)
        let stream = RawPCMStream(descriptor: STDIN_FILENO, format: RawPCMFormat(sampleRate: rate!, channelCount: channels, encoding: encoding),
                                  record: writer, channel: channel, idleSeconds: idle)
        return .standardInput(stream, recording: path)
    }

    /// live-<start, UTC, yyyymmddThhmmssZ>.wav in the database's folder.
    static func defaultRecording(besides db: String, start: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let folder = (URL(fileURLWithPath: db).standardizedFileURL.path as NSString).deletingLastPathComponent
        return (folder as NSString).appendingPathComponent("live-\(formatter.string(from: start)).wav")
    }
}

/// An alert as `follow` prints it and hands it to `--on-alert`.
struct AlertPrinter {
    let format: FollowCommand.Format
    let profile: String
    let classIDs: [String]
    let path: String
    /// The zone a text line gives the time in (the clock on the sleeper's wall); JSON and `SOMNIQ_TIME` give UTC.
    let timeZone: TimeZone

    struct Fields {
        var classID: String, tier: String, kind: String, offsetSeconds: Double, time: String, localTime: String, confidence: Float
        var environment: [String: String]
    }

    /// The alert's fields, its time the end of its window or of the audio heard (`heardSeconds`): the last window of a
    /// recording ends with it, as `analyze` stores it.
    func fields(_ alert: Alert, tier: AlertTier, start: Date, heardSeconds: Double) -> Fields {
        let offset = AnalysisStore.alertOffsetSeconds(frame: alert.frame, durationSeconds: heardSeconds)
        let milliseconds = UTCTimestamp.milliseconds(startMilliseconds: Int64((start.timeIntervalSince1970 * 1000).rounded()),
                                                     offsetSeconds: offset)
        let time = UTCTimestamp.format(milliseconds: milliseconds)
        let classID = classIDs[alert.classIndex]
        return Fields(classID: classID, tier: tier.rawValue, kind: alert.kind.rawValue, offsetSeconds: offset, time: time,
                      localTime: UTCTimestamp.format(milliseconds: milliseconds, in: timeZone), confidence: alert.confidence,
                      environment: ["SOMNIQ_CLASS": classID, "SOMNIQ_TIER": tier.rawValue, "SOMNIQ_KIND": alert.kind.rawValue,
                                    "SOMNIQ_OFFSET_S": Formatting.fixed(offset, 1), "SOMNIQ_TIME": time,
                                    "SOMNIQ_CONFIDENCE": Formatting.fixed(Double(alert.confidence), 3),
                                    "SOMNIQ_PROFILE": profile, "SOMNIQ_RECORDING": path])
    }

    func line(_ fields: Fields) -> String {
        switch format {
        case .text:
            return "\(fields.localTime)  +\(Formatting.clock(fields.offsetSeconds))  \(fields.classID) (\(fields.tier), \(fields.kind))  "
                + "confidence \(Formatting.fixed(Double(fields.confidence), 2))"
        case .jsonl:
            let object: [String: Any] = ["class": fields.classID, "tier": fields.tier, "kind": fields.kind, "time": fields.time,
                                         "offset_s": fields.offsetSeconds, "confidence": Double(fields.confidence),
                                         "profile": profile]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
