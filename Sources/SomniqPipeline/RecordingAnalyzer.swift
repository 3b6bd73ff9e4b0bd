import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqStore

/// Decodes and classifies one recording: audio file in, per-window features and class
/// confidences out. Decoding streams block by block; nothing of the audio is kept.
public struct RecordingAnalyzer: Sendable {
    public let bundle: ModelBundle
    private let classifier: Classifier

    public init(bundle: ModelBundle) {
        self.bundle = bundle
        classifier = Classifier(model: bundle.classifier)
    }

    /// Analyses the file at `path`.
    /// - Parameters:
    ///   - explicitStart: the recording's start time, overriding what the file name or metadata say.
    ///   - isCancelled: asked every few seconds of audio; when it says yes, decoding stops with `.interrupted`.
    ///   - progress: called now and then with the fraction of the file decoded.
    ///   - spoolFeatures: keep the feature rows in a temporary file (`RecordingData.featureSpool`) rather than in
    ///     memory, so that memory does not grow with the recording (for analyses headed for the database).
    public func analyze(path: String, explicitStart: Date? = nil, isCancelled: (() -> Bool)? = nil,
                        progress: ((Double) -> Void)? = nil, spoolFeatures: Bool = false) throws(AudioFileError) -> RecordingData {
        let absolutePath = URL(fileURLWithPath: path).standardizedFileURL.path
        let reader = try AudioFileReader(path: absolutePath)
        let format = reader.format
        let start = RecordingStartTime.resolve(explicit: explicitStart, path: absolutePath,
                                               metadataDate: reader.metadataStartDate,
                                               durationSeconds: format.durationSeconds)
        let extractor = FeatureExtractor(sampleRate: format.sampleRate)
        let grid = extractor.grid
        let expectedWindows = grid.windowCount(frameCount: format.frameCount)
        let classCount = classifier.classCount
        let spool = spoolFeatures ? FeatureSpool(width: FeatureID.count) : nil
        var features = [Float]()
        if spool == nil { features.reserveCapacity(expectedWindows * FeatureID.count) }
        var confidences = [Float](repeating: 0, count: expectedWindows * classCount)
        var vector = FeatureVector()
        var windowCount = 0

        func emit() {
            if let spool { spool.append(vector.values) } else { features.append(contentsOf: vector.values) }
            confidences.withUnsafeMutableBufferPointer { buffer in
                let row = UnsafeMutableBufferPointer(rebasing: buffer[(windowCount * classCount)..<((windowCount + 1) * classCount)])
                classifier.classify(vector, into: row)
            }
            windowCount += 1
        }

        var block = [Float](repeating: 0, count: grid.maximumBlockLength)
        var blockIndex: Int64 = 0
        let progressEvery: Int64 = 1200  // blocks: every ten minutes of audio
        while true {
            let length = grid.blockLength(blockIndex)
            let got = try block.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<length]))
            }
            guard got > 0 else { break }
            let completed = block.withUnsafeBufferPointer { buffer in
                extractor.consume(UnsafeBufferPointer(rebasing: buffer[0..<got]), into: &vector)
            }
            if completed { emit() }
            blockIndex += 1
            if let progress, blockIndex % progressEvery == 0 {
                progress(Double(reader.position) / Double(format.frameCount))
            }
            if let isCancelled, blockIndex % 20 == 0, isCancelled() { throw .interrupted(path: absolutePath) }
            if got < length { break }
        }
        if extractor.finish(into: &vector) { emit() }
        precondition(windowCount == expectedWindows, "window count \(windowCount) differs from the grid's \(expectedWindows)")

        let attributes = try? FileManager.default.attributesOfItem(atPath: absolutePath)
        var data = RecordingData(
            path: absolutePath, container: format.container, encoding: format.encoding, sampleRate: format.sampleRate,
            channelCount: format.channelCount, frameCount: format.frameCount, durationSeconds: format.durationSeconds,
            startMilliseconds: Int64((start.date.timeIntervalSince1970 * 1000).rounded()), startSource: start.source.rawValue,
            windowCount: windowCount, featureIDs: FeatureID.allCases.map(\.rawValue), features: features,
            classIDs: bundle.classifier.classIDs, confidences: confidences, featureSpool: spool)
        data.contentSHA256 = reader.contentSHA256
        data.fileSize = (attributes?[.size] as? NSNumber)?.int64Value
        data.fileModified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970
        return data
    }

    /// Runs `profiles` on the recording's per-window confidences (no decoding).
    public func runProfiles(_ profiles: [SensitivityProfile], on data: RecordingData) -> [ProfileResult] {
        profiles.map { profile in
            ProfileRunner.run(profile: profile, bundle: bundle, confidences: data.confidences,
                              windowCount: data.windowCount, durationSeconds: data.durationSeconds)
        }
    }
}
