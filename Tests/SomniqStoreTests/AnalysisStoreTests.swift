import Foundation
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqStore
import Testing

let storeModelBundle = try! ModelBundle.load(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path + "/models/default")

/// A small recording: 20 windows, snoring confident in windows 4–15, silence elsewhere; with a content hash, also the
/// size (100 bytes) and modification time (1000) of the file it was read from.
func sampleData(path: String = "/nights/a.wav", contentHash: String? = nil) -> RecordingData {
    let classIDs = storeModelBundle.classifier.classIDs
    let snoring = classIDs.firstIndex(of: "snoring")!
    let silence = classIDs.firstIndex(of: "silence")!
    var confidences = [Float](repeating: 0, count: 20 * classIDs.count)
    for window in 0..<20 {
        confidences[window * classIDs.count + ((4...15).contains(window) ? snoring : silence)] = 0.95
        confidences[window * classIDs.count + classIDs.firstIndex(of: "rain")!] = 0.1
    }
    let featureIDs = ["rms_dbfs", "snr_db"]
    let features = (0..<20).flatMap { [Float(-40 + $0), Float($0)] }
    var data = RecordingData(path: path, container: "WAV", encoding: "PCM_16", sampleRate: 16_000, channelCount: 1,
                             frameCount: 164_000, durationSeconds: 10.25, startMilliseconds: 1_795_302_000_000,
                             startSource: "file-name", windowCount: 20, featureIDs: featureIDs, features: features,
                             classIDs: classIDs, confidences: confidences)
    if let contentHash {
        data.contentHash = contentHash
        data.fileSize = 100
        data.fileModified = 1000
    }
    return data
}

func results(for data: RecordingData) -> [ProfileResult] {
    storeModelBundle.profiles.profiles.map {
        ProfileRunner.run(profile: $0, bundle: storeModelBundle, confidences: data.confidences, windowCount: data.windowCount,
                          durationSeconds: data.durationSeconds)
    }
}

@Suite struct AnalysisStoreTests {
    @Test func storesEveryTableAndReadsConfidencesBackExactly() throws {
        let store = try AnalysisStore.inMemory()
        let data = sampleData()
        let profileResults = results(for: data)
        let id = try store.save(data, bundle: storeModelBundle, results: profileResults).recordingID
        #expect(try store.count("windows", recordingID: id) == 20)
        #expect(try store.count("detections", recordingID: id) == 12,
                "snoring in windows 4–15; silence (the other windows) is no detection; rain's 0.1 is below the floor")
        #expect(try store.detections(recordingID: id).allSatisfy { $0.classID == "snoring" })
        #expect(try store.count("profile_runs", recordingID: id) == 5)
        let alerts = try store.alerts(recordingID: id)
        let episodes = try store.episodes(recordingID: id)
        #expect(alerts.count == profileResults.map(\.alerts.count).reduce(0, +))
        #expect(episodes.count == profileResults.map(\.episodes.count).reduce(0, +))
        #expect(!episodes.isEmpty)
        #expect(Set(episodes.map(\.classID)) == ["snoring"])
        for alert in alerts { #expect(episodes.contains { $0.id == alert.episodeID && $0.profile == alert.profile }) }

        let stored = try store.confidences(recordingID: id)
        #expect(stored.classIDs == data.classIDs)
        #expect(stored.windowCount == 20)
        #expect(stored.values == data.confidences)

        let recording = try #require(try store.recording(id: id))
        #expect(recording.status == "complete")
        #expect(recording.startUTC == "2026-11-21T23:00:00.000Z")
        #expect(recording.startSource == "file-name")
        #expect(recording.modelVersion == storeModelBundle.classifier.version)
        let balanced = episodes.first { $0.profile == "balanced" }!
        #expect(balanced.startUTC == UTCTimestamp.format(milliseconds: 1_795_302_000_000 + Int64(balanced.startOffsetSeconds * 1000)))
        #expect(balanced.endOffsetSeconds <= 10.25)
    }

