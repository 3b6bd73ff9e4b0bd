import SomniqPipeline
/// Compares a golden with a fresh result. Labels, tiers, kinds, severities and counts must match exactly;
/// times may differ by `timeTolerance` seconds and confidences by `confidenceTolerance`.
public struct GoldenComparison: Sendable {
    public static let timeTolerance = 0.5
    public static let confidenceTolerance = 0.02

    /// Human-readable differences, empty when the result matches its golden.
    public static func differences(expected: Golden, got: Golden) -> [String] {
        var found: [String] = []
        if expected.model != got.model { found.append("model: expected \(expected.model), got \(got.model)") }
        switch (expected.error, got.error) {
        case (let expectedError?, let gotError?):
            if expectedError != gotError {
                found.append("error: expected \(expectedError.code) (exit \(expectedError.exitStatus)) \"\(expectedError.message)\", "
                    + "got \(gotError.code) (exit \(gotError.exitStatus)) \"\(gotError.message)\"")
            }
            return found
        case (let expectedError?, nil):
            return found + ["expected the error \(expectedError.code), but the file was analysed"]
        case (nil, let gotError?):
            return found + ["expected an analysis, got the error \(gotError.code): \(gotError.message)"]
        case (nil, nil):
            break
        }
        if expected.declaredFrames != got.declaredFrames {
            found.append("cut short: expected \(expected.declaredFrames.map { "a header promising \($0) frames" } ?? "a whole file"), "
                + "got \(got.declaredFrames.map { "a header promising \($0) frames" } ?? "a whole file")")
        }
        if expected.windows != got.windows {
            found.append("windows: expected \(expected.windows ?? 0), got \(got.windows ?? 0)")
        }
        found += compare("detection run", expected.detections ?? [], got.detections ?? [], describe: describe) { a, b in
            var issues: [String] = []
            if a.classID != b.classID { issues.append("class") }
            if !close(a.start, b.start, timeTolerance) || !close(a.end, b.end, timeTolerance) { issues.append("time") }
            if !close(a.peak, b.peak, confidenceTolerance) || !close(a.mean, b.mean, confidenceTolerance) { issues.append("confidence") }
            return issues
        }
        for profile in expected.profileOrder ?? [] {
            guard let expectedProfile = expected.profiles?[profile] else { continue }
            guard let gotProfile = got.profiles?[profile] else {
                found.append("\(profile): missing from the result")
                continue
            }
            found += compare("\(profile): alert", expectedProfile.alerts, gotProfile.alerts, describe: describe) { a, b in
                var issues: [String] = []
                if a.classID != b.classID || a.tier != b.tier || a.kind != b.kind { issues.append("label") }
                if !close(a.offset, b.offset, timeTolerance) { issues.append("time") }
                if !close(a.confidence, b.confidence, confidenceTolerance) { issues.append("confidence") }
                return issues
            }
            found += compare("\(profile): episode", expectedProfile.episodes, gotProfile.episodes, describe: describe) { a, b in
                var issues: [String] = []
                if a.classID != b.classID || a.tier != b.tier || a.severity != b.severity { issues.append("label") }
                if a.alerts != b.alerts || a.suppressed != b.suppressed { issues.append("count") }
                if !close(a.start, b.start, timeTolerance) || !close(a.end, b.end, timeTolerance) { issues.append("time") }
                if !close(a.peak, b.peak, confidenceTolerance) { issues.append("confidence") }
                return issues
            }
        }
        let extraProfiles = Set(got.profileOrder ?? []).subtracting(expected.profileOrder ?? [])
        for profile in extraProfiles.sorted() { found.append("\(profile): not in the golden") }
        return found
    }

    static func close(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool { abs(a - b) <= tolerance + 1e-9 }

    /// Compares two lists position by position; a length difference lists what is extra or missing.
    static func compare<Item>(_ what: String, _ expected: [Item], _ got: [Item], describe: (Item) -> String,
                              issues: (Item, Item) -> [String]) -> [String] {
        var found: [String] = []
        if expected.count != got.count {
            found.append("\(what)s: expected \(expected.count), got \(got.count)")
        }
        for index in 0..<min(expected.count, got.count) {
            let problems = issues(expected[index], got[index])
            if !problems.isEmpty {
                found.append("\(what) \(index + 1) (\(problems.joined(separator: ", "))): "
                    + "expected \(describe(expected[index])), got \(describe(got[index]))")
            }
        }
        for item in expected.dropFirst(got.count) { found.append("\(what) missing: \(describe(item))") }
        for item in got.dropFirst(expected.count) { found.append("\(what) extra: \(describe(item))") }
        return found
    }

    static func describe(_ run: Golden.DetectionRun) -> String {
        "\(run.classID) \(Formatting.fixed(run.start, 1))–\(Formatting.fixed(run.end, 1)) s (peak \(Formatting.fixed(run.peak, 3)), "
            + "mean \(Formatting.fixed(run.mean, 3)))"
    }

    static func describe(_ alert: Golden.AlertEntry) -> String {
        "\(alert.classID) [\(alert.tier), \(alert.kind)] at \(Formatting.fixed(alert.offset, 1)) s (\(Formatting.fixed(alert.confidence, 3)))"
    }

    static func describe(_ episode: Golden.EpisodeEntry) -> String {
        "\(episode.classID) [\(episode.tier), \(episode.severity)] \(Formatting.fixed(episode.start, 1))–"
            + "\(Formatting.fixed(episode.end, 1)) s, peak \(Formatting.fixed(episode.peak, 3)), \(Formatting.counted(episode.alerts, "alert")), "
            + "\(episode.suppressed) suppressed"
    }
}
