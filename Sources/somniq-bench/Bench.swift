// The benchmark's stages, one per run, for scripts/bench: each reads one file and reports nothing but its
// checksum on stdout (so that no stage can be optimised away).
//   somniq-bench decode FILE     libsndfile read of the whole file into a reused buffer (mono mix-down)
//   somniq-bench resample FILE   decode and the resampling to the 8 kHz analysis rate alone (scripts/bench/resamplers)
//   somniq-bench features FILE   decode and every window's features, nothing else
//   somniq-bench pipeline FILE   the whole analysis (decode, features, classifier, all five profiles), no database
//   somniq-bench follow FILE     the default model's balanced alerts as `follow` raises them at real-time pace: the
//                                finished FILE read as a follow reads a recording in progress, an update every quarter
//                                second of audio, each minute's windows committed to a database in a temporary folder
//                                (its CPU time over FILE's length: the share of a core following takes)
//   somniq-bench classify FILE   the features of FILE, then every window classified 20 times by the default model
//                                (the classifier's cost, less the `features` stage's); the checksum folds every
//                                confidence's bits, so two builds that print the same one computed the same confidences
//   somniq-bench load FOLDER     the model folder FOLDER read and checked 10 times, as every command does once
//                                (ModelBundle.load: model.json, profiles.json); prints the classes read
//   somniq-bench wisdom          plans the sub-frame transforms of the common sample rates with FFTW_PATIENT and
//                                prints Sources/SomniqFeatures/FFTWisdom.swift (scripts/make-fftw-wisdom)
import CFFTW
import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore

@main
struct Bench {
    static func main() throws {
        let arguments = CommandLine.arguments
        if arguments.count == 2, arguments[1] == "wisdom" {
            print(wisdomSource())
            return
        }
        if arguments.count == 3, arguments[1] == "load" {
            print(try (0..<10).map { _ in try ModelBundle.load(path: arguments[2]).classifier.classes.count }.reduce(0, +))
            return
        }
        guard arguments.count == 3, ["decode", "resample", "resample-halved", "features", "pipeline", "classify", "classify8", "follow"].contains(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: somniq-bench decode|resample|resample-halved|features|pipeline|classify|follow FILE, or load MODEL-FOLDER\n".utf8))
            exit(64)
        }
        if arguments[1] == "pipeline" {
            let bundle = try ModelBundle.load(path: try ModelBundle.defaultLocation())
            let analyzer = RecordingAnalyzer(bundle: bundle)
            let data = try analyzer.analyze(path: arguments[2])
            let results = analyzer.runProfiles(bundle.profiles.profiles, on: data)
            print(results.map(\.alerts.count).reduce(0, +))
            return
        }
        if arguments[1] == "follow" {
            let bundle = try ModelBundle.load(path: try ModelBundle.defaultLocation())
            let analyzer = RecordingAnalyzer(bundle: bundle)
            var live = LiveAlerts(profile: bundle.profiles.profile(named: "balanced")!, bundle: bundle)
            var raised = 0
            let folder = NSTemporaryDirectory() + "somniq-bench-follow-\(getpid())"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let store = try AnalysisStore(path: folder + "/follow.sqlite")
            let reader = try AudioFileReader(path: arguments[2])
            let night = try FollowedNight(store: store, bundle: bundle, path: arguments[2], profile: "balanced", format: reader.format)
            let start = Date(timeIntervalSince1970: 0)
            _ = try analyzer.follow(audio: reader, updateSeconds: 0.25, minimumInterval: 0) { heard in
                try! night.commitIfDue(heard, start: start)
                raised += live.update(confidences: heard.confidences, windowCount: heard.windowCount, envelope: heard.envelope,
                                      heardSeconds: heard.heardSeconds).count
            }
            try store.close()
            print(raised)
            return
        }
        if arguments[1] == "classify" || arguments[1] == "classify8" {
            print(try classifyChecksum(path: arguments[2], repeats: 20, batched: arguments[1] == "classify8"))
            return
        }
        let reader = try AudioFileReader(path: arguments[2])
        // The features stage as the pipeline runs it: resampled to the analysis rate, then extracted.
        let stream = arguments[1] == "features" ? FeatureStream(sampleRate: reader.format.sampleRate) : nil
        let rate = reader.format.sampleRate, analysisRate = FeatureStream.analysisSampleRate
        let resampler: StreamingRateConversion? = switch arguments[1] {
        case "resample": Resampler(inputRate: rate, outputRate: analysisRate)
        case "resample-halved": RateConverter(inputRate: rate, outputRate: analysisRate)  // half-band stages first
        default: nil
        }
        let grid = AnalysisGrid(sampleRate: reader.format.sampleRate)
        var block = [Float](repeating: 0, count: grid.maximumBlockLength)
        var checksum: Double = 0
        while true {
            let got = try block.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            guard got > 0 else { break }
            if let stream {
                block.withUnsafeBufferPointer {
                    stream.consume(UnsafeBufferPointer(rebasing: $0[0..<got])) { checksum += Double($0[.spectralCentroidHz]) }
                }
            } else if let resampler {
                block.withUnsafeBufferPointer {
                    resampler.process(UnsafeBufferPointer(rebasing: $0[0..<got])) { checksum += Double($0[0]) }
                }
            } else {
                checksum += Double(block[0])
            }
            if got < block.count { break }
        }
        stream?.finish { checksum += Double($0[.spectralCentroidHz]) }
        resampler?.finish { checksum += Double($0[0]) }
        print(checksum)
    }

