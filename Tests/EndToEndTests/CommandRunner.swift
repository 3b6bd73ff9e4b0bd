import Foundation
import Synchronization

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

        /// Lets the command run in steps of 10 ms, stopped (SIGSTOP) between them, until `condition` holds; leaves it
        /// stopped there and says whether it was still running then (false: it ended first, or `timeout` passed). A
        /// signal sent next (`send`) reaches it before it takes another step, so a test that stops a batch midway
        /// cannot find it finished in between, however fast the build.
        func pause(once condition: () -> Bool, timeout: TimeInterval = 120) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            kill(processIdentifier, SIGSTOP)
            while Date() < deadline, process.isRunning {
                if condition() { return true }
                kill(processIdentifier, SIGCONT)
                Thread.sleep(forTimeInterval: 0.01)
                kill(processIdentifier, SIGSTOP)
            }
            kill(processIdentifier, SIGCONT)
            return false
        }

        /// Sends `signal` to a paused command and lets it go on, to handle it.
        func send(_ signal: Int32) {
            kill(processIdentifier, signal)
            kill(processIdentifier, SIGCONT)
        }
    }

    /// For runs as another user: the tool and its models copied to a folder anyone can read and enter. The clone may
    /// live where that user cannot (a mode-700 home folder), and permissions must still be testable there.
    static let publicCopy: String = {
        let folder = NSTemporaryDirectory() + "somniq-public-copy"
        let fileManager = FileManager.default
        try? fileManager.removeItem(atPath: folder)
        try! fileManager.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        try! fileManager.copyItem(atPath: productsFolder.appendingPathComponent("somniq-analyze").path, toPath: folder + "/bin/somniq-analyze")
        try! fileManager.copyItem(atPath: root + "/models", toPath: folder + "/models")
        for path in [folder, folder + "/bin", folder + "/bin/somniq-analyze"] + (fileManager.enumerator(atPath: folder + "/models")?
            .compactMap { $0 as? String }.map { folder + "/models/" + $0 } ?? []) + [folder + "/models"] {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let executable = isDirectory.boolValue || path.hasSuffix("/somniq-analyze")
            try! fileManager.setAttributes([.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: path)
        }
        return folder
    }()

    /// Starts `product` with `arguments`; with `asUser`, through setpriv as that user id (to test permissions as root),
    /// running the public copy of the tool and its models from the public copy's folder.
    /// With `standardInput`, the command reads that pipe (the test writes its other end); otherwise nothing.
    static func start(_ arguments: [String], product: String = "somniq-analyze", directory: String? = nil,
                      asUser: UInt32? = nil, environment: [String: String] = [:], standardInput: Pipe? = nil) throws -> Running {
        let scratch = Scratch()
        let outPath = scratch.file("stdout"), errPath = scratch.file("stderr")
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
              FileManager.default.createFile(atPath: errPath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: scratch.path])
        }
        let process = Process()
        let executable = productsFolder.appendingPathComponent(product)
        var modelsFolder = root + "/models"
        if let asUser {
            precondition(product == "somniq-analyze", "only somniq-analyze has a public copy")
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", publicCopy + "/bin/somniq-analyze"] + arguments
            modelsFolder = publicCopy + "/models"
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? (asUser == nil ? root : publicCopy))
        // The synthetic fixtures are analysed with the hand-written model they were designed with, unless a test
        // says otherwise (the fitted default is scored on real recordings by scripts/evaluate-devset).
        process.environment = ProcessInfo.processInfo.environment
            .merging(["SOMNIQ_MODEL": modelsFolder + "/rules"]) { $1 }.merging(environment) { $1 }
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        return Running(process: process, scratch: scratch)
    }

    /// Runs a system tool (`ldd`, `dpkg`, `sha256sum`) to the end: its status, and what it wrote to stdout and stderr
    /// (for the short answers such tools give).
    static func output(of executable: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Runs `product` with `arguments` to the end; stdout and stderr go to files, so no pipe can fill up and block it.
    static func run(_ arguments: [String], product: String = "somniq-analyze", directory: String? = nil,
                    asUser: UInt32? = nil, environment: [String: String] = [:]) throws -> CommandResult {
        let running = try start(arguments, product: product, directory: directory, asUser: asUser, environment: environment)
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

    /// Three inputs here: a copy of the sample night (`night.caf`), a copy of the fixture `other` (named with its
    /// extension), and `notes.wav`, which is not audio.
    func nightOtherAndNotes(other: String) throws -> (night: String, other: String, notes: String) {
        let night = file("night.caf"), copy = file("other." + (other as NSString).pathExtension), notes = file("notes.wav")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        try FileManager.default.copyItem(atPath: other, toPath: copy)
        try "not audio".write(toFile: notes, atomically: true, encoding: .utf8)
        return (night, copy, notes)
    }

    /// A model folder `name` here: `model` as its `model.json`, beside the `profiles.json` of the model folder `profiles`.
    func modelFolder(_ name: String, model: Data, profiles: String) throws -> String {
        let folder = file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: profiles + "/profiles.json", toPath: folder + "/profiles.json")
        try model.write(to: URL(fileURLWithPath: folder + "/model.json"))
        return folder
    }
}

/// Fixtures made once per test process and shared by its tests (a folder of nights, an analysed database) live in the
/// temporary folder under the process's id; they are removed when the process exits, so that runs do not pile up.
enum ProcessFixtures {
    private static let paths = Mutex<[String]>([])
    private static let cleanup: Void = { atexit { ProcessFixtures.removeAll() } }()

    /// `path`, to be removed (with a database's `-wal` and `-shm` files) when the test process exits.
    static func removedAtExit(_ path: String) -> String {
        _ = cleanup
        paths.withLock { $0.append(path) }
        return path
    }

    private static func removeAll() {
        for path in paths.withLock({ $0 }) {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
}
