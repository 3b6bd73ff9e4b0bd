import Foundation

/// The processor features the analysis was compiled for, and a check that this processor has them.
///
/// Package.swift compiles the analysis's modules for AVX2 (`-target-cpu haswell`) where the machine that builds has
/// it, and then defines `SOMNIQ_NEEDS_HASWELL` for this module, which is compiled for any x86-64. A binary copied to
/// a processor without those features would stop with "Illegal instruction" somewhere in the middle of a night; the
/// executable calls `problem()` first and says what is missing instead.
public enum ProcessorSupport {
    #if SOMNIQ_NEEDS_HASWELL
    /// As /proc/cpuinfo names them: the `haswell` set of Package.swift's `hostProcessorSettings`.
    public static let required = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "popcnt", "sse4_2", "abm", "xsave",
                                  "pclmulqdq", "rdrand", "fsgsbase", "cx16", "lahf_lm"]
    #else
    public static let required: [String] = []
    #endif

    /// What the build was compiled for, for `--version`.
    public static var buildDescription: String { required.isEmpty ? "built for any x86-64 or arm64" : "built for AVX2 processors" }

    /// The features of `required` that `cpuinfo` (the text of /proc/cpuinfo) does not list on its first `flags` line;
    /// none when it has no such line (another system: nothing to tell from it).
    public static func missing(cpuinfo: String, required: [String] = required) -> [String] {
        guard !required.isEmpty,
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              let colon = line.firstIndex(of: ":") else { return [] }
        let flags = Set(line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
        return required.filter { !flags.contains($0) }
    }

    /// Why this binary cannot run on this processor, or nil when it can (or when /proc/cpuinfo cannot be read).
    public static func problem(cpuinfoPath: String = "/proc/cpuinfo", required: [String] = required) -> String? {
        guard !required.isEmpty, let cpuinfo = try? String(contentsOfFile: cpuinfoPath, encoding: .utf8) else { return nil }
        let absent = missing(cpuinfo: cpuinfo, required: required)
        guard !absent.isEmpty else { return nil }
        return "this binary was built for processors with AVX2 (most x86-64 processors since 2013), and this one lacks "
            + "\(absent.joined(separator: ", ")); build it on this machine, or build it with SOMNIQ_PORTABLE=1 "
            + "(e.g. SOMNIQ_PORTABLE=1 scripts/install) for a binary that runs on any x86-64"
    }
}

extension ProcessorSupport {
    /// The cores this process may use: those its affinity allows (`taskset`, a Slurm job's cpuset), fewer if its
    /// control group's CPU quota (a container's limit) allows less; the machine's count where neither can be read.
    /// Foundation's `activeProcessorCount` counts the machine's cores whatever the process is allowed.
    public static var usableCores: Int {
        let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let quota = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8)
        return usableCores(status: status, cpuMax: quota, machine: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// `usableCores` from the text of /proc/self/status (its `Cpus_allowed_list`, e.g. "0-3,8") and of the cgroup's
    /// `cpu.max` ("max 100000", or "150000 100000": a quota of 1.5 cores, which may keep two busy part of the time).
    public static func usableCores(status: String?, cpuMax: String?, machine: Int) -> Int {
        var cores = machine
        if let line = status?.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) {
            let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
            var allowed = 0
            for range in list.split(separator: ",") {
                let ends = range.split(separator: "-").compactMap { Int($0) }
                if ends.count == 1 { allowed += 1 } else if ends.count == 2, ends[1] >= ends[0] { allowed += ends[1] - ends[0] + 1 }
            }
            if allowed > 0 { cores = min(cores, allowed) }
        }
        let fields = cpuMax?.split(whereSeparator: \.isWhitespace) ?? []
        if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0 {
            cores = min(cores, max(1, Int((quota / period).rounded(.up))))
        }
        return max(1, cores)
    }
}