    /// Every window of the recording at `path` classified `repeats` times by the default model, one at a time or
    /// (`batched`, `classify8`) eight at a time as the analysis does; an FNV-1a hash of every confidence's bit pattern
    /// (the same for two builds, or the two ways, only if they computed the same confidences).
    static func classifyChecksum(path: String, repeats: Int, batched: Bool) throws -> UInt64 {
        let bundle = try ModelBundle.load(path: try ModelBundle.defaultLocation())
        let data = try RecordingAnalyzer(bundle: bundle).analyze(path: path)
        let classifier = Classifier(model: bundle.classifier)
        let width = data.featureIDs.count
        let vectors = (0..<data.windowCount).map { FeatureVector(values: Array(data.features[($0 * width)..<(($0 + 1) * width)])) }
        let batch = batched ? Classifier.batchSize : 1
        var confidences = [Float](repeating: 0, count: classifier.classCount * batch)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<repeats {
            for first in stride(from: 0, to: vectors.count, by: batch) {
                let count = min(batch, vectors.count - first), rows = count * classifier.classCount
                confidences.withUnsafeMutableBufferPointer { buffer in
                    let into = UnsafeMutableBufferPointer(rebasing: buffer[0..<rows])
                    if batched {
                        vectors[first..<(first + count)].withUnsafeBufferPointer { classifier.classify(batch: $0, into: into) }
                    } else {
                        classifier.classify(vectors[first], into: into)
                    }
                }
                for confidence in confidences[0..<rows] { hash = (hash ^ UInt64(confidence.bitPattern)) &* 0x100_0000_01b3 }
            }
        }
        return hash
    }

    /// Sample rates whose transforms the shipped wisdom covers.
    static let wisdomSampleRates = [8_000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000]

    static func wisdomSource() -> String {
        fftwf_forget_wisdom()
        let sizes = Array(Set(wisdomSampleRates.map { FeatureExtractor.fftSize(sampleRate: $0) })).sorted()
        for size in sizes {
            let real = fftwf_alloc_real(size)!, complex = fftwf_alloc_complex(size / 2 + 1)!
            let flags = UInt32(FFTW_PATIENT)
            fftwf_destroy_plan(fftwf_plan_dft_r2c_1d(Int32(size), real, complex, flags))
            fftwf_destroy_plan(fftwf_plan_dft_c2r_1d(Int32(size), complex, real, flags))
            fftwf_free(real)
            fftwf_free(complex)
        }
        let exported = fftwf_export_wisdom_to_string()!
        let wisdom = String(cString: exported)
        free(exported)
        return """
            // Generated by scripts/make-fftw-wisdom (somniq-bench wisdom); do not edit. FFTW_PATIENT plans for the
            // sub-frame transforms (forward and inverse) of \(wisdomSampleRates.map(String.init).joined(separator: ", ")) Hz:
            // sizes \(sizes.map(String.init).joined(separator: ", ")).
            enum FFTWisdom {
                static let text = \"\"\"
            \(wisdom.trimmingCharacters(in: .whitespacesAndNewlines))
            \"\"\"
            }
            """
    }
}
