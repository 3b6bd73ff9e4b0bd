import ArgumentParser

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}
