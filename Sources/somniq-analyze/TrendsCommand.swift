import ArgumentParser
import SomniqPipeline

struct TrendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "What helped: for each night tag, the nights with it against those without (median snore score, its range, snoring share, snores an hour).",
        discussion: """
            Begins with the snore score over time (its Theil-Sen slope a week, and Kendall's test of whether it could be \
            chance). Tag nights first ('somniq-analyze tag last --add mouthguard'). With fewer than 3 nights on a side a row says \
            that it is too few to tell; where another tag falls mostly on one side (side-sleeping tried on most of the \
            mouthguard's nights) the row says so, and --only-without side compares the mouthguard among the nights \
            without it. The same comparison heads the trend page of 'report'. Only reads the database.
            """)

    @OptionGroup var options: ListingOptions

    @Option(name: .customLong("only-with"), help: ArgumentHelp("Compare only the nights with this tag (repeatable).", valueName: "tag"))
    var onlyWith: [String] = []

    @Option(name: .customLong("only-without"), help: ArgumentHelp("Compare only the nights without this tag (repeatable).", valueName: "tag"))
    var onlyWithout: [String] = []

    func run() throws {
        let store = try StoreOpening.open(options.db, existing: true)
        let known = Set(try store.tagsByRecording().values.joined())
        for tag in onlyWith + onlyWithout where !known.contains(tag) {
            throw ValidationError("no night in \(Formatting.printable(options.db)) is tagged '\(Formatting.printable(tag))'"
                + (known.isEmpty ? "" : "; its tags: \(known.sorted().map(Formatting.printable).joined(separator: ", "))"))
        }
        if let both = onlyWith.first(where: onlyWithout.contains) {
            throw ValidationError("--only-with \(Formatting.printable(both)) and --only-without \(Formatting.printable(both)) leave no night to compare")
        }
        try TagComparison(store: store, onlyWith: onlyWith, onlyWithout: onlyWithout).print(as: options.format)
    }
}
