import ArgumentParser
import SomniqPipeline
import SomniqStore

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}

/// What a command that lists something from the database prints, in each of the `OutputFormat`s.
protocol FormattedListing {
    func table() -> String
    func json() throws -> String
    func csv() -> String
}

extension FormattedListing {
    func print(as format: OutputFormat) throws {
        switch format {
        case .table: Terminal.output(table())
        case .json: Terminal.output(try json())
        case .csv: Terminal.output(csv())
        }
    }
}

extension RecordingListing: FormattedListing {}
extension TagComparison: FormattedListing {}

/// The options of a command that only reads the database and lists what it finds.
struct ListingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("SQLite database to read.", valueName: "path"))
    var db = AnalysisStore.defaultPath

    @Option(help: "Output format: table, json or csv.")
    var format: OutputFormat = .table
}
