import Foundation
import SomniqFiles
import Testing

@Suite struct ProcessorSupportTests {
    static let haswellFlags = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 "
        + "ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid "
        + "aperfmperf pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy "
        + "abm sse4a fsgsbase bmi1 avx2 bmi2"
    static let required = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "popcnt", "sse4_2", "abm", "xsave",
                           "pclmulqdq", "rdrand", "fsgsbase", "cx16", "lahf_lm"]

    @Test func aProcessorWithAVX2LacksNothing() {
        let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: \(Self.haswellFlags)\n\nprocessor\t: 1\n"
        #expect(ProcessorSupport.missing(cpuinfo: cpuinfo, required: Self.required).isEmpty)
    }

    @Test func anOlderProcessorIsToldWhatItLacks() throws {
        // A Sandy Bridge: AVX, no AVX2, FMA, BMI or MOVBE.
        let sandyBridge = Self.haswellFlags.split(separator: " ")
            .filter { !["avx2", "fma", "bmi1", "bmi2", "movbe", "fsgsbase", "abm", "f16c", "rdrand"].contains($0) }
            .joined(separator: " ")
        let cpuinfo = "processor\t: 0\nflags\t\t: \(sandyBridge)\n"
        #expect(ProcessorSupport.missing(cpuinfo: cpuinfo, required: Self.required)
                == ["avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm", "rdrand", "fsgsbase"])
        let file = NSTemporaryDirectory() + "cpuinfo-\(UUID().uuidString)"
        try cpuinfo.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let problem = try #require(ProcessorSupport.problem(cpuinfoPath: file, required: Self.required))
        #expect(problem.contains("lacks avx2, fma, bmi1"), "\(problem)")
        #expect(problem.contains("SOMNIQ_PORTABLE=1"), "\(problem)")
    }

    @Test func nothingIsClaimedWhereNothingCanBeRead() {
        // arm64's /proc/cpuinfo has "Features", not "flags"; an unreadable file says nothing either.
        #expect(ProcessorSupport.missing(cpuinfo: "processor\t: 0\nFeatures\t: fp asimd evtstrm\n", required: Self.required).isEmpty)
        #expect(ProcessorSupport.problem(cpuinfoPath: "/nonexistent/cpuinfo", required: Self.required) == nil)
        #expect(ProcessorSupport.problem(cpuinfoPath: "/nonexistent/cpuinfo", required: []) == nil)
    }

    @Test func thisMachineRunsWhatWasBuiltOnIt() {
        #expect(ProcessorSupport.problem() == nil)
    }

    /// The cores a process may use: its affinity's (taskset, a Slurm cpuset) and its container's CPU quota, the fewer.
    @Test func usableCoresReadTheAffinityAndTheQuota() {
        let status = "Name:\tsomniq\nCpus_allowed:\t3\nCpus_allowed_list:\t0-3,8,10-11\nMems_allowed:\t1\n"
        #expect(ProcessorSupport.usableCores(status: status, cpuMax: nil, machine: 64) == 7)
        #expect(ProcessorSupport.usableCores(status: status, cpuMax: "max 100000\n", machine: 64) == 7)
        #expect(ProcessorSupport.usableCores(status: status, cpuMax: "150000 100000\n", machine: 64) == 2)
        #expect(ProcessorSupport.usableCores(status: "Cpus_allowed_list:\t5\n", cpuMax: nil, machine: 64) == 1)
        // What cannot be read, or reads as nothing, leaves the machine's count.
        #expect(ProcessorSupport.usableCores(status: nil, cpuMax: nil, machine: 4) == 4)
        #expect(ProcessorSupport.usableCores(status: "Cpus_allowed_list:\t\n", cpuMax: "0 100000", machine: 4) == 4)
        // Never more than the machine has, never fewer than one.
        #expect(ProcessorSupport.usableCores(status: status, cpuMax: "1000 100000", machine: 2) == 1)
        #expect((1...ProcessInfo.processInfo.activeProcessorCount).contains(ProcessorSupport.usableCores))
    }
}
