import ArgumentParser
import Foundation
import SomniqAudio
import SomniqPipeline
import SomniqStore

struct ClipsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clips",
        abstract: "Cut the audio of each episode or alert out of its recording, into WAV files named by time and class, with an index.csv.",
        discussion: "The recordings are read where the database says they are; each excerpt is reached by seeking, not by decoding the night.")

    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = "somniq.sqlite"

    @Option(help: ArgumentHelp("Recording, by id or path (repeatable); default: every analysed recording.", valueName: "id|path"))
    var recording: [String] = []

    @Option(help: ArgumentHelp("Profile whose episodes or alerts to cut.", valueName: "name"))
    var profile = "balanced"

    enum What: String, ExpressibleByArgument { case episodes, alerts }

    @Option(help: "Cut episodes (start to end) or alerts (the deciding window).")
    var what: What = .episodes

    @Option(name: .customLong("class"), help: ArgumentHelp("Only this class.", valueName: "name"))
    var soundClass: String?

    @Option(help: ArgumentHelp("Seconds of audio kept before and after each excerpt.", valueName: "seconds"))
    var margin = 2.0

    @Option(help: ArgumentHelp("Folder to write the clips and index.csv to.", valueName: "path"))
    var output: String

    func validate() throws {
        if !(0...600).contains(margin) { throw ValidationError("--margin must lie in 0...600 seconds") }
    }

    func run() throws {
        let store = try StoreOpening.open(db, existing: true)
        try RecordingSelection.checkProfile(profile, store: store, db: db)
        try RecordingSelection.checkClass(soundClass, store: store, db: db)
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            Terminal.error("\(output): error: cannot create the folder: \(error.localizedDescription)")
            throw ExitStatus.nothingDone
        }
        // A folder that exists but cannot take files is said so before anything is cut (a raw Cocoa error, and a hint
        // about the recording having moved, were all one got).
        guard access(output, W_OK | X_OK) == 0 else {
            Terminal.error("\(output): error: cannot write into this folder: \(String(cString: strerror(errno))); choose another "
                           + "--output, or change the folder's permissions")
            throw ExitStatus.nothingDone
        }
        let cutter = ClipCutter(margin: margin)
        var written: [(recording: String, clip: ClipCutter.Clip)] = []
        var failures = 0
        for id in try RecordingSelection.resolve(recording, store: store, db: db) {
            guard let record = try store.recording(id: id) else { continue }
            let excerpts: [ClipCutter.Excerpt]
            switch what {
            case .episodes:
                excerpts = try store.episodes(recordingID: id, profile: profile).map {
                    ClipCutter.Excerpt(classID: $0.classID, tier: $0.tier, kind: "episode", profile: $0.profile,
                                       startSeconds: $0.startOffsetSeconds, endSeconds: $0.endOffsetSeconds, startUTC: $0.startUTC)
                }
            case .alerts:
                excerpts = try store.alerts(recordingID: id, profile: profile).map {
                    ClipCutter.Excerpt(classID: $0.classID, tier: $0.tier, kind: "alert", profile: $0.profile,
                                       startSeconds: max(0, $0.offsetSeconds - 1), endSeconds: $0.offsetSeconds, startUTC: $0.utc)
                }
            }
            let chosen = excerpts.filter { soundClass == nil || $0.classID == soundClass }
            guard !chosen.isEmpty else { continue }
            do {
                written += try cutter.cut(recordingPath: record.path, recordingID: id, excerpts: chosen, into: output).map { (record.path, $0) }
            } catch {
                failures += 1
                switch error {
                case .cannotCreate, .writeFailed:
                    Terminal.error(error.description)
                default:
                    Terminal.error("\(error.description) (recording \(id) in \(db); was the file moved? analysing it again records its new place)")
                }
            }
        }
        let index = (output as NSString).appendingPathComponent("index.csv")
        do {
            try ClipCutter.index(written).write(toFile: index, atomically: true, encoding: .utf8)
        } catch {
            Terminal.error("\(index): error: cannot write the index of the \(written.count) clips written: \(error.localizedDescription)")
            throw ExitStatus.nothingDone
        }
        Terminal.error("wrote \(written.count) clips and index.csv to \(output)")
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }
}
