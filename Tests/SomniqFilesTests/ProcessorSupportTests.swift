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
}
