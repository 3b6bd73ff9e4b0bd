// The benchmark's stages, one per run, for scripts/bench: each reads one file and reports nothing but its
// checksum on stdout (so that no stage can be optimised away).
//   somniq-bench decode FILE     libsndfile read of the whole file into a reused buffer (mono mix-down)
//   somniq-bench features FILE   decode and every window's features, nothing else
//   somniq-bench pipeline FILE   the whole analysis (decode, features, classifier, all five profiles), no database
import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqModel
import SomniqPipeline

@main
struct Bench {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, ["decode", "features", "pipeline"].contains(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: somniq-bench decode|features|pipeline FILE\n".utf8))
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
        let reader = try AudioFileReader(path: arguments[2])
        let extractor = arguments[1] == "features" ? FeatureExtractor(sampleRate: reader.format.sampleRate) : nil
        let grid = AnalysisGrid(sampleRate: reader.format.sampleRate)
        var block = [Float](repeating: 0, count: grid.maximumBlockLength)
        var vector = FeatureVector()
        var checksum: Double = 0
        var index: Int64 = 0
        while true {
            let length = grid.blockLength(index)
            let got = try block.withUnsafeMutableBufferPointer { try reader.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<length])) }
            guard got > 0 else { break }
            if let extractor {
                let done = block.withUnsafeBufferPointer { extractor.consume(UnsafeBufferPointer(rebasing: $0[0..<got]), into: &vector) }
                if done { checksum += Double(vector[.spectralCentroidHz]) }
            } else {
                checksum += Double(block[0])
            }
            index += 1
            if got < length { break }
        }
        if let extractor, extractor.finish(into: &vector) { checksum += Double(vector[.spectralCentroidHz]) }
        print(checksum)
    }
}
