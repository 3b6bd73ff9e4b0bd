import Crypto
import Foundation

/// One of N disjoint shares of a study's recordings, for running a study as an array of jobs (Slurm, Kubernetes).
///
/// A file's share depends on that file alone: the first 8 bytes of the SHA-256 of its identity (its path as the
/// manifest writes it, relative to the manifest; or as given on the command line), as a big-endian number, modulo N.
/// Adding, removing or renaming other files moves nothing; with many files the shares come out near-equal.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// 0-based.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1 else { throw .invalid("the shard count must be at least 1") }
        guard (0..<count).contains(index) else { throw .invalid("shard \(index + 1) of \(count) does not exist (1 to \(count))") }
        self.index = index
        self.count = count
    }

    /// `K/N`, K from 1 to N, as people count them (`--shard 2/3`).
    public var description: String { "\(index + 1)/\(count)" }

    /// Parses `K/N` (1-based).
    public static func parse(_ text: String) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw .invalid("--shard \(text) is not K/N (the K-th of N shares, from 1/N to N/N), nor 'auto'")
        }
        guard n >= 1 else { throw .invalid("--shard \(text): N, the number of shares, must be at least 1") }
        guard (1...n).contains(k) else { throw .invalid("--shard \(text): K must lie between 1 and N (\(n))") }
        return try Shard(index: k - 1, count: n)
    }

    /// The environment variable that gives the shard count to a Kubernetes Indexed Job (or anywhere
    /// `--shard-count` is not given).
    public static let countVariable = "SOMNIQ_SHARD_COUNT"

    /// The share the job engine this runs under assigns: a Slurm array task (`SLURM_ARRAY_TASK_ID` less
    /// `SLURM_ARRAY_TASK_MIN`, divided by `SLURM_ARRAY_TASK_STEP`, of `SLURM_ARRAY_TASK_COUNT`: `--array=1-7:2` runs
    /// shares 1 to 4 of 4), or a Kubernetes Indexed Job's pod (`JOB_COMPLETION_INDEX`, of `count` or
    /// `SOMNIQ_SHARD_COUNT`). An array that is no evenly stepped range (`--array=1,3,8`) is refused by every task alike,
    /// so that a study never runs, and merges, a part of its shares.
    public static func fromEnvironment(_ environment: [String: String], count: Int? = nil) throws(ShardError) -> Shard {
        if let task = environment["SLURM_ARRAY_TASK_ID"] {
            guard let id = Int(task) else { throw .invalid("SLURM_ARRAY_TASK_ID=\(task) is not a number") }
            guard let total = environment["SLURM_ARRAY_TASK_COUNT"].flatMap(Int.init) ?? count else {
                throw .invalid("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shard-count")
            }
            let minimum = environment["SLURM_ARRAY_TASK_MIN"].flatMap(Int.init) ?? 0
            let step = environment["SLURM_ARRAY_TASK_STEP"].flatMap(Int.init) ?? 1
            let range = "--shard auto needs an array that is an evenly stepped range (#SBATCH --array=0-\(total - 1), or "
                + "1-\(total), or 1-\(2 * total - 1):2)"
            guard step >= 1 else { throw .invalid("SLURM_ARRAY_TASK_STEP=\(step) is not a step; \(range)") }
            if let maximum = environment["SLURM_ARRAY_TASK_MAX"].flatMap(Int.init), maximum - minimum != (total - 1) * step {
                throw .invalid("the array's \(total) tasks from \(minimum) to \(maximum) are not every \(step == 1 ? "" : "\(step)th ")"
                               + "number between: \(range)")
            }
            let offset = id - minimum
            guard offset % step == 0, (0..<total).contains(offset / step) else {
                throw .invalid("array task \(id) is not among \(total) tasks from \(minimum) in steps of \(step): \(range)")
            }
            return try Shard(index: offset / step, count: total)
        }
        if let completion = environment["JOB_COMPLETION_INDEX"] {
            guard let index = Int(completion) else { throw .invalid("JOB_COMPLETION_INDEX=\(completion) is not a number") }
            guard let total = count ?? environment[countVariable].flatMap(Int.init) else {
                throw .invalid("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the shard count: give --shard-count "
                               + "or set \(countVariable) to the Job's completions")
            }
            return try Shard(index: index, count: total)
        }
        throw .invalid("--shard auto found no job array: neither SLURM_ARRAY_TASK_ID (a Slurm array job) nor JOB_COMPLETION_INDEX "
                       + "(a Kubernetes Indexed Job) is set; give --shard K/N")
    }

    /// The share `identity` falls in, 0-based.
    public static func share(of identity: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Data(identity.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }

    public func holds(_ identity: String) -> Bool { Self.share(of: identity, count: count) == index }
}

public enum ShardError: Error, CustomStringConvertible, Equatable {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
