import ArgumentParser
import Foundation
import SomniqNightReport
import SomniqPipeline
import SomniqReports
import SomniqStore

extension Exporter.Format: ExpressibleByArgument {}
extension Exporter.What: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export stored windows, detections, alerts, episodes, events (snores, coughs, sobs) or nights as JSON, CSV, Audacity labels, a Raven selection table or DCASE.",
        discussion: """
            json: one documented schema (fixtures/schema/export-v1.schema.json, schemaVersion 1). csv: RFC 4180 with a \
            header row, ISO 8601 UTC times and offsets in seconds. audacity: a label track (start, end, label), importable \
            with File > Import > Labels. raven: a selection table for Raven Pro. dcase: filename, onset, offset, \
            event_label, scorable by sed_eval and by 'evaluate'. Alerts are points (start = end). Audacity and Raven \
            tables hold one recording. --what nights: one row per night (json or csv): the snore score, snoring time by \
            loudness, snores an hour, breathing pace, episodes by tier under --profile (default balanced) and tags.
            """)

    @Argument(help: ArgumentHelp("Recordings, by id, path, or night (2026-11-21: begun from noon that day to noon the next, local time; last: the latest night), as report and tag take them. Default: every analysed recording in --db.", valueName: "id|path|night"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("Recording to export, as the arguments name them (repeatable).", valueName: "id|path|night"))
    var recording: [String] = []

    @Option(help: ArgumentHelp("Only this profile's alerts or episodes.", valueName: "name"))
    var profile: String?

    @Option(help: "What to export: windows, detections, alerts, episodes, events (each snore and cough, timed to 10 ms), or nights (one row each).")
    var what: Exporter.What = .episodes

    @Option(help: ArgumentHelp("Time zone that dates the nights (--what nights), a tz database name in any letter case; default: this machine's.",
                               valueName: "zone"))
    var timezone: String?

    @Option(help: "json, csv, audacity, raven or dcase; without it, what --output's name ends in says (.json, .csv).")
    var format: Exporter.Format?

    @Option(help: ArgumentHelp("File to write (default, or -: stdout). A device or named pipe is written in place.", valueName: "path"))
    var output: String?

    @Flag(help: "Replace --output even if it exists and is not an earlier export of this format.")
    var force = false

    /// `--format`, or the format `--output`'s extension names (a `.txt` may be Audacity's or Raven's: not guessed).
    static func format(given: Exporter.Format?, output: String?) throws -> Exporter.Format {
        if let given { return given }
        let fileExtension = output.map { ($0 as NSString).pathExtension.lowercased() } ?? ""
        if let named = Exporter.Format(rawValue: fileExtension), [.json, .csv].contains(named) { return named }
        let choices = Exporter.Format.allCases.map(\.rawValue).joined(separator: ", ")
        guard let output, output != "-" else { throw ValidationError("give --format: \(choices)") }
        throw ValidationError("give --format (\(choices)): the name '\(Formatting.printable(output))' does not say which "
                              + "(a name ending in .json or .csv does)")
    }

    func run() throws {
        let format = try Self.format(given: format, output: output)
        let zone = try TimeZoneOption.zone(timezone) ?? .current
        let store = try StoreOpening.open(db, existing: true)
        let ids = try RecordingSelection.resolve(recording + recordings, store: store, db: db, timeZone: zone, hint: { word in
            Exporter.What(rawValue: word).map { "'\($0.rawValue)' is what to export, not a recording: --what \($0.rawValue)" }
        })
        try RecordingSelection.checkProfile(profile, store: store, db: db)
        // Audacity labels and DCASE tables have no profile column: rows of several profiles would look duplicated.
        if profile == nil, [.audacity, .dcase].contains(format), [.episodes, .alerts].contains(what) {
            let stored = try store.storedProfiles()
            if stored.count > 1 {
                throw ValidationError("--format \(format.rawValue) has no profile column, and \(db) holds \(what.rawValue) of "
                    + "\(stored.count) profiles (\(stored.joined(separator: ", "))); pass --profile NAME, or use csv, json or "
                    + "raven, which name each row's profile")
            }
        }
        let path = output == "-" ? nil : output
        var destination = OutputSafety.Destination.file
        if let path {
            do {
                destination = try OutputSafety.check(path, database: db, recordings: try store.recordings().map(\.path), force: force,
                                                     isOurs: format.looksLikeOurs)
            } catch let refusal as OutputSafety.Refusal {
                Terminal.error(refusal.description)
                throw ExitStatus.nothingDone
            }
        }
        let cleanup = InterruptionCleanup()
        defer { cleanup.stop() }
        // Rows go out as they are read; a file appears whole or not at all (an earlier one stays until the new one is done).
        let sink: ByteSink
        do {
            sink = try path.map { destination == .stream ? try ByteSink.stream($0) : try ByteSink.file($0) } ?? .standardOutput()
        } catch let failure as ByteSink.Failure {
            Terminal.error(failure.description)
            throw ExitStatus.nothingDone
        }
        do {
            try Exporter(store: store, timeZone: zone)
                .export(recordings: ids, what: what, profile: profile, format: format, to: sink)
            try sink.finish()
        } catch let error as Exporter.Error {
            sink.discard()
            throw ValidationError(error.description.replacingOccurrences(of: "error: ", with: ""))
        } catch let error as StoreError {
            sink.discard()
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        } catch let failure as ByteSink.Failure {
            sink.discard()
            Terminal.error(failure.description)
            throw ExitStatus.nothingDone
        }
    }
}

