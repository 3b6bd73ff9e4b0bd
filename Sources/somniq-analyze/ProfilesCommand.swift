import ArgumentParser
import Foundation
import SomniqFeatures
import SomniqModel
import SomniqPipeline

struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the sensitivity profiles and the alert rule each gives every class.")

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Output format: table or json.")
    var format: OutputFormat = .table

    @Flag(help: "Also list every class's expanded alert rule under each profile.")
    var rules = false

    func validate() throws {
        if format == .csv { throw ValidationError("profiles supports --format table or json") }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        Terminal.output(format == .json ? try ModelListing.profilesJSON(bundle) : ModelListing.profilesTable(bundle, rules: rules))
    }
}
