import Foundation
@testable import SomniqFeatures
import Testing

@Suite struct ContextSummaryTests {
    /// A window of `level` dBFS whose harmonicity is `harmonicity`.
    func window(level: Float, harmonicity: Float) -> FeatureVector {
        var vector = FeatureVector()
        vector[.rmsDbfs] = level
        vector[.harmonicity] = harmonicity
        return vector
    }

    func summarised(_ windows: [FeatureVector]) -> [FeatureVector] {
        var context = ContextSummary()
        return windows.map { window in
            var vector = window
            context.summarise(&vector)
            return vector
        }
    }

    @Test func averagesTheWindowsOfTheLastFourSecondsAtTheWindowsLevel() {
        let levels: [Float] = [-30, -30, -30, -30, -30, -30, -30, -30, -30]
        let values: [Float] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
        let out = summarised(zip(levels, values).map { window(level: $0, harmonicity: $1) })
        #expect(abs(out[0][.contextHarmonicityMean] - 0.1) < 1e-6, "the first window is its own context")
        #expect(out[0][.contextHarmonicityStd] == 0)
        #expect(abs(out[1][.contextHarmonicityMean] - 0.15) < 1e-6)
        // Window 8's context: windows 2...8 (seven windows, 4 s), mean 0.6, population spread 0.2.
        #expect(abs(out[8][.contextHarmonicityMean] - 0.6) < 1e-6)
        #expect(abs(out[8][.contextHarmonicityStd] - 0.2) < 1e-5)
        #expect(out[8][.contextLevelShare] == 1)
        #expect(abs(out[2][.contextLevelShare] - 3 / 7) < 1e-6, "three windows heard of the span's seven")
        #expect(out[8][.contextLevelStdDb] == 0)
    }

    @Test func aQuietWindowAfterASoundIsNotJudgedByTheSound() {
        // Four loud windows of a voiced sound, then the room: the room's windows keep to themselves.
        let windows = (0..<4).map { _ in window(level: -20, harmonicity: 0.9) }
            + (0..<3).map { _ in window(level: -60, harmonicity: 0.05) }
        let out = summarised(windows)
        #expect(abs(out[3][.contextHarmonicityMean] - 0.9) < 1e-6)
        #expect(abs(out[4][.contextHarmonicityMean] - 0.05) < 1e-6, "the first quiet window's context is itself alone")
        #expect(abs(out[4][.contextLevelShare] - 1 / 7) < 1e-6)
        #expect(abs(out[6][.contextLevelShare] - 3 / 7) < 1e-6)
        #expect(out[6][.contextLevelStdDb] > 15, "the level fell 40 dB within the span")
    }

    @Test func readsOnlyThePast() {
        let windows = (0..<20).map { index in window(level: -30 - Float(index % 3), harmonicity: Float(index) / 20) }
        let whole = summarised(windows)
        let cut = summarised(Array(windows.prefix(10)))
        for index in 0..<10 {
            #expect(whole[index].values == cut[index].values, "window \(index) does not depend on what follows it")
        }
    }

    @Test func aMissingFeatureStaysMissing() {
        var quiet = window(level: -30, harmonicity: 0.5)
        quiet[.spectralCentroidHz] = .nan
        let out = summarised([quiet, quiet])
        #expect(out[1][.contextCentroidMean].isNaN)
        #expect(out[1][.contextCentroidStd].isNaN)
        #expect(!out[1][.contextHarmonicityMean].isNaN)
    }

    @Test func contextFeaturesNeedTheBandOfWhatTheySummarise() {
        for entry in ContextSummary.summarised {
            #expect(entry.mean.requiredBandHz == entry.source.requiredBandHz, "\(entry.mean)")
            #expect(entry.spread.requiredBandHz == entry.source.requiredBandHz, "\(entry.spread)")
        }
        // At 4 kHz (a 2 kHz band), the centroid's summary is missing with the centroid.
        let missing = FeatureStream.missingFeatures(sampleRate: 4_000)
        #expect(missing.contains(.contextCentroidMean) && missing.contains(.spectralCentroidHz))
        #expect(!missing.contains(.contextHarmonicityMean))
    }
}