    /// The batch works out a recording's timeline and profiles while the store writes its windows: what the store keeps
    /// of them is what `completion` gives, not the recording it began with (which has no timeline yet).
    @Test func aDeferredSaveKeepsWhatItsCompletionGives() throws {
        let store = try AnalysisStore.inMemory()
        let early = sampleData()
        var timed = early
        var envelope = LevelEnvelope()
        for _ in 0..<1_025 { envelope.append(dbfs: -60) }
        timed.envelope = envelope
        timed.timeline = RecordingTimeline(envelope: envelope, model: storeModelBundle.classifier, confidences: timed.confidences,
                                           windowCount: timed.windowCount)
        let profileResults = results(for: timed)
        var asked = 0
        let id = try store.save(early, bundle: storeModelBundle, profiles: profileResults.map(\.profile), completion: {
            asked += 1
            return (timed, profileResults)
        }).recordingID
        #expect(asked >= 1)
        #expect(try store.count("windows", recordingID: id) == 20)
        #expect(try store.count("profile_runs", recordingID: id) == 5)
        #expect(try store.count("episodes", recordingID: id) == profileResults.map(\.episodes.count).reduce(0, +))
        #expect(try store.nightSummary(recordingID: id) != nil, "the night summary is read from the completed timeline")

        let plain = try AnalysisStore.inMemory()
        let plainID = try plain.save(early, bundle: storeModelBundle, results: profileResults).recordingID
        #expect(try plain.nightSummary(recordingID: plainID) == nil, "without a timeline there is no night summary")
    }

    @Test func reanalysingAPathReplacesItsRows() throws {
        let store = try AnalysisStore.inMemory()
        let data = sampleData()
        try store.save(data, bundle: storeModelBundle, results: results(for: data))
        let second = try store.save(data, bundle: storeModelBundle, results: results(for: data)).recordingID
        #expect(try store.recordings().map(\.id) == [second])
        #expect(try store.count("windows") == 20)
    }

    /// A failed attempt (the file cut short in place, a read refused during --reanalyze) is recorded beside a good
    /// analysis and never removes it; a later failure replaces the earlier failure; a later success replaces both.
    @Test func aFailedAttemptNeverRemovesAGoodAnalysis() throws {
        let store = try AnalysisStore.inMemory()
        let data = sampleData()
        let good = try store.save(data, bundle: storeModelBundle, results: results(for: data)).recordingID
        for reason in ["cut short", "permission denied"] {
            try store.saveFailure(filePath: "/nights/a.wav", code: "truncated", message: reason)
            let rows = try store.recordings()
            #expect(rows.map(\.status) == ["complete", "failed"])
            #expect(rows[1].errorMessage == reason)
            #expect(try store.recordingID(forPath: "/nights/a.wav") == good)
            #expect(try store.count("windows") == 20, "the good analysis is whole")
        }
        try store.save(data, bundle: storeModelBundle, results: results(for: data), replacing: true)
        #expect(try store.recordings().map(\.status) == ["complete"])

        // With nothing good stored, the failure is all there is.
        try store.saveFailure(filePath: "/nights/b.wav", code: "truncated", message: "cut short")
        #expect(try store.recordingID(forPath: "/nights/b.wav") == nil)
        #expect(try store.recordings().filter { $0.path == "/nights/b.wav" }.map(\.status) == ["failed"])
    }

    @Test func theSameAudioIsOneRecordingWhereverItIs() throws {
        let store = try AnalysisStore.inMemory()
        let data = sampleData(path: "/nights/a.wav", contentHash: "abc")
        let balanced = results(for: data).filter { $0.profile == "balanced" }
        let first = try store.save(data, bundle: storeModelBundle, results: balanced)
        guard case .stored(let id) = first else { Issue.record("expected a new recording"); return }

        // Moved: the same audio under another path is recognised; missing profiles are added.
        var moved = data
        moved.path = "/archive/a.wav"
        let again = try store.save(moved, bundle: storeModelBundle, results: results(for: moved))
        #expect(again == .alreadyStored(id, previousPath: "/nights/a.wav"))
        #expect(try store.recordings().map(\.path) == ["/archive/a.wav"])
        #expect(try store.count("profile_runs") == 5)
        #expect(try store.count("windows") == 20)
        #expect(try store.completeAnalysis(path: "/archive/a.wav", fileSize: 100, fileModified: 1000)?.id == id)
        #expect(try store.completeAnalysis(path: "/archive/a.wav", fileSize: 100, fileModified: 1001) == nil, "a changed file is not skipped")
        #expect(try store.completeAnalysis(contentHash: "abc")?.profiles.count == 5)

        // Replacing (--reanalyze) stores it afresh, still once.
        let replaced = try store.save(moved, bundle: storeModelBundle, results: balanced, replacing: true)
        guard case .stored = replaced else { Issue.record("expected a fresh analysis"); return }
        #expect(try store.count("recordings") == 1)

        // Profiles added later from the stored confidences.
        let stored = try #require(try store.recordingData(id: replaced.recordingID))
        #expect(stored.confidences == data.confidences)
        #expect(stored.startMilliseconds == data.startMilliseconds)
        try store.addProfiles(results(for: stored), to: stored, recordingID: replaced.recordingID)
        #expect(try store.count("profile_runs") == 5)
        #expect(try store.alerts(recordingID: replaced.recordingID).count == results(for: data).map(\.alerts.count).reduce(0, +))
    }

