import Foundation
import SomniqPipeline
import SomniqAudio
import SomniqModel

/// Runs the pipeline over every fixture under every profile and compares the results with the goldens
/// in `<fixtures>/expected/<fixture path>.json`.
public struct RegressionSuite {
    /// The outcome for one fixture.
    public struct Outcome: Sendable {
        public enum Status: Sendable, Equatable { case matches, differs, noGolden, staleGolden }
        public var fixture: String
        public var status: Status
        public var differences: [String]
        public var fresh: Golden?
    }

    public static let expectedFolder = "expected"
    /// The exit status `analyze` gives a file it cannot read (docs/reliability.md).
    public static let badInputExitStatus: Int32 = 1

    public let fixturesFolder: String
    public let analyzer: RecordingAnalyzer

    public init(fixturesFolder: String, analyzer: RecordingAnalyzer) {
        self.fixturesFolder = (fixturesFolder as NSString).standardizingPath
        self.analyzer = analyzer
    }

    var expectedRoot: String { (fixturesFolder as NSString).appendingPathComponent(Self.expectedFolder) }

    /// Audio fixtures, relative to the fixtures folder, sorted; the goldens' folder is not searched.
    public func fixtures() -> [String] {
        InputCollector.audioFiles(in: fixturesFolder)
            .map { String($0.dropFirst(fixturesFolder.count + 1)) }
            .filter { !$0.hasPrefix(Self.expectedFolder + "/") }
    }

    public func goldenPath(for fixture: String) -> String { (expectedRoot as NSString).appendingPathComponent(fixture + ".json") }

    /// Analyses one fixture under every profile: its golden-to-be.
    public func run(_ fixture: String) -> Golden {
        let path = (fixturesFolder as NSString).appendingPathComponent(fixture)
        let bundle = analyzer.bundle
        do {
            let data = try analyzer.analyze(path: path, explicitStart: Date(timeIntervalSince1970: 0))
            return Golden(fixture: fixture, model: bundle.versionTag, data: data,
                          results: analyzer.runProfiles(bundle.profiles.profiles, on: data),
                          detectionFloor: bundle.classifier.detectionFloor)
        } catch {
            let message = error.description.replacingOccurrences(of: URL(fileURLWithPath: path).standardizedFileURL.path, with: fixture)
            return Golden(fixture: fixture, model: bundle.versionTag,
                          error: .init(code: error.code, message: message, exitStatus: Self.badInputExitStatus))
        }
    }

    /// Compares every fixture with its golden, and reports goldens whose fixture is gone.
    public func check(progress: (String) -> Void = { _ in }) -> [Outcome] {
        let names = fixtures()
        var outcomes = names.map { fixture -> Outcome in
            progress(fixture)
            let fresh = run(fixture)
            guard let data = FileManager.default.contents(atPath: goldenPath(for: fixture)) else {
                return Outcome(fixture: fixture, status: .noGolden, differences: ["no golden at \(goldenPath(for: fixture))"], fresh: fresh)
            }
            do {
                let expected = try GoldenFormat.parse(data)
                let differences = GoldenComparison.differences(expected: expected, got: fresh)
                return Outcome(fixture: fixture, status: differences.isEmpty ? .matches : .differs, differences: differences, fresh: fresh)
            } catch {
                return Outcome(fixture: fixture, status: .differs, differences: ["golden unreadable: \(error)"], fresh: fresh)
            }
        }
        let known = Set(names.map { $0 + ".json" })
        for golden in goldens() where !known.contains(golden) {
            outcomes.append(Outcome(fixture: String(golden.dropLast(5)), status: .staleGolden,
                                    differences: ["golden without a fixture: \(Self.expectedFolder)/\(golden)"], fresh: nil))
        }
        return outcomes
    }

    /// Writes the fresh goldens of `outcomes` and removes stale ones.
    public func update(_ outcomes: [Outcome]) throws {
        for outcome in outcomes {
            let path = goldenPath(for: outcome.fixture)
            if outcome.status == .staleGolden {
                try FileManager.default.removeItem(atPath: path)
                continue
            }
            guard let fresh = outcome.fresh, outcome.status != .matches else { continue }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try GoldenFormat.render(fresh).write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    func goldens() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: expectedRoot) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".json") { found.append(relative) }
        }
        return found.sorted()
    }
}
