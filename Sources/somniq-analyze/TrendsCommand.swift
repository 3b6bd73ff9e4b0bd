import ArgumentParser
import SomniqPipeline

struct TrendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "What helped: for each night tag, the nights with it against those without (median snore score, its range, snoring share, snores an hour).",
        discussion: """
            Tag nights first ('somniq-analyze tag ID --add mouthguard'). With fewer than 3 nights on a side a row says \
            that it is too few to tell. The same comparison heads the trend page of 'report'. Only reads the database.
            """)

    @OptionGroup var options: ListingOptions

    func run() throws {
        let store = try StoreOpening.open(options.db, existing: true)
        try TagComparison(store: store).print(as: options.format)
    }
}
