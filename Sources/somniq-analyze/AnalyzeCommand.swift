import ArgumentParser
import Foundation
import SomniqAudio
import SomniqModel
import SomniqPipeline
import SomniqStore

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse recordings into the database and print what each profile made of them.",
        discussion: """
            Each recording is decoded and classified once; the chosen profiles run on its stored per-window \
            confidences. A recording's rows are written in one transaction, replacing an earlier analysis of \
            the same path. A file that cannot be read is reported (and recorded as failed) and the others go on.
            """)

    @Argument(help: ArgumentHelp("Audio files, or folders to search for them.", valueName: "files-or-folders"))
    var inputs: [String]

    @Option(help: ArgumentHelp("SQLite database to write.", valueName: "path"))
    var db = "somniq.sqlite"

    @Option(help: ArgumentHelp("Profile to run, or 'all'. Default: the model's default (balanced).", valueName: "name|all"))
    var profile: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp(
        "Recording start time (ISO 8601 with zone, e.g. 2026-11-21T23:14:05Z); one recording only.",
        discussion: "Otherwise taken from a sleep_recording_<unix-seconds> file name, the file's metadata, or its modification time minus its duration.",
        valueName: "iso8601"))
    var start: String?

    @Flag(help: "No progress on stderr.")
    var quiet = false

    func validate() throws {
        if let start, RecordingStartTime.parseISO8601(start) == nil {
            throw ValidationError("--start \(start) is not an ISO 8601 date-time with a zone, e.g. 2026-11-21T23:14:05Z")
        }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let profiles = try selectedProfiles(bundle)
        let files = InputCollector.collect(inputs)
        guard !files.isEmpty else { throw ValidationError("no audio files found in \(inputs.joined(separator: ", "))") }
        if start != nil, files.count > 1 {
            throw ValidationError("--start applies to one recording, but \(files.count) were given")
        }
        let explicitStart = start.flatMap(RecordingStartTime.parseISO8601)

        let store: AnalysisStore
        do {
            store = try AnalysisStore(path: db)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }

        let analyzer = RecordingAnalyzer(bundle: bundle)
        var failures = 0
        var audioSeconds = 0.0
        let began = Date()
        for (number, file) in files.enumerated() {
            let label = "[\(number + 1)/\(files.count)] \((file as NSString).lastPathComponent)"
            if !quiet { Terminal.progress(label) }
            do {
                let data = try analyzer.analyze(path: file, explicitStart: explicitStart) { fraction in
                    if !quiet { Terminal.progress("\(label) \(Int(fraction * 100))%") }
                }
                let results = analyzer.runProfiles(profiles, on: data)
                try store.save(data, bundle: bundle, results: results)
                audioSeconds += data.durationSeconds
                Terminal.clearProgress()
                Terminal.output(AnalysisReport.text(data, results: results, detectionFloor: bundle.classifier.detectionFloor))
            } catch let error as AudioFileError {
                failures += 1
                Terminal.clearProgress()
                Terminal.error(error.description)
                do {
                    try store.saveFailure(filePath: URL(fileURLWithPath: file).standardizedFileURL.path,
                                          code: error.code, message: error.reason)
                } catch {
                    Terminal.error(error.description)
                }
            } catch {
                failures += 1
                Terminal.clearProgress()
                Terminal.error("\(error)")
            }
        }
        let wall = Date().timeIntervalSince(began)
        let speed = wall > 0 ? Formatting.fixed(audioSeconds / wall, 0) + "x realtime" : "-"
        Terminal.error("analysed \(files.count - failures) of \(files.count) recordings "
            + "(\(Formatting.fixed(audioSeconds / 3600, 2)) h of audio, \(speed)) into \(db)"
            + (failures > 0 ? "; \(failures) failed" : ""))
        if failures > 0 { throw ExitStatus.someInputsFailed }
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
