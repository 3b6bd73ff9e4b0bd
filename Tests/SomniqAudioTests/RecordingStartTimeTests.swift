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

    /// A date without a zone is the recorder's clock: read in the zone given; one with a zone is that moment anywhere.
    @Test func readsMetadataDatesInTheGivenZone() {
        let (utc, berlin) = (TimeZone(identifier: "UTC")!, TimeZone(identifier: "Europe/Berlin")!)
        #expect(RecordingStartTime.parseMetadataDate("2026-11-21T23:00:00", timeZone: utc) == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("2026-11-21 23:00:00", timeZone: utc) == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("2026-11-22T00:00:00", timeZone: berlin) == Date(timeIntervalSince1970: 1_795_302_000))
        #expect(RecordingStartTime.parseMetadataDate("2026-07-22T01:00:00", timeZone: berlin)
            == RecordingStartTime.parseISO8601("2026-07-21T23:00:00Z"), "summer time, two hours ahead")
        #expect(RecordingStartTime.parseMetadataDate("2026-11-21T23:00:00.500", timeZone: berlin)
            == Date(timeIntervalSince1970: 1_795_298_400.5), "the fraction kept")
        for zone in [utc, berlin] {
            #expect(RecordingStartTime.parseMetadataDate("2026-11-22T00:00:00+01:00", timeZone: zone) == Date(timeIntervalSince1970: 1_795_302_000))
            #expect(RecordingStartTime.parseMetadataDate("2026-11-21T23:00:00Z", timeZone: zone) == Date(timeIntervalSince1970: 1_795_302_000))
        }
        #expect(RecordingStartTime.parseMetadataDate("last tuesday") == nil)
        #expect(RecordingStartTime.parseMetadataDate("2026-02-30T23:00:00", timeZone: berlin) == nil)
    }

    /// The names recorders, phone apps and this tool's `follow` give their files, read as the local time they show.
    @Test(arguments: [
        ("20261130_231405.wav", "2026-11-30T23:14:05+01:00"),                  // Android's recorders, many apps
        ("Recording_20261130_231405.mp3", "2026-11-30T23:14:05+01:00"),
        ("2026-11-30 23.14.05.m4a", "2026-11-30T23:14:05+01:00"),
        ("Voice Memo 2026-11-30 23.14.flac", "2026-11-30T23:14:00+01:00"),      // no seconds
        ("Recording 2026-11-30 at 23.14.05.wav", "2026-11-30T23:14:05+01:00"),
        ("night_2026-11-30_23-14-05_take2.wav", "2026-11-30T23:14:05+01:00"),
        ("2026.11.30-23h14m05.ogg", "2026-11-30T23:14:05+01:00"),
        ("REC20260712T0130.wav", "2026-07-12T01:30:00+02:00"),                 // summer time
        ("live-20261130T231405Z.wav", "2026-11-30T23:14:05Z"),                 // UTC, as `follow` names its recordings
        ("/a/2025-01-01/20261130_231405.wav", "2026-11-30T23:14:05+01:00"),   // the name, not the folder
        ("2025-01-01 copy of 20261130_231405.wav", "2026-11-30T23:14:05+01:00"), // the date a time follows
        ("Aufnahme 21.11.2026 23.14.wav", "2026-11-21T23:14:00+01:00"),          // day first, as Europe writes it
        ("Recording_21-11-2026_23-14-05.flac", "2026-11-21T23:14:05+01:00"),
        ("11-21-2026 11.14.05.m4a", "2026-11-21T11:14:05+01:00"),                // month first, as the US writes it
        ("05_05_2026_23_14.wav", "2026-05-05T23:14:00+02:00"),                   // the same day either way
    ])
    func readsADateAndTimeInTheFileName(name: String, expected: String) {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(RecordingStartTime.localDateFromFileName(name, timeZone: berlin) == RecordingStartTime.parseISO8601(expected))
    }

    @Test func aTimeTheClocksSkipOrRepeatIsReadAsDocumented() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(RecordingStartTime.localDateFromFileName("20260329_023000.wav", timeZone: berlin)
            == RecordingStartTime.parseISO8601("2026-03-29T03:30:00+02:00"), "skipped: 02:30 read as 03:30")
        #expect(RecordingStartTime.localDateFromFileName("20261025_023000.wav", timeZone: berlin)
            == RecordingStartTime.parseISO8601("2026-10-25T02:30:00+02:00"), "repeated: the first 02:30")
    }

    @Test(arguments: [
        "2026-11-30.wav",                 // a date without a time of day
        "2026-11-30_0001.wav",            // a take's number after the date, not a time
        "20261130-2314.wav",              // the same, as likely a counter
        "2026-02-30_23-14-05.wav",        // no such day
        "2026-11-30_24-14-05.wav",        // no such hour
        "x120261130_231405.wav",          // digits run on before
        "20261130_2314059.wav",           // and after
        "1795302000.wav",                 // a count of seconds, not a date
        "night.wav", "take 17 of 2026.wav",
        "05-11-2026_23-14.wav",           // 5 November or May 11: see `ambiguousDatesInFileName`
        "31-02-2026_23-14.wav",           // no such day either way
        "21-11.2026_23-14.wav",           // two different separators
        "21112026_231405.wav",            // day first with nothing between: not read
    ])
    func leavesOtherNamesAlone(name: String) {
        #expect(RecordingStartTime.localDateFromFileName(name, timeZone: TimeZone(identifier: "UTC")!) == nil)
    }

    /// The night's date a name gives even where it gives no time of day (what the warning of a copy's date reads).
    @Test func readsTheCalendarDateOfANameWithOrWithoutATime() {
        let dates: [String: DateComponents?] = [
            "night_2026_11_27.wav": DateComponents(year: 2026, month: 11, day: 27),
            "2026-11-30_0001.wav": DateComponents(year: 2026, month: 11, day: 30),
            "20261130.flac": DateComponents(year: 2026, month: 11, day: 30),
            "Recording 2026-11-30 at 23.14.05.wav": DateComponents(year: 2026, month: 11, day: 30),
            "REC20261130231405.wav": DateComponents(year: 2026, month: 11, day: 30),
            "night 21.11.2026.flac": DateComponents(year: 2026, month: 11, day: 21),
            "11-21-2026.wav": DateComponents(year: 2026, month: 11, day: 21),
            "05-11-2026.wav": nil,          // either of two days
            "31.11.2026.wav": nil,          // no such day
            "2026-02-30.wav": nil,          // no such day
            "x120261130.wav": nil,          // digits run on before
            "202611301.wav": nil,           // and after
            "night.wav": nil, "take 17 of 2026.wav": nil, "1795302000.wav": nil,
        ]
        for (name, date) in dates {
            #expect(RecordingStartTime.calendarDateInFileName(name) == date, "\(name)")
        }
    }

    /// A date that is a real day written day first and month first is not read, but offered as both, with the time of
    /// day after it where one is written.
    @Test func offersADateThatReadsBothWaysAsBoth() throws {
        let both = try #require(RecordingStartTime.ambiguousDatesInFileName("Recording_05-11-2026_23-14.wav"))
        #expect(both.written == "05-11-2026")
        #expect(both.dayFirst == DateComponents(year: 2026, month: 11, day: 5, hour: 23, minute: 14, second: 0))
        #expect(both.monthFirst == DateComponents(year: 2026, month: 5, day: 11, hour: 23, minute: 14, second: 0))
        let dateAlone = try #require(RecordingStartTime.ambiguousDatesInFileName("night 01.02.2026.wav"))
        #expect(dateAlone.written == "01.02.2026" && dateAlone.dayFirst == DateComponents(year: 2026, month: 2, day: 1))
        for name in ["21-11-2026_23-14.wav", "05-05-2026.wav", "2026-05-11_23-14.wav", "night.wav", "13-13-2026.wav"] {
            #expect(RecordingStartTime.ambiguousDatesInFileName(name) == nil, "\(name)")
        }
    }

    /// Four digits after a name's date are not read as its time (a take's number as likely), but offered as one.
    @Test func offersFourDigitsAfterTheDateAsAPossibleTime() {
        let clock = RecordingStartTime.ambiguousClockInFileName("REC_20261130_2314.wav")
        #expect(clock?.digits == "2314" && clock?.hour == 23 && clock?.minute == 14)
        let take = RecordingStartTime.ambiguousClockInFileName("2026-11-30_0001.wav")
        #expect(take?.digits == "0001" && take?.hour == 0 && take?.minute == 1)
        for name in ["20261130_2514.wav", "20261130_2367.wav", "20261130_231405.wav", "20261130T2314.wav",
                     "2026-11-30_23-14.wav", "night_2026_11_27.wav", "night.wav"] {
            #expect(RecordingStartTime.ambiguousClockInFileName(name) == nil, "\(name)")
        }
    }

    /// A recorder's chunk comes before the name's date (it travels with the audio), the name's date before the
    /// modification time (which a copy from the phone resets).
    @Test func aDateInTheNameComesAfterTheMetadata() throws {
        let folder = TemporaryFolder()
        let path = folder.file("Recording_20261130_231405.wav")
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let metadata = Date(timeIntervalSince1970: 77)
        #expect(RecordingStartTime.resolve(explicit: nil, path: path, metadataDate: metadata, durationSeconds: 10, timeZone: tokyo)
            == .init(date: metadata, source: .metadata))
        #expect(RecordingStartTime.resolve(explicit: nil, path: path, metadataDate: nil, durationSeconds: 10, timeZone: tokyo)
            == .init(date: RecordingStartTime.parseISO8601("2026-11-30T23:14:05+09:00")!, source: .localFileName))
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

    /// A start as a person types it: to the minute or the second, `T` or a space, with a zone in any of ISO 8601's
    /// forms, or none, when it is the wall-clock time of the zone given (as a date in a file name is read).
    @Test(arguments: [
        ("2026-11-21T23:14", "2026-11-21T23:14:00+01:00"),
        ("2026-11-21 23:14:05", "2026-11-21T23:14:05+01:00"),
        ("2026-07-21 23:14", "2026-07-21T23:14:00+02:00"),            // summer time in Berlin
        ("2026-11-21T23:14:05.5", "2026-11-21T23:14:05.500+01:00"),
        ("2026-11-21T23:14:05Z", "2026-11-21T23:14:05Z"),
        ("2026-11-21T23:14Z", "2026-11-21T23:14:00Z"),
        ("2026-11-21T23:14+05:30", "2026-11-21T23:14:00+05:30"),
        ("2026-11-21T23:14:05-0800", "2026-11-21T23:14:05-08:00"),
        ("2026-11-21T23:14:05+09", "2026-11-21T23:14:05+09:00"),
        (" 2026-11-21T23:14 ", "2026-11-21T23:14:00+01:00"),
    ])
    func readsAStartAsAPersonGivesIt(text: String, expected: String) {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(RecordingStartTime.problem(withGivenStart: text) == nil)
        #expect(RecordingStartTime.parseGivenStart(text, timeZone: berlin) == RecordingStartTime.parseISO8601(expected))
    }

    @Test(arguments: ["yesterday", "23:14", "2026-11-21", "2026-11-21T23", "21.11.2026 23:14", "2026-11-21T23:14:5",
                      "2026-02-30T23:14", "2026-11-21T24:00", "2026-11-21T23:14+15:00", "2026-11-21T23:14:05 +01:00"])
    func refusesAStartThatIsNoMoment(text: String) {
        #expect(RecordingStartTime.problem(withGivenStart: text) != nil)
        #expect(RecordingStartTime.parseGivenStart(text, timeZone: TimeZone(identifier: "UTC")!) == nil)
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
        #expect(reader.metadataStartDate(timeZone: TimeZone(identifier: "UTC")!) == Date(timeIntervalSince1970: 1_795_302_000))
    }
}
