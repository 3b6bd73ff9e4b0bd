import SomniqEvaluation
import Testing

@Suite struct DCASETableTests {
    /// A tab or line break in a file name or label (a hostile or careless name) cannot split a row or add columns:
    /// each event stays one row of four columns, and the table reads back to the same events.
    @Test func namesThatWouldBreakARowAreEscapedAndReadBack() throws {
        let events = [
            SoundEvent(file: "night\t1\nforged\t0.000\t9.000\tsmoke_detector.wav", onset: 1, offset: 2, label: "snoring"),
            SoundEvent(file: "back\\slash\r.wav", onset: 3, offset: 4.5, label: "cough\tfit"),
            SoundEvent(file: "C:\\data\\plain.wav", onset: 5, offset: 6, label: "speech"),
        ]
        let table = DCASETable.format(events)
        let rows = table.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(rows.count == 1 + events.count, "\(table)")
        for row in rows { #expect(row.split(separator: "\t", omittingEmptySubsequences: false).count == 4, "\(row)") }
        #expect(try DCASETable.parse(table) == events)
    }

    /// Tables written by others, with backslashes of their own (Windows paths), read as they are written.
    @Test func otherBackslashesAreKept() throws {
        let parsed = try DCASETable.parse("filename\tonset\toffset\tevent_label\nC:\\data\\a.wav\t0.000\t1.000\tcough\n")
        #expect(parsed.first?.file == "C:\\data\\a.wav")
    }
}
