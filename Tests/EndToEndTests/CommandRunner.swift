import Foundation

/// Runs the built `somniq-analyze` (or `somniq-synth`) binary and captures what it printed.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CommandRunner {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The folder holding the test bundle also holds the products it depends on.
    static var productsFolder: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        if folder.lastPathComponent == "MacOS" {
            folder = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        return folder
    }

    /// A command started in the background, its output going to files.
    final class Running {
        let process: Process
        let scratch: Scratch
        init(process: Process, scratch: Scratch) {
            self.process = process
            self.scratch = scratch
        }
        var processIdentifier: Int32 { process.processIdentifier }
        var terminationStatus: Int32 { process.terminationStatus }
        func waitUntilExit() { process.waitUntilExit() }
        var stdout: String { (try? String(contentsOfFile: scratch.file("stdout"), encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: scratch.file("stderr"), encoding: .utf8)) ?? "" }
    }

    /// Starts `product` with `arguments`; with `asUser`, through setpriv as that user id (to test permissions as root).
    static func start(_ arguments: [String], product: String = "somniq-analyze", directory: String? = nil,
                      asUser: UInt32? = nil, environment: [String: String] = [:]) throws -> Running {
        let scratch = Scratch()
        let outPath = scratch.file("stdout"), errPath = scratch.file("stderr")
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        let executable = productsFolder.appendingPathComponent(product)
        if let asUser {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        // The synthetic fixtures are analysed with the hand-written model they were designed with, unless a test
        // says otherwise (the fitted default is scored on real recordings by scripts/evaluate-devset).
        process.environment = ProcessInfo.processInfo.environment
            .merging(["SOMNIQ_MODEL": root + "/models/rules"]) { $1 }.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        return Running(process: process, scratch: scratch)
    }

    /// Runs `product` with `arguments` to the end; stdout and stderr go to files, so no pipe can fill up and block it.
    static func run(_ arguments: [String], product: String = "somniq-analyze", directory: String? = nil,
                    asUser: UInt32? = nil) throws -> CommandResult {
        let running = try start(arguments, product: product, directory: directory, asUser: asUser)
        running.waitUntilExit()
        return CommandResult(status: running.terminationStatus, stdout: running.stdout, stderr: running.stderr)
    }
}

/// A fresh folder, removed when released.
final class Scratch {
    let path = NSTemporaryDirectory() + "somniq-e2e-\(UUID().uuidString)"
    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}
