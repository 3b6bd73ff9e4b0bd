import SomniqEvaluation

/// Reads `--map`, or reports why not on stderr and exits with status 2; no map maps every label to itself.
enum LabelMapLoading {
    static func load(_ path: String?) throws -> LabelMap {
        guard let path else { return LabelMap() }
        do {
            return try LabelMap.parse(contentsOf: path)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.nothingDone
        }
    }
}
