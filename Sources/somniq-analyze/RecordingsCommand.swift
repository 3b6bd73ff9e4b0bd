import ArgumentParser
import SomniqPipeline

struct RecordingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings",
        abstract: "List the recordings a database holds: id, path, start, duration, status (and why a file failed), model, and episodes per profile.",
        discussion: "The id is what compare, export --recording and clips --recording take. Only reads the database.")

    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = "somniq.sqlite"

    @Option(help: "Output format: table, json or csv.")
    var format: OutputFormat = .table

    func run() throws {
        let store = try StoreOpening.open(db, existing: true)
        let listing = try RecordingListing(store: store)
        switch format {
        case .table: Terminal.output(listing.table())
        case .json: Terminal.output(try listing.json())
        case .csv: Terminal.output(listing.csv())
        }
    }
}
