import Foundation
import SomniqNightReport
import SomniqStore
import Testing

/// Recordings named by their night, as the morning report dates nights.
@Suite struct NightChoiceTests {
    static func start(_ text: String) -> Int64 { UTCTimestamp.parse(text)! }

    /// Two recordings of the night of the 21st (one begun after midnight), a night of the 22nd with a nap the next
    /// morning, and a recording begun at 11:30 UTC on the 24th: 12:30 in Berlin, so a night of the 24th there and of
    /// the 23rd in UTC.
    let nights: [NightChoice.Night] = [
        (1, start("2026-11-21T22:00:00.000Z")), (2, start("2026-11-22T01:30:00.000Z")), (3, start("2026-11-22T23:00:00.000Z")),
        (4, start("2026-11-23T10:00:00.000Z")), (5, start("2026-11-24T11:30:00.000Z")),
    ]

    @Test func aNightIsFromNoonToNoonLocalTime() {
        let utc = LocalClock(timeZone: TimeZone(identifier: "UTC")!), berlin = LocalClock(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(NightChoice.recordings(of: "2026-11-21", among: nights, clock: utc) == [1, 2])
        #expect(NightChoice.recordings(of: "2026-11-22", among: nights, clock: utc) == [3, 4])
        #expect(NightChoice.recordings(of: "2026-11-23", among: nights, clock: utc) == [5])
        #expect(NightChoice.recordings(of: "2026-11-23", among: nights, clock: berlin) == [])
        #expect(NightChoice.recordings(of: "2026-11-24", among: nights, clock: berlin) == [5])
        #expect(NightChoice.recordings(of: "last", among: nights, clock: utc) == [5])
        #expect(NightChoice.recordings(of: "last", among: Array(nights.prefix(4)), clock: utc) == [3, 4], "the latest night, whole")
        #expect(NightChoice.recordings(of: "last", among: [], clock: utc) == [])
    }

    @Test func onlyADayOfTheCalendarOrLastNamesANight() {
        for text in ["2026-11-21", "2024-02-29", "last"] { #expect(NightChoice.namesANight(text), "\(text)") }
        for text in ["2026-02-29", "2026-11-31", "2026-1-05", "20261121", "2026-11-21T23:00", "Last", "yesterday", "12", "２０２６-11-21"] {
            #expect(!NightChoice.namesANight(text), "\(text)")
        }
    }

    @Test func noNightFoundSaysWhichThereAre() {
        let utc = LocalClock(timeZone: TimeZone(identifier: "UTC")!)
        #expect(NightChoice.noneFound("2026-11-30", among: nights, clock: utc)
                == "no recording began on the night of 2026-11-30 (from noon that day to noon the next, UTC); the nights stored run "
                + "from 2026-11-21 to 2026-11-23 (3 nights)")
        #expect(NightChoice.noneFound("2026-11-30", among: [nights[0]], clock: utc).hasSuffix("; the one night stored is 2026-11-21"))
        #expect(NightChoice.noneFound("2026-11-30", among: [], clock: utc).hasSuffix("; no night is stored"))
        #expect(NightChoice.noneFound("last", among: [], clock: utc) == "no analysed recording, so no last night")
    }
}
