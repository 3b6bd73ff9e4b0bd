import Foundation
import GRDB
import Testing

/// `scripts/install PREFIX` puts the tool on PATH with its models where it finds them, from any folder; `--model` and
/// `SOMNIQ_MODEL` still choose another.
@Suite struct InstallTests {
    func run(_ executable: String, _ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var inherited = ProcessInfo.processInfo.environment
        inherited["SOMNIQ_MODEL"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func theInstalledToolFindsItsModelsFromAnyFolder() throws {
        let scratch = Scratch()
        let prefix = scratch.file("prefix")
        let (installed, log) = try run(CommandRunner.root + "/scripts/install",
                                       ["--binary", CommandRunner.productsFolder.appendingPathComponent("somniq-analyze").path, prefix],
                                       in: scratch.path)
        #expect(installed == 0, "\(log)")
        let tool = prefix + "/bin/somniq-analyze"
        #expect(FileManager.default.isExecutableFile(atPath: tool))
        for model in ["default", "rules"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/share/somniq-analyze/models/\(model)/model.json"))
        }
        #expect(FileManager.default.contentsEqual(atPath: prefix + "/share/somniq-analyze/models/default/quality.tsv",
                                                  andPath: CommandRunner.root + "/models/default/quality.tsv"), "the default model's card")
        #expect(log.contains("\(prefix)/bin is not on your PATH"))

        // From an empty folder far from the clone: the installed default model.
        let elsewhere = scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let night = CommandRunner.root + "/fixtures/sample-night/sleep_recording_1795302000.caf"
        func model(_ extra: [String], environment: [String: String] = [:]) throws -> String? {
            let db = scratch.file("\(UUID().uuidString).sqlite")
            let (status, errors) = try run(tool, ["analyze", night, "--db", db, "--quiet"] + extra, in: elsewhere, environment: environment)
            #expect(status == 0, "\(errors)")
            return try DatabaseQueue(path: db).read { try String.fetchOne($0, sql: "SELECT model_name FROM recordings") }
        }
        #expect(try model([]) == "default")
        #expect(try model([], environment: ["SOMNIQ_MODEL": prefix + "/share/somniq-analyze/models/rules"]) == "rules")
        #expect(try model(["--model", CommandRunner.root + "/models/rules"]) == "rules")

        // A prefix that cannot be written is said plainly.
        let (refused, why) = try run(CommandRunner.root + "/scripts/install", ["--binary", tool, "/proc/somniq"], in: scratch.path)
        #expect(refused == 2 && why.contains("/proc/somniq: error: cannot write here"), "\(why)")
    }
}