    /// Night tags are kept by the audio's identity. The same file analysed again under another hashing of its audio
    /// (16-bit Apple Lossless, hashed as floats before 3.5.0) keeps its tags; another recording written to the same path
    /// (a recorder that names every night alike) does not inherit them.
    @Test func tagsFollowTheSameFileWhoseIdentityWasHashedAnotherWay() throws {
        let store = try AnalysisStore.inMemory()
        var data = sampleData(path: "/nights/tonight.caf", contentHash: "hashed-as-floats")
        let first = try store.save(data, bundle: storeModelBundle, results: results(for: data)).recordingID
        try store.changeTags(recordingID: first, adding: ["mouthguard"], removing: [])

        data.contentHash = "hashed-as-integers"
        let rehashed = try store.save(data, bundle: storeModelBundle, results: results(for: data)).recordingID
        #expect(try store.tags(recordingID: rehashed) == ["mouthguard"])

        data.contentHash = "the next night"
        data.fileModified = 87_400
        let next = try store.save(data, bundle: storeModelBundle, results: results(for: data)).recordingID
        #expect(try store.tags(recordingID: next).isEmpty, "a new night at the same path starts untagged")
        #expect(try store.count("recordings") == 1)
    }

    /// A signal handler interrupts the store (`merge`, `analyze` on SIGINT) whenever the signal comes, also between two
    /// statements; SQLite keeps such an interruption pending for the next statement. Closing must still fold the log into
    /// the file and leave it alone, with every row saved before.
    @Test func aStoreInterruptedBetweenStatementsStillClosesIntoOneFile() throws {
        let folder = NSTemporaryDirectory() + "somniq-interrupted-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/study.sqlite"
        let store = try AnalysisStore(path: path)
        let data = sampleData()
        _ = try store.save(data, bundle: storeModelBundle, results: results(for: data))
        store.interrupt()
        #expect(try store.close())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["study.sqlite"])
        #expect(try AnalysisStore(path: path).count("windows") == 20)
    }

    @Test func reportsAnUnopenableDatabase() {
        #expect(throws: StoreError.self) { try AnalysisStore(path: "/nonexistent-folder/x/somniq.sqlite") }
    }
}

@Suite struct UTCTimestampTests {
    @Test func formatsMilliseconds() {
        #expect(UTCTimestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.format(milliseconds: 1_795_302_000_500) == "2026-11-21T23:00:00.500Z")
        #expect(UTCTimestamp.format(milliseconds: 1_709_164_799_999) == "2024-02-28T23:59:59.999Z")
        #expect(UTCTimestamp.format(milliseconds: 1_709_164_800_000) == "2024-02-29T00:00:00.000Z")
        #expect(UTCTimestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCTimestamp.milliseconds(startMilliseconds: 1000, offsetSeconds: 0.0005) == 1001)
    }

