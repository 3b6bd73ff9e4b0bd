import Foundation
import Testing
@testable import SomniqCluster

@Suite struct ShardTests {
    let study = (1...2000).map { "site-\($0 % 7)/subject-\($0)/night-\($0 % 31).flac" }

    @Test(arguments: [1, 2, 3, 7, 16])
    func sharesAreDisjointAndCoverEveryInput(count: Int) throws {
        let shards = try (0..<count).map { try Shard(index: $0, count: count) }
        var owners = [String: Int]()
        for file in study {
            let holders = shards.filter { $0.holds(file) }
            #expect(holders.count == 1, "\(file) is in \(holders.count) shares")
            owners[file] = holders.first?.index
        }
        #expect(owners.count == study.count)
        // Near-equal with many files: every share within 25% of the mean for 2,000 files.
        let sizes = (0..<count).map { index in owners.values.count { $0 == index } }
        let mean = Double(study.count) / Double(count)
        #expect(sizes.allSatisfy { abs(Double($0) - mean) <= 0.25 * mean }, "\(sizes)")
    }

    @Test func addingRemovingOrRenamingOtherFilesMovesNothing() {
        let before = Dictionary(uniqueKeysWithValues: study.map { ($0, Shard.share(of: $0, count: 7)) })
        var changed = study.dropFirst(100).map { $0 }  // 100 removed
        changed += (1...300).map { "late/extra-\($0).wav" }  // 300 added
        changed[5] = "renamed.wav"  // one renamed
        for file in changed where before[file] != nil {
            #expect(Shard.share(of: file, count: 7) == before[file])
        }
    }

    @Test func theShareIsTheDocumentedHash() {
        // Pinned to the documented rule (the first 8 bytes of SHA-256, big-endian, modulo N), computed independently
        // with Python's hashlib: a share must not change between versions or machines, or a rerun of a shard would
        // analyse other files than its first run.
        #expect(["night-001.wav", "night-002.wav", "night-003.wav"].map { Shard.share(of: $0, count: 5) } == [0, 3, 2])
    }

    @Test func parsing() throws {
        #expect(try Shard.parse("2/3") == Shard(index: 1, count: 3))
        #expect(try Shard.parse("1/1").description == "1/1")
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""] {
            #expect(throws: ShardError.self, "\(bad)") { try Shard.parse(bad) }
        }
    }

    @Test func slurmArrays() throws {
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4"]) == Shard(index: 0, count: 4))
        // --array=1-4: MIN 1, so task 4 is the last of four.
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"])
                == Shard(index: 3, count: 4))
        // Without the step Slurm sets, task 8 of four from 0 cannot be mapped: said, not guessed.
        #expect(throws: ShardError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"])
        }
    }

    /// A stepped array (--array=1-7:2: tasks 1, 3, 5, 7, as Slurm describes them) runs every share once; tasks 1 and 3
    /// used to run shares 1/4 and 3/4 while 5 and 7 were refused, and half the study merged silently.
    @Test func aSteppedArrayRunsEveryShareOnce() throws {
        func slurm(_ id: Int, _ extra: [String: String] = [:]) -> [String: String] {
            ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
             "SLURM_ARRAY_TASK_STEP": "2"].merging(extra) { $1 }
        }
        let shares = try [1, 3, 5, 7].map { try Shard.fromEnvironment(slurm($0)) }
        #expect(shares == (0..<4).map { try! Shard(index: $0, count: 4) })
        #expect(throws: ShardError.self) { try Shard.fromEnvironment(slurm(2)) }  // not a task of this array
        // A list (--array=1,3,8) is no evenly stepped range: every task refuses alike, none runs a part of the study.
        for id in [1, 3, 8] {
            #expect(throws: ShardError.self, "task \(id)") {
                try Shard.fromEnvironment(slurm(id, ["SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_STEP": "1"]))
            }
        }
    }

    @Test func kubernetesIndexedJobs() throws {
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 5) == Shard(index: 2, count: 5))
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "SOMNIQ_SHARD_COUNT": "3"]) == Shard(index: 2, count: 3))
        #expect(throws: ShardError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"]) }
        #expect(throws: ShardError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "5", "SOMNIQ_SHARD_COUNT": "5"]) }
        do {
            _ = try Shard.fromEnvironment(["HOME": "/root"])
            Issue.record("no engine: must throw")
        } catch {
            #expect(error.description.contains("neither SLURM_ARRAY_TASK_ID"))
        }
    }
}

@Suite final class ManifestTests {
    /// A folder of this test's own, removed when the test is done.
    let folder = NSTemporaryDirectory() + "somniq-manifest-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// `text` as the folder's manifest (each call replaces the last).
    func write(_ text: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/study.txt"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func onePathALine() throws {
        let path = try write("# study A\nnights/a.wav\n\n./nights//b.wav\n/abs/c.flac\nnights/a.wav\n")
        let manifest = try Manifest(path: path)
        let folder = (path as NSString).deletingLastPathComponent
        #expect(manifest.entries.map(\.identity) == ["nights/a.wav", "nights/b.wav", "/abs/c.flac"], "duplicates once, paths normalised")
        #expect(manifest.entries.map(\.path) == [folder + "/nights/a.wav", folder + "/./nights//b.wav", "/abs/c.flac"])
    }

    @Test func tablesWithAPathColumn() throws {
        let tsv = try Manifest(path: try write("subject\tpath\tnight\nS1\tn/1.wav\t1\nS2\tn/2.wav\t2\n"))
        #expect(tsv.entries.map(\.identity) == ["n/1.wav", "n/2.wav"])
        let csv = try Manifest(path: try write("path,subject\n\"n/with, comma.wav\",S1\nn/2.wav,S2\n"))
        #expect(csv.entries.map(\.identity) == ["n/with, comma.wav", "n/2.wav"])
        #expect(throws: Manifest.Failure.self) { try Manifest(path: try write("subject,file\nS1,n/1.wav\n")) }
        #expect(throws: Manifest.Failure.self) { try Manifest(path: try write("# nothing\n\n")) }
        #expect(throws: Manifest.Failure.self) { try Manifest(path: "/nonexistent/study.tsv") }
    }

    /// Found as a new user would: a one-column list under a header (`path`, or `file` as a spreadsheet names it) read its
    /// header as a recording and reported it missing. `path` is a header; another name that is no file is named as a
    /// header without a `path` column; a first line that is a file (even without an extension) stays a recording.
    @Test func aOneColumnListMayHaveAHeader() throws {
        #expect(try Manifest(path: try write("path\nn/1.wav\nn/2.wav\n")).entries.map(\.identity) == ["n/1.wav", "n/2.wav"])
        #expect(try Manifest(path: try write(" Path \nn/1.wav\n")).entries.map(\.identity) == ["n/1.wav"])
        #expect {
            try Manifest(path: try write("file\nn/1.wav\n"))
        } throws: { error in
            "\(error)".hasSuffix("study.txt: error: the manifest's header has no 'path' column (it has: file); name the column of "
                               + "file paths 'path', or list one path a line without a header")
        }
        try FileManager.default.createDirectory(atPath: folder + "/n", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/night1", contents: Data())
        #expect(try Manifest(path: try write("night1\nn/1.wav\n")).entries.map(\.identity) == ["night1", "n/1.wav"])
    }
}
