// Fuzz targets, built by scripts/fuzz with libFuzzer (-sanitize=fuzzer -DFUZZING). SOMNIQ_FUZZ_TARGET picks one:
//   model  - model.json and profiles.json decoding and checking;
//   audio  - an audio file (mutated WAV/CAF headers and data) through the reader and the feature extractor.
// Any input must give a result or a typed error; a trap is a bug, and libFuzzer keeps the input.
import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqModel

enum FuzzTarget: String {
    case model, audio

    static let selected = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["SOMNIQ_FUZZ_TARGET"] ?? "model") ?? .model

    /// One scratch file per process, on a memory-backed folder when there is one.
    static let scratchPath: String = {
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return "\(folder)/somniq-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
    }()

    func run(_ data: Data) {
        switch self {
        case .model:
            _ = try? JSONDecoder().decode(ClassifierModel.self, from: data)
            _ = try? JSONDecoder().decode(ProfileSet.self, from: data)
        case .audio:
            FileManager.default.createFile(atPath: Self.scratchPath, contents: data)
            guard let reader = try? AudioFileReader(path: Self.scratchPath) else { return }
            // Bound the work per input: a header may promise hours.
            let extractor = FeatureExtractor(sampleRate: reader.format.sampleRate)
            var vector = FeatureVector()
            var block = [Float](repeating: 0, count: extractor.grid.maximumBlockLength)
            var index: Int64 = 0
            while index < 40 {
                let length = extractor.grid.blockLength(index)
                guard let got = try? block.withUnsafeMutableBufferPointer({ buffer in
                    try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<length]))
                }), got > 0 else { break }
                _ = block.withUnsafeBufferPointer { extractor.consume(UnsafeBufferPointer(rebasing: $0[0..<got]), into: &vector) }
                for value in vector.values where !value.isFinite { fatalError("non-finite feature from finite audio") }
                index += 1
                if got < length { break }
            }
            _ = extractor.finish(into: &vector)
        }
    }
}

#if FUZZING
/// libFuzzer's driver, for a program whose `main` is its own (SwiftPM names an executable's entry point).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("somniq_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { start, size in
        FuzzTarget.selected.run(start.map { Data(bytes: $0, count: size) } ?? Data())
        return 0
    }
}
#else
/// Without libFuzzer, replays the files named on the command line through the selected target (a crash
/// input kept by scripts/fuzz, say).
@main
struct FuzzReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            FuzzTarget.selected.run(data)
        }
    }
}
#endif
