import ArgumentParser
import Foundation
import SomniqPipeline
import SomniqStore

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove recordings from the database, with everything stored of them; their audio files are not touched.",
        discussion: """
            For a recording analysed by mistake (a test file, a night heard from the wrong room), a file whose analysis \
            failed and will not be fixed (--failed: all of them), or a night that should not count in the trends. Each \
            recording named goes with its windows, alerts, episodes, snores and night summary, in one transaction, and \
            its night's tags go too. Analysing the file again stores it afresh: to keep a night out, move its file out \
            of the folders you analyse.
            Prints, one line per recording removed: its id, path and the tags removed with it (comma-separated).
            """)

    @Argument(help: ArgumentHelp("Recordings, by id, path (a failed or partial one too), or night (2026-11-21: begun from noon "
                                 + "that day to noon the next, local time; last: the latest night). At least one, or --failed: "
                                 + "nothing is removed unnamed.", valueName: "id|path|night"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("SQLite database.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Flag(help: "Also remove every recording whose analysis failed (files that could not be read, listed as failed by 'recordings').")
    var failed = false

    func validate() throws {
        if recordings.isEmpty && !failed {
            throw ValidationError("name the recordings to remove (ids, paths, or nights: 2026-11-21, last; 'somniq-analyze recordings' "
                                  + "lists them), or give --failed")
        }
    }

    func run() throws {
        let store = try StoreOpening.open(db, existing: true, writes: true)
        do {
            // Every argument is resolved before anything is removed: a mistyped one removes nothing.
            var ids: [Int64] = []
            for argument in recordings {
                let named: [Int64]
                if let id = Int64(argument), try store.recording(id: id) != nil {
                    named = [id]
                } else {
                    let atPath = try store.recordingIDs(atPath: argument)
                    named = atPath.isEmpty ? try RecordingSelection.resolve([argument], store: store, db: db) : atPath
                }
                ids += named.filter { !ids.contains($0) }
            }
            if failed {
                ids += try store.recordings().filter { $0.status == "failed" && !ids.contains($0.id) }.map(\.id)
            }
            var removed = 0
            for id in ids {
                guard let record = try store.recording(id: id) else { continue }
                let tags: [String]?
                do throws(StoreError) {
                    tags = try store.remove(recordingID: id)
                } catch {
                    guard case .writeFailed(_, let reason) = error else { throw error }
                    // Each recording goes in a transaction of its own: this one stays whole, those before are gone.
                    Terminal.error("\(db): error: could not remove recording \(id) (\(Formatting.printable(record.path))); it is kept whole: "
                                   + "\(reason)" + (removed > 0 ? " (\(Formatting.counted(removed, "recording")) named before it removed)" : ""))
                    throw ExitStatus.nothingDone
                }
                guard let tags else { continue }
                removed += 1
                Terminal.output("\(id)\t\(Formatting.printable(record.path))\t\(tags.map(Formatting.printable).joined(separator: ","))\n")
            }
            Terminal.error("removed \(Formatting.counted(removed, "recording")) from \(db)")
        } catch let error as StoreError {
            Terminal.error(error.description)
            throw ExitStatus.nothingDone
        }
    }
}
