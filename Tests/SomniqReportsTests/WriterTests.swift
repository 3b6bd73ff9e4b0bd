import CSV
import Foundation
import SomniqReports
import Testing

@Suite struct CSVRowWriterTests {
    /// Cells a spreadsheet would run, and cells that break rows, read back by an independent parser (CSV.swift).
    @Test func hostileCellsAreQuotedAndNeutralised() throws {
        let cells = ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1+1", "-2+3", "\tTAB", "\rCR", "a,b", "say \"hi\"", "two\r\nlines",
                     "", "plain", "-12.5", "+3", "1e-05", "snoring"]
        let text = CSVText.make { $0.write(row: cells) }
        #expect(text.hasSuffix("\r\n"))
        let reader = try CSVReader(string: text, hasHeaderRow: false)
        let row = try #require(reader.next())
        #expect(row.count == cells.count)
        for (written, read) in zip(cells, row) {
            let formula = written.first.map { "=@\t\r".contains($0) } == true
                || (written.first.map { "+-".contains($0) } == true && Double(written) == nil)
            #expect(read == (formula ? "'" + written : written), "\(written.debugDescription) read back as \(read.debugDescription)")
        }
        #expect(reader.next() == nil)
    }

    @Test func typedCellsAreWrittenAsTheyAre() {
        let text = CSVText.make { writer in
            writer.integer(-3); writer.number(-0.25); writer.number(Float(0.3)); writer.number(Float.nan); writer.number(2.0)
            writer.endRow()
        }
        #expect(text == "-3,-0.25,0.3,,2\r\n")
    }
}

@Suite struct JSONStreamWriterTests {
    @Test func documentParsesBackWithEveryCharacter() throws {
        let awkward = "quote \" backslash \\ tab \t newline \n nul \u{0} bell \u{7} é 😴 </script>"
        let sink = ByteSink.memory()
        var json = JSONStreamWriter(sink: sink)
        json.beginObject(multiline: true)
        json.string("name", awkward)
        json.number("nan", Double.nan)
        json.integer("count", 3)
        json.beginArray("items", multiline: true)
        for index in 0..<3 {
            json.beginObject()
            json.integer("index", index); json.number("half", Double(index) / 2)
            json.beginObject("nested"); json.string(awkward, "key with escapes"); json.endObject()
            json.endObject()
        }
        json.endArray()
        json.beginArray("empty"); json.endArray()
        json.endObject()
        json.finish()
        let value = try JSONSerialization.jsonObject(with: Data(sink.text.utf8)) as! [String: Any]
        #expect(value["name"] as? String == awkward)
        #expect(value["nan"] is NSNull)
        #expect(value["count"] as? Int == 3)
        let items = try #require(value["items"] as? [[String: Any]])
        #expect(items.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(items[1]["half"] as? Double == 0.5)
        #expect((items[2]["nested"] as? [String: String])?[awkward] == "key with escapes")
        #expect((value["empty"] as? [Any])?.isEmpty == true)
        // One item per line: a night of windows stays greppable.
        #expect(sink.text.split(separator: "\n").filter { $0.contains("\"index\"") }.count == 3)
    }
}

@Suite struct ByteSinkTests {
    func scratch() throws -> String {
        let folder = NSTemporaryDirectory() + "somniq-sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func fileAppearsOnlyWhenFinished() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.csv"
        try "earlier\n".write(toFile: path, atomically: true, encoding: .utf8)
        let sink = try ByteSink.file(path)
        // More than one buffer's worth, so some of it has reached the disk before the end.
        for _ in 0..<20_000 { sink.write("0123456789\n") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier\n", "the earlier file stays until the new one is whole")
        try sink.finish()
        #expect(try String(contentsOfFile: path, encoding: .utf8).count == 220_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.csv"], "no temporary file left")
    }

    @Test func discardedFileLeavesNothing() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = try ByteSink.file(folder + "/out.json")
        for _ in 0..<20_000 { sink.write("0123456789\n") }
        sink.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func missingFolderAndFullDiskAreReported() throws {
        #expect(throws: ByteSink.Failure.self) { try ByteSink.file("/nonexistent-folder/out.csv") }
        guard FileManager.default.isWritableFile(atPath: "/dev/full"), let handle = FileHandle(forWritingAtPath: "/dev/full") else { return }
        // A sink on a descriptor that cannot take the bytes: the failure comes out of finish(), with its reason.
        let sink = ByteSink.descriptor(handle.fileDescriptor, name: "/dev/full")
        for _ in 0..<10_000 { sink.write("0123456789\n") }
        do {
            try sink.finish()
            Issue.record("writing to /dev/full succeeded")
        } catch let failure as ByteSink.Failure {
            #expect(failure.description.contains("/dev/full"))
            #expect(failure.description.lowercased().contains("space"))
        }
        try handle.close()
    }
}