/// `--recording ID|PATH` arguments as recording ids (every complete recording when none is given), and the checks
/// that a `--profile` or `--class` names something the database holds (a typo is a usage error, not an empty result).
enum RecordingSelection {
    static func checkProfile(_ profile: String?, store: AnalysisStore, db: String) throws {
        guard let profile else { return }
        let known = try store.storedProfiles()
        if known.isEmpty { try refuseNoNight(store: store, db: db) }
        guard known.contains(profile) else {
            throw ValidationError("unknown profile '\(profile)'; \(db) holds results of: \(known.joined(separator: ", "))")
        }
    }

    static func checkClass(_ id: String?, store: AnalysisStore, db: String) throws {
        guard let id else { return }
        let known = try store.storedClassIDs()
        if known.isEmpty { try refuseNoNight(store: store, db: db) }
        guard known.contains(id) else {
            throw ValidationError("unknown class '\(id)'; the recordings in \(db) know: \(known.joined(separator: ", "))")
        }
    }

    /// A database with no analysed night (empty, or only files whose analysis failed) knows no profile or class: said as
    /// that, with what to do, rather than as an unknown profile among none.
    private static func refuseNoNight(store: AnalysisStore, db: String) throws -> Never {
        let failed = try store.recordings().filter { $0.status != "complete" }.count
        Terminal.error("\(db): error: no analysed night"
                       + (failed > 0 ? " (\(Formatting.counted(failed, "recording")) whose analysis failed; 'somniq-analyze recordings --db \(db)' says why)" : "")
                       + "; analyse a recording first ('somniq-analyze analyze FILE --db \(db)')")
        throw ExitStatus.nothingDone
    }

    /// The recordings `arguments` name (every complete one when there are none): each an id, a path, or a night as the
    /// report dates it in `timeZone` (`2026-11-21`, `last`; `NightChoice`), in the order named, each once. `hint` says
    /// what a word that names no recording may have been meant as (`export episodes` for `export --what episodes`).
    static func resolve(_ arguments: [String], store: AnalysisStore, db: String, timeZone: TimeZone = .current,
                        hint: (String) -> String? = { _ in nil }) throws -> [Int64] {
        if arguments.isEmpty {
            return try store.recordings().filter { $0.status == "complete" }.map(\.id)
        }
        var ids: [Int64] = []
        for argument in arguments {
            let named: [Int64]
            if let id = Int64(argument), try store.recording(id: id) != nil {
                named = [id]
            } else if let id = try store.recordingID(forPath: argument) {
                named = [id]
            } else if NightChoice.namesANight(argument) {
                let clock = LocalClock(timeZone: timeZone)
                let recordings = try store.recordings()
                let nights = recordings.compactMap { record in
                    record.status == "complete" ? record.startUTC.flatMap(UTCTimestamp.parse).map { (id: record.id, startMilliseconds: $0) } : nil
                }
                named = NightChoice.recordings(of: argument, among: nights, clock: clock)
                if named.isEmpty {
                    // A night named by its file's date but dated by its copy: say which, and how to reach it.
                    let misdated = NamedNightDate.misdatedHint(night: argument, among: recordings, timeZone: timeZone, db: db)
                    throw ValidationError("\(NightChoice.noneFound(argument, among: nights, clock: clock)) in \(db)" + (misdated.map { "; " + $0 } ?? ""))
                }
            } else if let hint = hint(argument) {
                throw ValidationError("no analysed recording '\(Formatting.printable(argument))' in \(db); \(hint)")
            } else {
                throw ValidationError("no analysed recording '\(Formatting.printable(argument))' in \(db) (give an id, a path, a night's "
                                      + "date such as 2026-11-21, or last); list them with 'somniq-analyze recordings --db \(db)'")
            }
            ids += named.filter { !ids.contains($0) }
        }
        return ids
    }
}
