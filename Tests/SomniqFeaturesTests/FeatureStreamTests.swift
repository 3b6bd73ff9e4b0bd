import Foundation
import SomniqFeatures
import Testing

/// Runs a `FeatureStream` over an in-memory signal in uneven pieces, as a reader would deliver it.
func streamFeatures(_ samples: [Float], sampleRate: Int) -> [FeatureVector] {
    let stream = FeatureStream(sampleRate: sampleRate)
    var windows: [FeatureVector] = []
    var start = 0
    var piece = 997
    samples.withUnsafeBufferPointer { buffer in
        while start < samples.count {
            let end = min(samples.count, start + piece)
            stream.consume(UnsafeBufferPointer(rebasing: buffer[start..<end])) { windows.append($0) }
            start = end
            piece = piece * 7 % 5003 + 101
        }
    }
    stream.finish { windows.append($0) }
    return windows
}

/// A voiced, syllabic sound with everything below 3.5 kHz, computed at any rate from its formula (so each rate
/// holds the same sound, not a resampled copy): harmonics of 150 Hz, amplitude-modulated at 4 Hz, plus a
/// 2.2 kHz partial that comes and goes.
func voicedSound(sampleRate: Int, seconds: Double) -> [Float] {
    let count = Int(seconds * Double(sampleRate))
    return (0..<count).map { index in
        let time = Double(index) / Double(sampleRate)
        var value = 0.0
        for harmonic in 1...20 { value += sin(2 * .pi * 150 * Double(harmonic) * time + Double(harmonic)) / Double(harmonic) }
        value += 0.3 * sin(2 * .pi * 2200 * time) * max(0, sin(2 * .pi * 0.7 * time))
        return Float(0.2 * value * (1 + 0.8 * sin(2 * .pi * 4 * time)))
    }
}

