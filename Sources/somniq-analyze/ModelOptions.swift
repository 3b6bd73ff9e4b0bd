import ArgumentParser
import SomniqModel

/// `--model PATH`, shared by every command that classifies or lists what a model defines.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Model folder (model.json + profiles.json) or model.json file.",
        discussion: "Default: $SOMNIQ_MODEL, else models/default in the working directory or beside the executable.",
        valueName: "path"))
    var model: String?

    /// Loads the model, or reports why not on stderr and exits with status 2.
    func load() throws -> ModelBundle { try Self.load(model) }

    /// Loads the model at `path` (the default model when `nil`), or reports why not and exits with status 2.
    static func load(_ path: String?) throws -> ModelBundle {
        do {
            let location = try path ?? ModelBundle.defaultLocation()
            return try ModelBundle.load(path: location)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.nothingDone
        }
    }
}