    /// A moment as a zone's wall clock shows it, with the offset that zone had then.
    @Test func formatsInAZone() {
        let zone = { (name: String) in TimeZone(identifier: name)! }
        #expect(UTCTimestamp.format(milliseconds: 1_795_302_000_500, in: zone("Europe/Berlin")) == "2026-11-22T00:00:00.500+01:00")
        #expect(UTCTimestamp.format(milliseconds: 1_782_000_000_000, in: zone("Europe/Berlin")) == "2026-06-21T02:00:00.000+02:00")
        #expect(UTCTimestamp.format(milliseconds: 1_795_302_000_500, in: zone("America/St_Johns")) == "2026-11-21T19:30:00.500-03:30")
        #expect(UTCTimestamp.format(milliseconds: 1_795_302_000_500, in: zone("UTC")) == "2026-11-21T23:00:00.500+00:00")
        // Each reads back, through Foundation's parser, as the same moment.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for name in ["Asia/Kolkata", "America/Los_Angeles", "Pacific/Chatham"] {
            #expect(formatter.date(from: UTCTimestamp.format(milliseconds: 1_795_302_000_500, in: zone(name)))
                    == Date(timeIntervalSince1970: 1_795_302_000.5), "\(name)")
        }
    }

    @Test func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for step in 0..<200 {
            let milliseconds = -2_000_000_000_000 + Int64(step) * 29_999_999_937
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(formatter.date(from: UTCTimestamp.format(milliseconds: milliseconds)) == date)
        }
    }

    @Test func floatBlobsRoundTrip() {
        let values: [Float] = [0, -1.5, .pi, 1e-30, 3.4e38]
        #expect(FloatBlob.decode(FloatBlob.encode(values)) == values)
        #expect(FloatBlob.encode([Float(1)]) == Data([0x00, 0x00, 0x80, 0x3F]))
    }
}

@Suite struct FeatureSpoolTests {
    @Test func readsBackEveryRowInOrderAcrossBlocks() throws {
        let spool = try #require(FeatureSpool(width: 3))
        let rows = 2 * 1024 + 77  // two written blocks and rows still pending
        for row in 0..<rows { spool.append([Float(row), Float(-row), 0.5]) }
        #expect(spool.rowCount == rows)
        var next = 0
        try spool.forEachBlock { first, values in
            #expect(first == next)
            #expect(values.count % 3 == 0)
            for offset in 0..<(values.count / 3) {
                #expect(values[3 * offset] == Float(first + offset) && values[3 * offset + 1] == -Float(first + offset))
            }
            next += values.count / 3
        }
        #expect(next == rows)
    }

    @Test func cannotBeMadeInAFolderThatIsNotThere() {
        #expect(FeatureSpool(width: 2, directory: "/nonexistent-\(UUID().uuidString)") == nil)
    }

    /// A night analysed for the database keeps its features in a spool: what is stored must be what the same
    /// rows in memory store.
    @Test func aSpooledRecordingStoresTheSameWindows() throws {
        let windows = 2_500
        let classIDs = storeModelBundle.classifier.classIDs
        let features = (0..<windows).flatMap { [Float(-60 + $0 % 50), Float($0 % 17)] }
        var confidences = [Float](repeating: 0.05, count: windows * classIDs.count)
        let snoring = classIDs.firstIndex(of: "snoring")!
        for window in stride(from: 0, to: windows, by: 7) { confidences[window * classIDs.count + snoring] = 0.9 }
        func data(spooled: Bool) throws -> RecordingData {
            var spool: FeatureSpool?
            if spooled {
                spool = FeatureSpool(width: 2)
                #expect(spool != nil, "a spool in the temporary folder")
                for window in 0..<windows { spool!.append(Array(features[(2 * window)..<(2 * window + 2)])) }
            }
            return RecordingData(path: "/nights/long.wav", container: "WAV", encoding: "PCM_16", sampleRate: 16_000,
                                 channelCount: 1, frameCount: Int64(windows) * 8_000, durationSeconds: Double(windows) / 2,
                                 startMilliseconds: 1_795_302_000_000, startSource: "file-name", windowCount: windows,
                                 featureIDs: ["rms_dbfs", "snr_db"], features: spooled ? [] : features, classIDs: classIDs,
                                 confidences: confidences, featureSpool: spool)
        }
        var stored: [[WindowRecord]] = []
        for spooled in [false, true] {
            let store = try AnalysisStore.inMemory()
            let recording = try data(spooled: spooled)
            let id = try store.save(recording, bundle: storeModelBundle, results: results(for: recording)).recordingID
            stored.append(try store.windows(recordingID: id))
            #expect(try store.count("detections", recordingID: id) == (windows + 6) / 7)
        }
        #expect(stored[0].count == windows)
        #expect(stored[1] == stored[0])
        #expect(stored[1][2_049].rmsDbfs == Double(-60 + 2_049 % 50) && stored[1][2_049].snrDb == Double(2_049 % 17))
    }
}
