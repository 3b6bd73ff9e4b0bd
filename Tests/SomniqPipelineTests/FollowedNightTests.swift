import Foundation
import SomniqAudio
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore
import Testing

/// A night followed live is stored as it is heard (#48): a minute at a time, resumed by a follow begun again, and
/// replaced by the complete analysis.
@Suite struct FollowedNightTests {
    let analyzer = RecordingAnalyzer(bundle: bundle)
    let start = Date(timeIntervalSince1970: 1_795_302_000)

    /// Follows the sample night as `follow` does (an update every quarter second of audio) into `night`, stopping
    /// after `seconds` of audio when given; returns the window counts of the partial night after each update.
    @discardableResult
    func follow(_ night: FollowedNight, path: String = sampleNight, upTo seconds: Double? = nil, raising: (RecordingAnalyzer.Heard) -> Void = { _ in })
        throws -> [Int] {
        let reader = try AudioFileReader(path: path)
        var stored: [Int] = []
        var stopped = false
        _ = try analyzer.follow(audio: reader, minimumInterval: 0) { heard in
            guard !stopped else { return }
            if let seconds, heard.heardSeconds >= seconds { stopped = true; return }
            try! night.check(heard)
            try! night.commitIfDue(heard, start: start)
            raising(heard)
            stored.append((try? night.store.partialNight(path: night.path)?.windowCount) ?? 0)
        }
        return stored
    }

    func write(_ samples: [Float], rate: Int, to path: String) throws {
        let writer = try AudioFileWriter(path: path, sampleRate: rate)
        try writer.write(interleaved: samples)
        try writer.close()
    }

    func night(_ store: AnalysisStore, path: String = sampleNight, channel: Int? = nil) throws -> FollowedNight {
        try FollowedNight(store: store, bundle: bundle, path: path, profile: "balanced",
                          format: AudioFileReader(path: sampleNight).format, channel: channel)
    }

    @Test func aMinuteAtATimeTheWindowsAnalyseStores() throws {
        let store = try AnalysisStore.inMemory()
        let stored = try follow(try night(store))
        // Nothing before the first minute of audio; then the windows heard, a minute of audio at a time (117-120
        // windows a step: what was heard by the update that crossed the minute).
        #expect(stored.first == 0)
        let steps = Array(Set(stored)).sorted()
        let complete = try analyzer.analyze(path: sampleNight, explicitStart: start)
        #expect(steps.count >= Int(complete.durationSeconds / 60), "\(steps)")
        for (earlier, later) in zip(steps, steps.dropFirst()) { #expect((116...122).contains(later - earlier), "\(steps)") }
        #expect(complete.windowCount - (steps.last ?? 0) < 120, "at most a minute of the night not yet stored")
        // The windows stored are those the complete analysis stores, row for row.
        let partial = try #require(try store.partialNight(path: sampleNight))
        let whole = try AnalysisStore.inMemory()
        let wholeID = try whole.save(complete, bundle: bundle, results: []).recordingID
        let theirs = try whole.windows(recordingID: wholeID)
        let ours = try store.windows(recordingID: partial.id)
        #expect(ours.count == steps.last && ours.count > 0)
        #expect(ours == Array(theirs.prefix(ours.count)))
        #expect(try store.recordings().map(\.status) == ["partial"])
        // The complete analysis replaces it.
        try store.save(complete, bundle: bundle, results: [])
        #expect(try store.recordings().map(\.status) == ["complete"])
        #expect(try store.partialNight(path: sampleNight) == nil)
    }

    @Test func aFollowBegunAgainResumesAndRaisesNoAlertTwice() throws {
        let store = try AnalysisStore.inMemory()
        let first = try night(store)
        try follow(first, upTo: 130) { heard in
            if heard.windowCount == 20 {
                try! first.noteRaised(classID: "snoring", kind: "onset", windowIndex: 19, tier: "medium", offsetSeconds: 10.5,
                                      utc: "2026-11-27T23:00:10.500Z", confidence: 0.8)
            }
        }
        let resumed = try night(store)
        #expect(resumed.resumedWindows > 230 && resumed.resumedWindows < 242)
        #expect(resumed.resumedStart == start)
        #expect(!resumed.shouldRaise(classID: "snoring", kind: "onset", windowIndex: 19))
        #expect(resumed.shouldRaise(classID: "snoring", kind: "onset", windowIndex: 20))
        #expect(resumed.shouldRaise(classID: "cough", kind: "onset", windowIndex: 19))
        let id = try #require(try store.partialNight(path: sampleNight)).id
        try follow(resumed)
        #expect(!resumed.discardedStaleNight)
        // The same row, now holding the whole night as the first follow's windows would have gone on.
        let partial = try #require(try store.partialNight(path: sampleNight))
        #expect(partial.id == id && partial.raised.count == 1)
        let complete = try analyzer.analyze(path: sampleNight, explicitStart: start)
        let whole = try AnalysisStore.inMemory()
        let wholeID = try whole.save(complete, bundle: bundle, results: []).recordingID
        let ours = try store.windows(recordingID: id)
        #expect(ours == Array(try whole.windows(recordingID: wholeID).prefix(ours.count)))
        #expect(ours.count > 400)
    }

    @Test func aFileThatNowHoldsOtherAudioIsStoredAfresh() throws {
        let scratch = NSTemporaryDirectory() + "somniq-followed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // The same path, first holding the sample night, then the same night 3 dB quieter.
        let path = scratch + "/bedside.wav"
        let (samples, rate) = try AudioFileReader.readMono(sampleNight)
        try write(samples, rate: rate, to: path)
        let store = try AnalysisStore.inMemory()
        let first = try night(store, path: path)
        try follow(first, path: path, upTo: 70)
        try first.noteRaised(classID: "snoring", kind: "onset", windowIndex: 19, tier: "medium", offsetSeconds: 10.5,
                             utc: "2026-11-27T23:00:10.500Z", confidence: 0.8)
        let staleID = try #require(try store.partialNight(path: path)).id
        try write(samples.map { $0 * 0.7 }, rate: rate, to: path)
        let second = try night(store, path: path)
        #expect(second.resumedWindows > 100)
        #expect(!second.shouldRaise(classID: "snoring", kind: "onset", windowIndex: 19))
        try follow(second, path: path, upTo: 70)
        #expect(second.discardedStaleNight)
        let fresh = try #require(try store.partialNight(path: path))
        #expect(fresh.id != staleID && fresh.raised.isEmpty)
        #expect(try store.recordings().count == 1)
    }

    /// A night heard on one channel (`follow --channel`) is stored as that channel's, resumed only by a follow of the
    /// same channel; a follow of the mix (or of another channel) begins the night afresh, as it would for other audio.
    @Test func aNightHeardOnOneChannelIsResumedOnlyOnIt() throws {
        let store = try AnalysisStore.inMemory()
        try follow(try night(store, channel: 2), upTo: 70)
        let stored = try #require(try store.partialNight(path: sampleNight))
        #expect(stored.channel == 2 && stored.windowCount > 100)
        #expect(try store.recordings().first?.channel == 2)

        let sameChannel = try night(store, channel: 2)
        #expect(sameChannel.resumedWindows == stored.windowCount && !sameChannel.discardedStaleNight)

        let mixed = try night(store)
        #expect(mixed.resumedWindows == 0 && mixed.discardedStaleNight)
        #expect(try store.partialNight(path: sampleNight) == nil, "the channel's night is dropped, not continued with the mix")
        try follow(mixed, upTo: 70)
        #expect(try store.partialNight(path: sampleNight)?.channel == nil)
        #expect(try store.recordings().count == 1)
    }
}
