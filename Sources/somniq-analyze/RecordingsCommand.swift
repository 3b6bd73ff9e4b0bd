import ArgumentParser
import SomniqPipeline

struct RecordingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings",
        abstract: "List the recordings a database holds: id, path, start, duration, status (and why a file failed), model, and episodes per profile.",
        discussion: """
            The id, or the night (its date, local time: a recording begun before noon belongs to the night before), is \
            what tag, report, export and clips take; compare takes the id. Only reads the database.
            """)

    @OptionGroup var options: ListingOptions

    func run() throws {
        let store = try StoreOpening.open(options.db, existing: true)
        try RecordingListing(store: store).print(as: options.format)
    }
}
