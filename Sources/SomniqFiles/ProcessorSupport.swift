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
