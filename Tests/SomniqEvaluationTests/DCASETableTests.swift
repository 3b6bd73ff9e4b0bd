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

    /// Found as a new user would: a table saved from a spreadsheet with commas, or an Audacity label track given as the
    /// ground truth, was refused as "1 fields" or "3 fields"; a reversed event did not say which times it read.
    @Test(arguments: [
        ("filename,onset,offset,event_label\nnight.wav,10,20,snoring\n",
         "labels.tsv:1: error: 1 field: its columns are separated by commas; the table is tab-separated"),
        ("10.5\t12.0\tsnoring\n", "labels.tsv:1: error: 3 fields, onset, offset and label with no file name (an Audacity "
            + "label track?); put the recording's file name first"),
        ("night.wav\t10\tsnoring\n", "labels.tsv:1: error: 3 fields; expected filename<TAB>onset"),
        ("night.wav\t10\t5\tsnoring\n", "labels.tsv:1: error: onset '10' and offset '5' must be seconds with 0 ≤ onset ≤ offset"),
    ])
    func aMalformedRowSaysWhatItLikelyIs(text: String, message: String) {
        #expect {
            try DCASETable.parse(text, path: "labels.tsv")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }
}
