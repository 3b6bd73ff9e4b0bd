import Foundation
import Testing

@Suite struct RegressCommandTests {
    @Test func everyFixtureMatchesItsGolden() throws {
        let result = try CommandRunner.run(["regress"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let counts = summary.split(separator: " ").compactMap { Int($0) }
        #expect(counts.count >= 2 && counts[0] == counts[1] && counts[0] >= 25, "\(summary)")
    }

    /// The bad-input goldens are a contract: `analyze` on the file alone prints that message and exits with that status;
    /// the files cut short (their golden an analysis with `declaredFrames`) are analysed with a warning.
    /// Run away from the repository, regress says where it looked and what to do.
    @Test func regressWithoutItsFixturesSaysWhereToRunIt() throws {
        let scratch = Scratch()
        let result = try CommandRunner.run(["regress"], directory: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("no audio fixtures found in fixtures (no such folder); run regress from the repository's top "
                                       + "folder, or pass --fixtures PATH"), "\(result.stderr)")
    }

    @Test func badInputsFailAsTheirGoldensSay() throws {
        let badFolder = CommandRunner.root + "/fixtures/bad"
        let names = try FileManager.default.contentsOfDirectory(atPath: badFolder).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names.count >= 8)
        var cutShort: [String] = []
        for name in names {
            let golden = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/fixtures/expected/bad/\(name).json"))) as? [String: Any] ?? [:]
            let scratch = Scratch()
            let result = try CommandRunner.run(["analyze", "fixtures/bad/\(name)", "--db", scratch.file("db.sqlite"), "--quiet"])
            guard let error = golden["error"] as? [String: Any] else {
                #expect(golden["declaredFrames"] is Int, "\(name): neither an error nor a file cut short")
                #expect(result.status == 0 && result.stderr.contains("\(badFolder)/\(name): warning: cut short:"), "\(name): \(result.stderr)")
                cutShort.append(name)
                continue
            }
            #expect(result.status == Int32(error["exitStatus"] as? Int ?? -1), "\(name)")
            let expected = (error["message"] as? String ?? "").replacingOccurrences(of: "bad/\(name)", with: badFolder + "/\(name)")
            #expect(result.stderr.hasPrefix(expected + "\n"), "\(name): \(result.stderr)")
        }
        #expect(cutShort == ["lying-header.wav", "truncated.wav"])
    }

    @Test func aChangedResultIsAReadableDiffAndUpdateRewritesIt() throws {
        let scratch = Scratch()
        let fixtures = scratch.file("fixtures")
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: fixtures + "/expected/sample-night", withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: fixtures + "/sample-night", withIntermediateDirectories: true)
        let name = "sample-night/sleep_recording_1795302000.caf"
        try fileManager.copyItem(atPath: CommandRunner.root + "/fixtures/" + name, toPath: fixtures + "/" + name)
        let golden = try String(contentsOfFile: CommandRunner.root + "/fixtures/expected/\(name).json", encoding: .utf8)

        // Tamper with the golden as a regression would move the result: a class label and a time beyond tolerance.
        let balancedSnoring = try #require(golden.range(of: "{\"class\": \"smoke_detector\", \"tier\": \"critical\", \"severity\""))
        var tampered = golden
        tampered.replaceSubrange(balancedSnoring, with: "{\"class\": \"siren\", \"tier\": \"critical\", \"severity\"")
        try tampered.write(toFile: fixtures + "/expected/\(name).json", atomically: true, encoding: .utf8)

        let differs = try CommandRunner.run(["regress", "--fixtures", fixtures])
        #expect(differs.status == 1)
        #expect(differs.stdout.contains("DIFFERS  \(name)"))
        #expect(differs.stdout.contains("very-conservative: episode"), "\(differs.stdout)")
        #expect(differs.stdout.contains("expected siren [critical"), "\(differs.stdout)")
        // The hint keeps the --fixtures this run was given (it used to drop it, updating the wrong goldens).
        #expect(differs.stderr.contains("run 'somniq-analyze regress --update --fixtures \(fixtures)'"), "\(differs.stderr)")

        let updated = try CommandRunner.run(["regress", "--fixtures", fixtures, "--update"])
        #expect(updated.status == 0)
        #expect(updated.stdout.contains("updated  \(name)"))
        #expect(updated.stderr.contains("1 goldens rewritten"))
        #expect(try String(contentsOfFile: fixtures + "/expected/\(name).json", encoding: .utf8) == golden)
        #expect(try CommandRunner.run(["regress", "--fixtures", fixtures]).status == 0)

        // A golden whose fixture is gone is reported too.
        try golden.write(toFile: fixtures + "/expected/sample-night/gone.caf.json", atomically: true, encoding: .utf8)
        let stale = try CommandRunner.run(["regress", "--fixtures", fixtures])
        #expect(stale.status == 1)
        #expect(stale.stdout.contains("golden without a fixture"))
    }
}
