import ArgumentParser
import SomniqModel
import SomniqPipeline

struct ClassesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classes",
        abstract: "List the sound classes the model defines, with their tiers and status.")

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Output format: table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        if format == .csv { throw ValidationError("classes supports --format table or json") }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        Terminal.output(format == .json ? try ModelListing.classesJSON(bundle) : ModelListing.classesTable(bundle))
    }
}
