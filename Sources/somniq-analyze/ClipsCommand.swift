import ArgumentParser
import Foundation
import SomniqReports
import SomniqFiles
import SomniqAudio
import SomniqPipeline
import SomniqStore

struct ClipsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clips",
        abstract: "Cut the audio of each episode or alert out of its recording, into WAV files named by time and class, with an index.csv.",
        discussion: "The recordings are read where the database says they are; each excerpt is reached by seeking, not by decoding the night.")

    @Argument(help: ArgumentHelp("Recordings, by id, path, or night (2026-11-21: begun from noon that day to noon the next, local time; last: the latest night), as report and tag take them. Default: every analysed recording in --db.", valueName: "id|path|night"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("Recording to cut from, as the arguments name them (repeatable).", valueName: "id|path|night"))
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

    @Option(help: ArgumentHelp("Folder to write the clips and index.csv to (an earlier index there is added to).", valueName: "path"))
    var output: String

    @Flag(help: "Replace --output's index.csv even if it exists and is not an index this tool wrote.")
    var force = false

    func validate() throws {
        if !(0...600).contains(margin) { throw ValidationError("--margin must lie in 0...600 seconds") }
        if output == "-" { throw ValidationError("--output - (standard output) cannot hold clip files and an index: give a folder") }
    }

    func run() throws {
        let store = try StoreOpening.open(db, existing: true)
        try RecordingSelection.checkProfile(profile, store: store, db: db)
        try RecordingSelection.checkClass(soundClass, store: store, db: db)
        // Named before the folder is made: a recording misnamed leaves no empty folder behind.
        let ids = try RecordingSelection.resolve(recording + recordings, store: store, db: db, hint: { word in
            What(rawValue: word).map { "'\($0.rawValue)' is what to cut, not a recording: --what \($0.rawValue)" }
        })
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), !isFolder.boolValue {
            Terminal.error("\(output): error: a file, not a folder: clips go into a folder; choose another --output")
            throw ExitStatus.nothingDone
        }
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
        // The index is checked before a clip is cut: it may be neither an input nor a stranger's file.
        let index = (output as NSString).appendingPathComponent("index.csv")
        var earlierIndex: String?
        let recordings = try store.recordings().map(\.path)
        do throws(OutputSafety.Refusal) {
            let destination = try OutputSafety.check(index, database: db, recordings: recordings, force: force,
                                                     what: "clip index", isOurs: ClipCutter.looksLikeAnIndex)
            // A pipe or device there is never replaced by a file, and an index is no stream to pour into one.
            if destination == .stream { throw OutputSafety.Refusal.notAFile(output: index, kind: "a device or a named pipe") }
            if !force, let head = FileManager.default.contents(atPath: index), ClipCutter.looksLikeAnIndex(head) {
                earlierIndex = String(decoding: head, as: UTF8.self)
            }
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
        PartialFiles.removeStale(inFolder: output)
        let cleanup = InterruptionCleanup()
        defer { cleanup.stop() }
        let cutter = ClipCutter(margin: margin)
        var written: [(recording: String, clip: ClipCutter.Clip)] = []
        var failures = 0
        for id in ids {
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
                let analysed = ClipCutter.AnalysedFile(size: record.fileSize, modified: record.fileModified, contentHash: record.contentHash)
                written += try cutter.cut(recordingPath: record.path, recordingID: id, excerpts: chosen, into: output, channel: record.channel,
                                          analysed: analysed).map { (record.path, $0) }
            } catch {
                failures += 1
                switch error {
                case .cannotCreate, .writeFailed, .notTheAudioAnalysed:
                    Terminal.error(error.description)
                default:
                    Terminal.error("\(error.description) (recording \(id) in \(db); was the file moved? analysing it again records its new place)")
                }
            }
        }
        do {
            let sink = try ByteSink.file(index)
            sink.write(try ClipCutter.index(written, earlier: earlierIndex) { name in
                !name.contains("/") && ClipCutter.isOurClip((output as NSString).appendingPathComponent(name))
            })
            try sink.finish()
        } catch {
            Terminal.error("\(index): error: cannot write the index of the \(Formatting.counted(written.count, "clip")) written: \(error)")
            throw ExitStatus.nothingDone
        }
        Terminal.error("wrote \(Formatting.counted(written.count, "clip")) and index.csv to \(output)")
        if failures > 0 { throw ExitStatus.someInputsFailed }
    }
}
