import ArgumentParser
import Foundation
import SomniqNightReport
import SomniqPipeline
import SomniqStore

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run all five profiles on one recording and show them side by side.",
        discussion: """
            Alerts per tier and class, episodes by severity, minutes in alert, first and last alert, and what each \
            switch to the next looser profile adds. A file is decoded once (no database needed); with --db, a \
            recording already analysed there (by id, path, or night: 2026-11-21, last) is read from its stored \
            confidences instead.
            """)

    @Argument(help: ArgumentHelp("An audio file, or a recording in --db: its id, or its night (2026-11-21, last).", valueName: "file|id|night"))
    var recording: String

    @Option(help: ArgumentHelp("Database to read an analysed recording from (default: somniq.sqlite, as for every command, when the argument is an id or a path analysed there).",
                               valueName: "path"))
    var db: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Output format: table, json or csv.")
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Time zone that dates a night named by its date, a tz database name in any letter case (default: the system's, $TZ).", valueName: "zone"))
    var timezone: String?

    @Option(help: ArgumentHelp("Decode the file's channel n alone (from 1) rather than its channels mixed, as analyze --channel does.",
                               valueName: "n"))
    var channel: Int?

    func validate() throws {
        _ = try TimeZoneOption.zone(timezone)
        if let channel, channel < 1 { throw ValidationError("--channel counts from 1 (the first channel)") }
        if channel != nil, !FileManager.default.fileExists(atPath: recording) {
            throw ValidationError("--channel decodes a file; \(recording) is none (a night analysed on one channel is compared as it was stored)")
        }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let analyzer = RecordingAnalyzer(bundle: bundle, timeZone: try TimeZoneOption.zone(timezone) ?? .current)
        var data: RecordingData?
        // A file on disk is decoded unless --db is given; an id (or a path that is not there) is looked up in the
        // database every command reads by default.
        let database = db ?? (FileManager.default.fileExists(atPath: recording) ? nil : "somniq.sqlite")
        if channel == nil, let db = database, db == self.db || FileManager.default.fileExists(atPath: db) {
            let isFile = FileManager.default.fileExists(atPath: recording)
            let store = try StoreOpening.open(db, existing: true,
                                              ifMissing: isFile ? "to compare \(recording) without a database, leave out --db" : nil)
            do {
                let id = try Int64(recording).flatMap { try store.recording(id: $0)?.id } ?? store.recordingID(forPath: recording)
                    ?? nightsRecording(in: store, db: db, isFile: isFile)
                if let id, let record = try store.recording(id: id), record.status != "complete" {
                    Terminal.error("recording \(id) (\(Formatting.printable(record.fileName))): error: its analysis failed"
                                   + (record.errorMessage.map { " (\($0))" } ?? "") + ", so there is nothing to compare; fix the file "
                                   + "and analyse it again, or compare the file itself")
                    throw ExitStatus.nothingDone
                }
                if let id { data = try store.recordingData(id: id) }
            } catch let error as StoreError {
                Terminal.error(error.description)
                throw ExitStatus.nothingDone
            }
        }
        if data == nil {
            guard (Int64(recording) == nil && !NightChoice.namesANight(recording)) || FileManager.default.fileExists(atPath: recording) else {
                throw ValidationError("no recording \(recording) in \(database ?? "a database"); pass a file, or an id from --db (default somniq.sqlite)")
            }
            do {
                let fresh = try analyzer.analyze(path: recording, keeping: .dropped, channel: channel)
                for (_, warning) in BatchAnalyzer.warnings(fresh, timeZone: analyzer.timeZone) {
                    Terminal.error("\(fresh.path): warning: \(warning)")
                }
                data = fresh
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.someInputsFailed
            }
        }
        guard let data else { return }
        let comparison = ProfileComparison(data: data, results: analyzer.runProfiles(bundle.profiles.profiles, on: data))
        switch format {
        case .table: Terminal.output(comparison.table())
        case .json: Terminal.output(try comparison.json())
        case .csv: Terminal.output(try comparison.csv())
        }
    }

    /// The recording of the night `recording` names (`2026-11-21`, `last`), as `report` and `export` date nights; a
    /// usage error for a night of none or of several recordings (each compared on its own).
    func nightsRecording(in store: AnalysisStore, db: String, isFile: Bool) throws -> Int64? {
        guard !isFile, NightChoice.namesANight(recording) else { return nil }
        let ids = try RecordingSelection.resolve([recording], store: store, db: db, timeZone: try TimeZoneOption.zone(timezone) ?? .current)
        guard ids.count == 1 else {
            throw ValidationError("the night \(recording) is \(ids.count) recordings in \(db) (ids \(ids.map(String.init).joined(separator: ", "))); "
                                  + "compare one at a time: somniq-analyze compare \(ids[0]) --db \(db)")
        }
        return ids[0]
    }
}
