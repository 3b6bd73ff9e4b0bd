import Foundation
import SomniqAudio
import SomniqPipeline
import SomniqStore
import Testing

/// Nights named by their files' dates but dated by a copy (`NamedNightDate`): where such a night is asked for by its
/// date and none began then, the error names the recordings meant and how to date them.
@Suite struct NamedNightDateTests {
    /// Stores the sample night's analysis under each of `paths`, dated by a copy made on 2026-12-02 at 10:00 UTC, the night of 2026-12-01 (one
    /// hash each, as distinct recordings).
    func store(_ paths: [String], startSource: RecordingStartTime.Source = .modificationTime) throws -> AnalysisStore {
        let store = try AnalysisStore.inMemory()
        let analysed = try RecordingAnalyzer(bundle: bundle).analyze(path: sampleNight)
        for (index, path) in paths.enumerated() {
            var data = analysed
            data.path = path
            data.contentSHA256 = String(repeating: String(index), count: 64)
            data.startSource = startSource.rawValue
            data.startMilliseconds = 1_796_205_600_000 + Int64(index) * 60_000
            try store.save(data, bundle: bundle, results: [])
        }
        return store
    }

    @Test func theRecordingsNamedForTheNightAskedAreNamedWithTheirIds() throws {
        let utc = TimeZone(identifier: "UTC")!
        let store = try store(["/n/night_2026_11_27.wav", "/n/night_2026_11_27_part2.wav", "/n/night_2026_11_28.wav", "/n/bedside.wav"])
        let recordings = try store.recordings()
        let two = try #require(NamedNightDate.misdatedHint(night: "2026-11-27", among: recordings, timeZone: utc, db: "s.sqlite"))
        #expect(two.hasPrefix("2 recordings are named for that night (ids 1, 2), but their starts were taken from the files' modification "
                              + "times, which copying resets, so they are stored as the night of 2026-12-01: name them by their ids, or "
                              + "give each its start"), "\(two)")
        #expect(two.hasSuffix("analyze /n/night_2026_11_27.wav --start 2026-11-27T23:00:00+00:00 --db s.sqlite (the time an example)"), "\(two)")
        let one = try #require(NamedNightDate.misdatedHint(night: "2026-11-28", among: recordings, timeZone: utc, db: "s.sqlite"))
        #expect(one.hasPrefix("/n/night_2026_11_28.wav (id 3) is named for that night, but its start was taken"), "\(one)")
        #expect(NamedNightDate.misdatedHint(night: "2026-11-26", among: recordings, timeZone: utc, db: "s.sqlite") == nil)
        // A start the user gave, or the file's own name's time, is no copy's: nothing to hint.
        let given = try self.store(["/n/night_2026_11_27.wav"], startSource: .explicit).recordings()
        #expect(NamedNightDate.misdatedHint(night: "2026-11-27", among: given, timeZone: utc, db: "s.sqlite") == nil)
    }
}
