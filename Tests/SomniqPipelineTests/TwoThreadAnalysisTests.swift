import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqPipeline
import SomniqSynth
import Testing

/// A file is analysed on three threads (decoding ahead of the analysis, `ReadAhead`, with the DC offset and, at 32 kHz and
/// below, the resampling, beside the features above; the trees as its errands, `ScoringAside`); audio in memory on one
/// (`FeatureStream.consume`), or a file on one (`threaded: false`, a batch whose jobs fill the cores). All give the same
/// features and confidences, bit for bit, at every rate the conditioning
/// treats differently: a whole ratio (16 and 48 kHz), a rational one (44.1 kHz), the analysis rate itself,
/// and a rate with the band above 4 kHz measured at its own rate (`band_ratio_4k_up`, which reads the source's block
/// power as it stood when each window completed).
@Suite struct TwoThreadAnalysisTests {
    @Test(arguments: [16_000, 48_000, 44_100, 8_000])
    func aFileAnalysesAsTheSameAudioInMemory(rate: Int) throws {
        let folder = NSTemporaryDirectory() + "somniq-two-threads-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var night = SyntheticNight(seconds: 40, sampleRate: rate, seed: 9, backgroundDbfs: -50)
        night.addSpeech(at: 3, seconds: 6, levelDbfs: -25)
        night.addCough(at: 14, levelDbfs: -20)
        night.addSmokeAlarm(at: 20, seconds: 8, levelDbfs: -22)
        night.addDoorSlam(at: 33, levelDbfs: -15)
        let path = folder + "/night.wav"
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: rate, channelCount: 1, container: .wav, encoding: .pcm16)
            try writer.write(interleaved: night.samples.map { Float(max(-1, min(1, $0))) })
        }
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let fromFile = try analyzer.analyze(path: path)
        let decoded = try AudioFileReader.readMono(path)
        let inMemory = analyzer.analyze(samples: decoded.samples, sampleRate: rate)
        #expect(fromFile.windowCount == inMemory.windowCount && fromFile.windowCount >= 79)
        #expect(fromFile.features.map(\.bitPattern) == inMemory.features.map(\.bitPattern))
        #expect(fromFile.confidences.map(\.bitPattern) == inMemory.confidences.map(\.bitPattern))
        #expect(fromFile.steadyBreathing == inMemory.steadyBreathing)
        let highBand = FeatureID.bandRatio4kUp.index
        let measured = (0..<fromFile.windowCount).map { fromFile.features[$0 * FeatureID.count + highBand] }
        #expect(rate <= 8_000 ? measured.allSatisfy(\.isNaN) : measured.contains { $0 > 0.01 }, "the high band, where there is one")

        // Commands that read only the confidences keep no feature rows (an 8-hour night's are 38 MB), and hear the same.
        let lean = try analyzer.analyze(path: path, keeping: .dropped)
        #expect(lean.features.isEmpty && lean.featureIDs.isEmpty && fromFile.featureIDs.count == FeatureID.count)
        #expect(lean.windowCount == fromFile.windowCount)
        #expect(lean.confidences.map(\.bitPattern) == fromFile.confidences.map(\.bitPattern))
        #expect(lean.steadyBreathing == fromFile.steadyBreathing)

        // Headed for the database: the stored features only, the band-by-band shape left out (the classifier had it).
        let stored = try analyzer.analyze(path: path, keeping: .spooled)
        #expect(stored.featureIDs == FeatureID.stored.map(\.rawValue) && FeatureID.stored.count == FeatureID.count - 78)
        #expect(stored.featureSpool?.width == FeatureID.stored.count && stored.featureSpool?.rowCount == fromFile.windowCount)
        #expect(stored.confidences.map(\.bitPattern) == fromFile.confidences.map(\.bitPattern))
        var rows = 0, differing = 0
        try stored.forEachFeatureBlock { first, block in
            let width = FeatureID.stored.count
            for row in 0..<(block.count / width) {
                for (column, id) in FeatureID.stored.enumerated()
                where block[row * width + column].bitPattern != fromFile.features[(first + row) * FeatureID.count + id.index].bitPattern {
                    differing += 1
                }
            }
            rows += block.count / width
        }
        #expect(rows == fromFile.windowCount && differing == 0, "\(differing) stored values differ")

        // On the calling thread alone: the same rows and confidences, in memory and headed for the database.
        let oneThread = try analyzer.analyze(path: path, threaded: false)
        #expect(oneThread.features.map(\.bitPattern) == fromFile.features.map(\.bitPattern))
        #expect(oneThread.confidences.map(\.bitPattern) == fromFile.confidences.map(\.bitPattern))
        #expect(oneThread.steadyBreathing == fromFile.steadyBreathing && oneThread.contentHash == fromFile.contentHash)
        let storedOnOne = try analyzer.analyze(path: path, keeping: .spooled, threaded: false)
        #expect(storedOnOne.confidences.map(\.bitPattern) == fromFile.confidences.map(\.bitPattern))
        var spooled: [UInt32] = [], spooledOnOne: [UInt32] = []
        try stored.forEachFeatureBlock { _, block in spooled += block.map(\.bitPattern) }
        try storedOnOne.forEachFeatureBlock { _, block in spooledOnOne += block.map(\.bitPattern) }
        #expect(!spooled.isEmpty && spooledOnOne == spooled)
    }
}
