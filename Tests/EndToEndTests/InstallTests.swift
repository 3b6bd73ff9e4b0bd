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

    /// The README and the guide say which Debian packages the installed binary needs on a machine without a toolchain.
    /// Each C library the package links (its system-library targets' `link` lines, and SQLite through GRDB) is looked
    /// up where the built tool loads it from, and the package that ships that file must be among those named.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg"), "Debian's package database"))
    func theRuntimePackagesNamedAreThoseOfTheLibrariesTheToolLoads() throws {
        let sources = CommandRunner.root + "/Sources"
        var linked = ["sqlite3"]  // GRDB links the system's SQLite
        for target in try FileManager.default.contentsOfDirectory(atPath: sources).sorted() {
            guard let map = try? String(contentsOfFile: "\(sources)/\(target)/module.modulemap", encoding: .utf8) else { continue }
            for line in map.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("link ") {
                linked.append(String(line.split(separator: "\"")[1]))
            }
        }
        #expect(linked.count >= 4, "sndfile, fftw3f, xxhash and sqlite3 at least: \(linked)")

        let tool = CommandRunner.productsFolder.appendingPathComponent("somniq-analyze").path
        let (loadedStatus, loaded) = try CommandRunner.output(of: "/usr/bin/ldd", [tool])
        #expect(loadedStatus == 0, "\(loaded)")
        let readme = try String(contentsOfFile: CommandRunner.root + "/README.md", encoding: .utf8)
        let guide = try String(contentsOfFile: CommandRunner.root + "/docs/guide.md", encoding: .utf8)
        func runtimeSentence(_ text: String) -> String {
            // From "carries Swift's runtime" / "Swift's runtime linked in" to the closing parenthesis of its list.
            guard let start = text.range(of: "Swift's runtime") else { return "" }
            let rest = text[start.upperBound...]
            return String(rest[..<(rest.firstIndex(of: ")") ?? rest.endIndex)])
        }
        for library in linked {
            // "\tlibxxhash.so.0 => /lib/x86_64-linux-gnu/libxxhash.so.0 (0x...)"
            let line = loaded.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("lib\(library).so") }
            let path = line.flatMap { $0.components(separatedBy: " => ").dropFirst().first?.split(separator: " ").first }
            guard let path else {
                Issue.record("the tool does not load lib\(library): \(loaded)")
                continue
            }
            // Debian ships libraries under /usr/lib; /lib is a link to it.
            let shipped = path.hasPrefix("/usr/") ? String(path) : "/usr" + path
            let (status, owner) = try CommandRunner.output(of: "/usr/bin/dpkg", ["-S", shipped])
            #expect(status == 0, "\(shipped): \(owner)")
            // "libxxhash0:amd64: /usr/lib/x86_64-linux-gnu/libxxhash.so.0"
            let package = String(owner.prefix { $0 != ":" })
            #expect(runtimeSentence(readme).contains("`\(package)`"), "README.md does not name \(package) (lib\(library))")
            #expect(runtimeSentence(guide).contains("`\(package)`"), "docs/guide.md does not name \(package) (lib\(library))")
        }
    }
}
