// Fuzz targets, built by scripts/fuzz with libFuzzer (-sanitize=fuzzer -DFUZZING). SOMNIQ_FUZZ_TARGET picks one:
//   model  - model.json and profiles.json decoding and checking;
//   audio  - an audio file (mutated WAV/CAF headers and data) through the reader and the feature extractor;
//   timeline - arbitrary bytes as a level envelope and window confidences through event finding, bouts and the
//              timing of episodes under every profile (models/rules, from the repository root).
// Any input must give a result or a typed error; a trap is a bug, and libFuzzer keeps the input.
import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel

enum FuzzTarget: String {
    case model, audio, timeline

    static let rules = try? ModelBundle.load(path: "models/rules")

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
            guard FileManager.default.createFile(atPath: Self.scratchPath, contents: data),
                  let reader = try? AudioFileReader(path: Self.scratchPath) else { return }
            // The features as the pipeline computes them (resampled to the analysis rate); bound the work per input,
            // as a header may promise hours. A feature the recording's band lacks is NaN by design; no other may be.
            let stream = FeatureStream(sampleRate: reader.format.sampleRate)
            let missing = Set(stream.missingFeatures)
            func check(_ vector: FeatureVector) {
                for id in FeatureID.allCases where !missing.contains(id) && !vector[id].isFinite {
                    fatalError("non-finite \(id.rawValue) from finite audio")
                }
            }
            var block = [Float](repeating: 0, count: AnalysisGrid(sampleRate: reader.format.sampleRate).maximumBlockLength)
            var chunks = 0
            while chunks < 40 {
                guard let got = try? block.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }), got > 0 else { break }
                block.withUnsafeBufferPointer { stream.consume(UnsafeBufferPointer(rebasing: $0[0..<got])) { check($0) } }
                chunks += 1
                if got < block.count { break }
            }
            stream.finish { check($0) }
        case .timeline:
            guard let bundle = Self.rules, data.count >= 2 else { return }
            let bytes = [UInt8](data)
            let windowCount = Int(bytes[0]) + 1
            let classCount = bundle.classifier.classes.count
            let envelope = LevelEnvelope(codes: (0..<(windowCount * 50 + 50)).map { bytes[1 + $0 % (bytes.count - 1)] })
            let confidences = (0..<(windowCount * classCount)).map { Float(bytes[($0 * 7 + 3) % bytes.count]) / 255 }
            let timeline = RecordingTimeline(envelope: envelope, model: bundle.classifier, confidences: confidences, windowCount: windowCount)
            for profile in bundle.profiles.profiles {
                let result = ProfileRunner.run(profile: profile, bundle: bundle, confidences: confidences, windowCount: windowCount,
                                               durationSeconds: Double(windowCount) / 2 + 0.5, timeline: timeline)
                for episode in result.episodes where !(episode.startSeconds <= episode.endSeconds) {
                    fatalError("episode ends before it starts: \(episode)")
                }
            }
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
