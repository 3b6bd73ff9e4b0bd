import ArgumentParser
import SomniqPipeline

extension InputCollector {
    /// The recordings the command line names, when every argument names something: a path that names nothing is a
    /// typo, a usage error (exit 64) rather than a bad file.
    static func collectNamed(_ inputs: [String]) throws -> [String] {
        let missing = missing(inputs)
        guard missing.isEmpty else {
            throw ValidationError("no such file or folder: \(missing.joined(separator: ", ")); check the path\(missing.count > 1 ? "s" : "")")
        }
        return collect(inputs)
    }
}
