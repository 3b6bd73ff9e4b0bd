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

    /// Runs `product` with `arguments`; stdout and stderr go to files, so no pipe can fill up and block it.
    static func run(_ arguments: [String], product: String = "somniq-analyze", directory: String? = nil,
                    environment: [String: String] = [:]) throws -> CommandResult {
        let scratch = Scratch()
        let outPath = scratch.file("stdout"), errPath = scratch.file("stderr")
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = productsFolder.appendingPathComponent(product)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus,
                             stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                             stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }
}

/// A fresh folder, removed when released.
final class Scratch {
    let path = NSTemporaryDirectory() + "somniq-e2e-\(UUID().uuidString)"
    init() { try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}
