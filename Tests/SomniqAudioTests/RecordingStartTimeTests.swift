import Foundation
import SomniqAudio
import Testing

@Suite struct RecordingStartTimeTests {
    @Test func parsesTheAppsFileNames() {
        #expect(RecordingStartTime.dateFromFileName("/a/b/sleep_recording_1795302000.caf") == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.dateFromFileName("sleep_recording_1795302000.5.WAV") == Date(timeIntervalSince1970: 1_795_302_000.5))
        #expect(RecordingStartTime.dateFromFileName("sleep_recording_1795302000.flac") == nil)
        #expect(RecordingStartTime.dateFromFileName("sleep_recording_.caf") == nil)
        #expect(RecordingStartTime.dateFromFileName("sleep_recording_12ab.caf") == nil)
        #expect(RecordingStartTime.dateFromFileName("night.caf") == nil)
    }

    @Test func resolvesInTheDocumentedOrder() throws {
        let folder = TemporaryFolder()
        let path = folder.file("sleep_recording_1000.wav")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        let modified = Date(timeIntervalSince1970: 5000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
        let explicit = Date(timeIntervalSince1970: 42)
        let metadata = Date(timeIntervalSince1970: 77)

        #expect(RecordingStartTime.resolve(explicit: explicit, path: path, metadataDate: metadata, durationSeconds: 10)
            == .init(date: explicit, source: .explicit))
        #expect(RecordingStartTime.resolve(explicit: nil, path: path, metadataDate: metadata, durationSeconds: 10)
            == .init(date: Date(timeIntervalSince1970: 1000), source: .fileName))

        let plain = folder.file("night.wav")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data([1])))
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: plain)
        #expect(RecordingStartTime.resolve(explicit: nil, path: plain, metadataDate: metadata, durationSeconds: 10)
            == .init(date: metadata, source: .metadata))
        #expect(RecordingStartTime.resolve(explicit: nil, path: plain, metadataDate: nil, durationSeconds: 10.25)
            == .init(date: Date(timeIntervalSince1970: 4989.75), source: .modificationTime))
    }

    @Test func readsMetadataDatesAsUTC() {
        #expect(RecordingStartTime.parseMetadataDate("2026-11-21T23:00:00") == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("2026-11-21 23:00:00") == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("2026-11-22T00:00:00+01:00") == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("last tuesday") == nil)
    }

    /// A date or zone that does not exist is refused, not rolled over (February 30 was March 2) or misprinted (year 0).
    @Test(arguments: ["0000-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-02-29T12:00:00Z", "2026-13-01T00:00:00Z",
                      "2026-11-21T24:00:00Z", "2026-11-21T23:60:00Z", "2026-11-21T23:00:00+99:00", "2026-11-21T23:00:00+14:30",
                      "2026-11-21T23:00:00", "2026-11-21 23:00:00Z"])
    func impossibleStartsAreRefused(text: String) {
        #expect(RecordingStartTime.problem(withISO8601: text) != nil)
        #expect(RecordingStartTime.parseISO8601(text) == nil)
    }

    @Test(arguments: ["2024-02-29T12:00:00Z", "2026-11-21T23:59:59.250+01:00", "2026-11-21T23:00:00-12:00", "2026-11-21T23:00:00+14:00"])
    func realStartsAreRead(text: String) {
        #expect(RecordingStartTime.problem(withISO8601: text) == nil)
        #expect(RecordingStartTime.parseISO8601(text) != nil)
    }

    @Test func readsTheDateStoredInAFile() throws {
        let folder = TemporaryFolder()
        let path = folder.file("dated.wav")
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 8000)
            writer.setDateString("2026-11-21T23:00:00")
            try writer.write(interleaved: [Float](repeating: 0, count: 800))
        }
        let reader = try AudioFileReader(path: path)
        #expect(reader.metadataStartDate == Date(timeIntervalSince1970: 1_795_302_000))
    }
}
