import Foundation

/// The chunks of a RIFF/RF64 WAVE file that libsndfile does not read for us: where a field recorder keeps the time a
/// recording began when it writes no broadcast (`bext`) date, its iXML (`<BWF_ORIGINATION_DATE>`,
/// `<BWF_ORIGINATION_TIME>`), often after the audio.
enum WAVChunks {
    /// The body of the first chunk named `id` (at most `maximumBytes` of it), or `nil` when the file is no WAVE file or
    /// has none.
    static func body(of id: String, path: String, maximumBytes: Int = 1 << 20) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 12), header.count == 12,
              header.prefix(4) == Data("RIFF".utf8) || header.prefix(4) == Data("RF64".utf8),
              header[8..<12] == Data("WAVE".utf8) else { return nil }
        let isRF64 = header.prefix(4) == Data("RF64".utf8)
        var dataSize64: UInt64?
        var offset: UInt64 = 12
        // A bounded walk: a damaged size could otherwise send it round forever.
        for _ in 0..<1_000 {
            guard (try? handle.seek(toOffset: offset)) != nil, let chunk = try? handle.read(upToCount: 8), chunk.count == 8 else { return nil }
            let name = String(decoding: chunk.prefix(4), as: UTF8.self)
            var size = UInt64(chunk[4]) | UInt64(chunk[5]) << 8 | UInt64(chunk[6]) << 16 | UInt64(chunk[7]) << 24
            if isRF64, name == "ds64", let body = try? handle.read(upToCount: 28), body.count >= 24 {
                // ds64: RIFF size (8), data size (8), sample count (8): the data chunk's size when its own field is -1.
                dataSize64 = body[8..<16].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            }
            if name == "data", size == 0xFFFF_FFFF, let dataSize64 { size = dataSize64 }
            if name == id {
                return try? handle.read(upToCount: Int(min(size, UInt64(maximumBytes))))
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    /// The time a recording began as its iXML gives it (`BWF_ORIGINATION_DATE` and `BWF_ORIGINATION_TIME`, the
    /// recorder's clock, read in `timeZone` as the broadcast date is), or `nil`.
    static func iXMLOriginationDate(path: String, timeZone: TimeZone) -> Date? {
        guard let body = body(of: "iXML", path: path) else { return nil }
        let xml = String(decoding: body, as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let open = xml.range(of: "<\(name)>"), let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex)
            else { return nil }
            return xml[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let date = element("BWF_ORIGINATION_DATE"), let time = element("BWF_ORIGINATION_TIME") else { return nil }
        // BWF writes the date as yyyy-mm-dd (some recorders yyyy:mm:dd) and the time as hh:mm:ss (or hh-mm-ss).
        let day = date.replacingOccurrences(of: ":", with: "-"), clock = time.replacingOccurrences(of: "-", with: ":")
        return RecordingStartTime.parseMetadataDate(day + "T" + clock, timeZone: timeZone)
    }
}
