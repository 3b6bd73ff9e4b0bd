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
            data.contentHash = String(repeating: String(index), count: 64)
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

    /// A name whose date is a real day written either way (`05-11-2026`) is read as neither; where its modification
    /// time, a copy's, is neither night either, the warning gives both starts, and the night asked by either date finds it.
    @Test func aNameWhoseDateReadsBothWaysIsOfferedBoth() throws {
        let utc = TimeZone(identifier: "UTC")!
        var data = try RecordingAnalyzer(bundle: bundle).analyze(path: sampleNight)
        data.path = "/n/Recording_05-11-2026_23-14.wav"
        data.startSource = RecordingStartTime.Source.modificationTime.rawValue
        data.startMilliseconds = 1_796_205_600_000  // copied 2026-12-02 at 10:00 UTC: the night of 2026-12-01
        let warning = try #require(NamedNightDate.warning(data, timeZone: utc))
        #expect(warning == "its name says 05-11-2026, which is 2026-11-05 written day first or 2026-05-11 month first, so its start "
                + "was taken from the file's modification time, 2026-12-02 10:00 (\(utc.identifier)), and it is stored as the night of "
                + "2026-12-01 (copying a file re-dates it); give its start: somniq-analyze analyze /n/Recording_05-11-2026_23-14.wav "
                + "--start 2026-11-05T23:14:00+00:00 (or --start 2026-05-11T23:14:00+00:00) with the same --db (the time from its "
                + "name; the stored night moves without being decoded again)")
        let store = try store([data.path])
        for night in ["2026-11-05", "2026-05-11"] {
            let hint = try #require(NamedNightDate.misdatedHint(night: night, among: try store.recordings(), timeZone: utc, db: "s.sqlite"))
            #expect(hint.hasPrefix("/n/Recording_05-11-2026_23-14.wav (id 1) is named for that night"), "\(hint)")
            #expect(hint.contains("--start \(night)T23:00:00+00:00"), "\(hint)")
        }
        // Modified on the night of one of the two dates (the recorder's own file): that reading is taken as right.
        data.startMilliseconds = 1_793_921_400_000  // 2026-11-05 23:30 UTC
        #expect(NamedNightDate.warning(data, timeZone: utc) == nil)
    }
}
