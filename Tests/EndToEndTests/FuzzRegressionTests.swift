import Foundation
import Testing

@Suite struct FuzzRegressionTests {
    /// Every input the fuzzer ever crashed on (fixtures/fuzz) goes through its target again without crashing.
    @Test(arguments: ["audio", "model", "timeline"])
    func keptCrashingInputsNoLongerCrash(target: String) throws {
        let folder = CommandRunner.root + "/fixtures/fuzz"
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(target + "-") }.sorted()
        if target == "audio" { #expect(!inputs.isEmpty, "the first crash the fuzzer found is kept") }
        guard !inputs.isEmpty else { return }
        let running = try CommandRunner.start(inputs.map { folder + "/" + $0 }, product: "somniq-fuzz",
                                                 directory: CommandRunner.root, environment: ["SOMNIQ_FUZZ_TARGET": target])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
    }
}
