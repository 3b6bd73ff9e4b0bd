import ArgumentParser
import Foundation
import SomniqNightReport
import SomniqPipeline
import SomniqStore

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the morning report: a self-contained HTML page per night, and a trend page for several nights.",
        discussion: """
            A night's page shows its timeline (loudness, a lane per class heard, episodes, alerts, snores), a summary \
            (snores, bouts, episodes by tier and severity, the loudest events, the longest quiet stretch, pauses in \
            snoring ended by a gasp), the five profiles side by side, and each episode's audio. Nothing on a page is \
            fetched from anywhere: styles, drawings and its one small script are inline.

            One recording and an --output ending in .html writes that page, its clips in <name>_audio/ beside it. \
            Otherwise --output is a folder: night-<date>-r<id>.html per night (clips in night-<date>-r<id>_audio/), and \
            index.html, the trend page, when there are several nights. A night recorded in pieces (recordings of one \
            night that follow one another) is one night of the trend page; each piece's page names and links the others \
            and gives the whole night's snoring figures.
            """)

    @Argument(help: ArgumentHelp("Recordings, by id, path, or night (2026-11-21: begun from noon that day to noon the next, local time; last: the latest night). Default: every analysed recording in --db.", valueName: "id|path|night"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("Profile whose episodes and alerts the pages show.", valueName: "name"))
    var profile = "balanced"

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("Time zone for clock times, a tz database name in any letter case (default: the system's, $TZ).", valueName: "zone"))
    var timezone: String?

    @Flag(help: "Embed each episode's clip in the page (base64 WAV) rather than in a folder beside it.")
    var embedAudio = false

    @Flag(help: "Write no audio (the recordings need not be reachable).")
    var noAudio = false

    @Option(help: ArgumentHelp("Seconds of audio kept before and after each episode's clip.", valueName: "seconds"))
    var margin = 2.0

    @Option(help: ArgumentHelp("At most this many seconds of a long episode go in its clip.", valueName: "seconds"))
    var clipSeconds = 60.0

    @Option(help: ArgumentHelp("The page to write (one recording, a name ending in .html, or - for standard output) or the folder to write pages into.",
                               valueName: "path"))
    var output: String

    @Flag(help: "Replace a page's file even if it exists and is not an earlier report page.")
    var force = false

    func validate() throws {
        if !(0...600).contains(margin) { throw ValidationError("--margin must lie in 0...600 seconds") }
        if !(1...3600).contains(clipSeconds) { throw ValidationError("--clip-seconds must lie in 1...3600 seconds") }
        if embedAudio && noAudio { throw ValidationError("--embed-audio and --no-audio exclude each other") }
        _ = try TimeZoneOption.zone(timezone)
    }

    func run() throws {
        let zone = try TimeZoneOption.zone(timezone) ?? TimeZone.current
        let store = try StoreOpening.open(db, existing: true)
        let ids = try RecordingSelection.resolve(recordings, store: store, db: db, timeZone: zone)
        guard !ids.isEmpty else {
            Terminal.error("\(db) holds no analysed recording; analyse some first ('somniq-analyze analyze FILE --db \(db)')")
            throw ExitStatus.nothingDone
        }
        // Recordings named whose analysis failed are each said so by the writer, with the reason; with no night stored
        // at all there is no profile to check the name against.
        if try !store.storedProfiles().isEmpty { try RecordingSelection.checkProfile(profile, store: store, db: db) }
        if output == "-" {
            guard ids.count == 1 else {
                throw ValidationError("--output - writes one night's page to standard output; \(ids.count) recordings make several pages: give a folder")
            }
            guard embedAudio || noAudio else {
                throw ValidationError("--output - has no folder beside it for the clips: add --embed-audio or --no-audio")
            }
        }
        if ids.count > 1 && ReportWriter.isSinglePagePath(output) {
            throw ValidationError("\(ids.count) recordings make several pages and a trend page: give --output a folder, not \(output)")
        }
        var options = ReportWriter.Options(profile: profile, clock: LocalClock(timeZone: zone), embedAudio: embedAudio,
                                           withoutAudio: noAudio, margin: margin, maximumClipSeconds: clipSeconds)
        options.database = db
        options.recordings = try store.recordings().map(\.path)
        options.force = force
        let writer = ReportWriter(builder: NightReportBuilder(store: store, bundle: try modelOptions.load()), options: options)
        let cleanup = InterruptionCleanup()
        defer { cleanup.stop() }
        let outcome: ReportWriter.Outcome
        do {
            outcome = try writer.write(recordingIDs: ids, output: output) { Terminal.progress($0) }
        } catch {
            Terminal.clearProgress()
            Terminal.error("\(output): error: cannot write the report: \(error.localizedDescription); choose another --output")
            throw ExitStatus.nothingDone
        }
        Terminal.clearProgress()
        for (id, reason) in outcome.failures { Terminal.error("recording \(id): error: \(reason)") }
        for refusal in outcome.refusals { Terminal.error(refusal.description) }
        for (page, reason) in outcome.audioProblems {
            Terminal.error("\(page): warning: written without audio: \(reason); --no-audio writes pages without clips")
        }
        // stdout: the pages written, one path a line (the trend page last), for a script to open or publish.
        if output != "-" {
            for page in outcome.pages + [outcome.trendPage].compactMap({ $0 }) { Terminal.output(Formatting.printable(page) + "\n") }
        }
        // Nothing written: the errors above say why, and no summary of nothing follows them.
        if outcome.pages.isEmpty { throw ExitStatus.nothingDone }
        Terminal.error("wrote \(Formatting.counted(outcome.pages.count, "night page"))"
                       + (outcome.trendPage == nil ? "" : " and a trend page") + " with \(Formatting.counted(outcome.clipCount, "clip"))")
        if !outcome.failures.isEmpty || !outcome.audioProblems.isEmpty || !outcome.refusals.isEmpty { throw ExitStatus.someInputsFailed }
    }
}
