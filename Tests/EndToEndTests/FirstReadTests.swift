import Foundation
import Testing

/// What a new user tripped over (#46), each through the executable.
@Suite struct FirstReadTests {
    @Test func versionNamesTheDefaultModel() throws {
        let model = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.root + "/models/default/model.json")))
            as! [String: Any]
        let version = try #require(model["version"] as? String)
        for arguments in [["--version"], ["analyze", "--version"]] {
            let running = try CommandRunner.start(arguments, environment: ["SOMNIQ_MODEL": CommandRunner.root + "/models/default"])
            running.waitUntilExit()
            let run = (status: running.terminationStatus, stdout: running.stdout)
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("somniq-analyze 0.1.0; default model default@\(version)+profiles@"), "\(run.stdout)")
        }
    }

    @Test func compareOfARecordingWhoseAnalysisFailedSaysSo() throws {
        let scratch = Scratch()
        let bad = scratch.file("notes.wav")
        try "not audio".write(toFile: bad, atomically: true, encoding: .utf8)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", bad, "--db", db]).status == 1)
        let compared = try CommandRunner.run(["compare", "1", "--db", db])
        #expect(compared.status == 2)
        #expect(compared.stderr.contains("recording 1 (notes.wav) was not analysed: its analysis failed"), "\(compared.stderr)")
        #expect(!compared.stderr.contains("no recording 1"))
    }
}