@Suite struct FeatureStreamTests {
    /// Every feature of the common band, at 16, 22.05, 44.1 and 48 kHz, within 3% (or 0.05 in the feature's unit)
    /// of its value at 8 kHz, but for the roll-off, a threshold on the cumulative spectrum that may step to the next
    /// harmonic (150 Hz here); the only feature allowed to differ more is the high-band extra, which 8 kHz lacks.
    @Test(arguments: [16_000, 22_050, 44_100, 48_000])
    func aSoundGivesTheSameFeaturesAtEveryRate(sampleRate: Int) {
        let reference = streamFeatures(voicedSound(sampleRate: 8_000, seconds: 6), sampleRate: 8_000)
        let other = streamFeatures(voicedSound(sampleRate: sampleRate, seconds: 6), sampleRate: sampleRate)
        #expect(reference.count == 12 && other.count == 12)
        for (window, (a, b)) in zip(reference, other).enumerated().dropFirst().dropLast() {
            for feature in FeatureID.allCases where feature != .bandRatio4kUp {
                let x = a[feature], y = b[feature]
                let tolerance: Float = feature == .spectralRolloffHz ? 160 : 0.03 * max(abs(x), abs(y)) + 0.05
                #expect(abs(x - y) <= tolerance,
                        "\(feature.rawValue) in window \(window): \(x) at 8 kHz, \(y) at \(sampleRate) Hz")
            }
        }
        #expect(reference[3][.bandRatio4kUp].isNaN, "8 kHz has no band above 4 kHz: missing, not 0")
        #expect(other[3][.bandRatio4kUp] >= 0 && other[3][.bandRatio4kUp] < 0.01, "nothing of this sound lies above 4 kHz")
    }

    @Test func aFourKilohertzRecordingLacksTheUpperBandButKeepsTheLowOne() {
        let low = streamFeatures(voicedSound(sampleRate: 4_000, seconds: 6), sampleRate: 4_000)
        let reference = streamFeatures(voicedSound(sampleRate: 8_000, seconds: 6), sampleRate: 8_000)
        #expect(FeatureStream.missingFeatures(sampleRate: 4_000).contains(.spectralCentroidHz))
        #expect(!FeatureStream.missingFeatures(sampleRate: 4_000).contains(.bandRatio0To250))
        #expect(FeatureStream.missingFeatures(sampleRate: 8_000) == [.bandRatio4kUp])
        #expect(FeatureStream.missingFeatures(sampleRate: 44_100).isEmpty)
        for window in low {
            #expect(window[.spectralCentroidHz].isNaN && window[.mfcc3].isNaN && window[.bandRatio2kTo4k].isNaN)
            #expect(!window[.rmsDbfs].isNaN && !window[.harmonicity].isNaN && !window[.bandRatio250To500].isNaN)
            #expect(window[.melShape1].isNaN && window[.octaveFlatness6].isNaN, "the mel bands reach 4 kHz, the top octave too")
            #expect(!window[.octaveFlatness5].isNaN, "1-2 kHz lies within a 4 kHz recording's band")
        }
        // What the band has is measured as at 8 kHz (the 2.2 kHz partial is gone, so only the low shares compare).
        #expect(abs(low[4][.pitchHz] - reference[4][.pitchHz]) < 3, "pitch \(low[4][.pitchHz]) vs \(reference[4][.pitchHz])")
        #expect(abs(low[4][.bandRatio0To250] - reference[4][.bandRatio0To250]) < 0.03)
    }

    @Test func windowsFollowTheRecordingsOwnGrid() {
        for (rate, frames) in [(44_100, 44_101), (44_100, 66_150), (11_025, 2_000), (48_000, 3), (4_000, 10_001)] {
            let samples = [Float](repeating: 0.1, count: frames)
            #expect(streamFeatures(samples, sampleRate: rate).count == AnalysisGrid(sampleRate: rate).windowCount(frameCount: Int64(frames)),
                    "\(frames) frames at \(rate) Hz")
        }
    }

    /// A recorder's DC offset is no sound: a quiet voiced sound (peak about -20 dBFS) over an offset of 1% of full scale
    /// (-40 dBFS, which alone would fill the lowest band of a quiet room) gives, from the first window on, the features
    /// it gives without the offset: level within 0.2 dB; centroid, zero-crossing rate, the 0-250 Hz band, pitch and
    /// harmonicity within 3% (or 0.05 in the feature's unit). At 8 kHz and at 44.1 kHz (the offset before the resampler).
    @Test(arguments: [8_000, 44_100])
    func aRecordersOffsetIsNotHeard(sampleRate: Int) {
        let sound = voicedSound(sampleRate: sampleRate, seconds: 6).map { $0 * 0.03 }
        let clean = streamFeatures(sound, sampleRate: sampleRate)
        let offset = streamFeatures(sound.map { $0 + 0.01 }, sampleRate: sampleRate)
        #expect(clean.count == 12 && offset.count == 12)
        for (window, (a, b)) in zip(clean, offset).enumerated() {
            #expect(abs(a[.rmsDbfs] - b[.rmsDbfs]) <= 0.2, "level in window \(window): \(a[.rmsDbfs]) and \(b[.rmsDbfs]) dBFS")
            for feature in [FeatureID.spectralCentroidHz, .zeroCrossingRate, .bandRatio0To250, .pitchHz, .harmonicity] {
                let x = a[feature], y = b[feature]
                #expect(abs(x - y) <= 0.03 * max(abs(x), abs(y)) + 0.05,
                        "\(feature.rawValue) in window \(window): \(x) without the offset, \(y) with it")
            }
        }
    }

    /// An offset alone is silence, and exact zeros after it (a recorder's gate, an edit) stay digital silence: 4 s of
    /// a constant 0.02 then 4 s of zeros read under -90 dBFS in every window, where the constant alone is -34 dBFS.
    @Test func anOffsetIsNoSoundAndAGapAfterItStaysAGap() {
        let samples = [Float](repeating: 0.02, count: 64_000) + [Float](repeating: 0, count: 64_000)
        let windows = streamFeatures(samples, sampleRate: 16_000)
        #expect(windows.count == 16)
        for (index, window) in windows.enumerated() {
            #expect(window[.rmsDbfs] < -90, "window \(index): \(window[.rmsDbfs]) dBFS")
        }
    }
}
