import ArgumentParser
import Foundation
import SomniqPipeline
import SomniqStore

struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Tag nights with what was tried (a mouthguard, no alcohol, sleeping on the side), or list their tags.",
        discussion: """
            Tags are stored in the database with the recording's audio (its hash), so they need no reanalysis, outlive \
            one, and travel with a merge. Without --add or --remove, prints each recording's tags. A tag is 1-40 \
            characters, without a comma or a control character.
            Prints, one line per recording: its id, path and tags (comma-separated).
            """)

    @Argument(help: ArgumentHelp("Recordings, by id, path, or night (2026-11-21: begun from noon that day to noon the next, local time; last: the latest night). Default: every analysed recording in --db.", valueName: "id|path|night"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("SQLite database.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: ArgumentHelp("A tag to add (repeatable).", valueName: "tag"))
    var add: [String] = []

    @Option(help: ArgumentHelp("A tag to remove (repeatable).", valueName: "tag"))
    var remove: [String] = []

    func validate() throws {
        try Self.validate(add + remove)
        if (!add.isEmpty || !remove.isEmpty) && recordings.isEmpty {
            throw ValidationError("name the recordings to tag (ids, paths, or nights: 2026-11-21, last; 'somniq-analyze recordings' lists them)")
        }
    }

    func run() throws {
        let changing = !add.isEmpty || !remove.isEmpty
        let store = try StoreOpening.open(db, existing: true, writes: changing)
        let ids = try RecordingSelection.resolve(recordings, store: store, db: db)
        if !add.isEmpty { Self.warnOfNearTwins(add, inUse: try store.tagsInUse()) }
        for id in ids {
            guard let record = try store.recording(id: id) else { continue }
            let tags: [String]
            if changing {
                guard record.status == "complete" else {
                    Terminal.error("recording \(id) (\(Formatting.printable(record.fileName))): error: its analysis failed, so it has "
                                   + "no night to tag; analyse it again first")
                    throw ExitStatus.someInputsFailed
                }
                let before = try store.tags(recordingID: id)
                for tag in remove where !before.contains(tag) && !add.contains(tag) {
                    Terminal.error("recording \(id) (\(Formatting.printable(record.fileName))): warning: it has no tag "
                                   + "'\(Formatting.printable(tag))'; nothing removed (its tags: \(Self.listed(before)))")
                }
                tags = try store.changeTags(recordingID: id, adding: add, removing: remove)
            } else {
                tags = try store.tags(recordingID: id)
            }
            Terminal.output("\(id)\t\(Formatting.printable(record.path))\t\(tags.map(Formatting.printable).joined(separator: ","))\n")
        }
    }

    /// Refuses, as a usage error, a tag that cannot be one (`AnalysisStore.tagProblem`), named with the option it came by.
    static func validate(_ tags: [String], option: String? = nil) throws {
        for tag in tags {
            if let problem = AnalysisStore.tagProblem(tag) {
                throw ValidationError("\(option.map { "\($0) " } ?? "")tag '\(Formatting.printable(tag))': \(problem)")
            }
        }
    }

    /// Tags are compared exactly, so `Mouthguard` and `mouthguard` are two tags and `trends` would split their nights:
    /// a new tag that differs from one in use only by case is named beside it (the tag is still added as written).
    static func warnOfNearTwins(_ added: [String], inUse: [String]) {
        for tag in Set(added).sorted() where !inUse.contains(tag) {
            let twins = inUse.filter { $0.lowercased() == tag.lowercased() }
            guard !twins.isEmpty else { continue }
            Terminal.error("tag '\(Formatting.printable(tag))': warning: a new tag, though \(Self.listed(twins)) is in use; tags "
                           + "differ by case, so 'trends' counts their nights apart ('--remove' the one not meant)")
        }
    }

    private static func listed(_ tags: [String]) -> String {
        tags.isEmpty ? "none" : tags.map { "'\(Formatting.printable($0))'" }.joined(separator: ", ")
    }
}
