import Foundation
import SomniqPipeline
import SomniqRegression
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

@Suite struct GoldenComparisonTests {
    func golden() throws -> Golden {
        try GoldenFormat.parse(Data(contentsOf: URL(fileURLWithPath: root + "/fixtures/expected/sample-night/sleep_recording_1795302000.caf.json")))
    }

    @Test func renderingIsStableAndParsesBack() throws {
        let original = try golden()
        let text = GoldenFormat.render(original)
        #expect(try GoldenFormat.parse(Data(text.utf8)) == original)
        #expect(try String(contentsOfFile: root + "/fixtures/expected/sample-night/sleep_recording_1795302000.caf.json", encoding: .utf8) == text)
    }

    @Test func toleratesSmallMovesAndReportsLargerOnes() throws {
        let expected = try golden()
        var moved = expected
        var balanced = moved.profiles!["balanced"]!
        balanced.episodes[0].start += GoldenComparison.timeTolerance
        balanced.episodes[0].peak -= GoldenComparison.confidenceTolerance / 2
        moved.profiles!["balanced"] = balanced
        #expect(GoldenComparison.differences(expected: expected, got: moved).isEmpty)

        balanced.episodes[0].start += 0.5
        balanced.episodes[1].alerts += 1
        balanced.episodes.removeLast()
        moved.profiles!["balanced"] = balanced
        let differences = GoldenComparison.differences(expected: expected, got: moved)
        #expect(differences.contains { $0.hasPrefix("balanced: episodes: expected 8, got 7") })
        #expect(differences.contains { $0.hasPrefix("balanced: episode 1 (time)") })
        #expect(differences.contains { $0.hasPrefix("balanced: episode 2 (count)") })
        #expect(differences.contains { $0.hasPrefix("balanced: episode missing: rain") })
    }

    @Test func anErrorWhereAnAnalysisWasExpectedIsADifference() throws {
        let expected = try golden()
        let failed = Golden(fixture: expected.fixture, model: expected.model,
                            error: .init(code: "truncated", message: "cut", exitStatus: 1))
        #expect(GoldenComparison.differences(expected: expected, got: failed) == ["expected an analysis, got the error truncated: cut"])
    }
}
