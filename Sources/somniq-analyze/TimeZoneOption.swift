import ArgumentParser
import Foundation

/// `--timezone NAME` of `analyze`, `report` and `export`: a tz database name, its letter case forgiven (`europe/berlin`, `utc`:
/// the names differ in more than case, so at most one matches). A city alone (`Berlin`, `new york`) is refused with
/// the names it could mean.
enum TimeZoneOption {
    /// The zone `name` names (`nil` for no name), or a usage error saying what was meant.
    static func zone(_ name: String?) throws -> TimeZone? {
        guard let name else { return nil }
        if let zone = TimeZone(identifier: name) { return zone }
        let known = TimeZone.knownTimeZoneIdentifiers
        let lowered = name.lowercased()
        // Foundation accepts abbreviations (UTC, GMT, CET) its list of identifiers does not hold.
        if let zone = TimeZone(identifier: name.uppercased()) ?? known.first(where: { $0.lowercased() == lowered })
            .flatMap(TimeZone.init(identifier:)) {
            return zone
        }
        // "Berlin", "new york", "New_York": the last part of a name, spaces for underscores.
        let city = lowered.replacingOccurrences(of: " ", with: "_")
        let meant = known.filter { $0.lowercased().split(separator: "/").last.map(String.init) == city }.sorted()
        let hint = meant.isEmpty ? "use a tz database name such as Europe/Berlin, America/New_York or UTC"
            : "did you mean \(meant.prefix(3).joined(separator: " or "))?"
        throw ValidationError("unknown time zone '\(name)'; \(hint)")
    }
}
