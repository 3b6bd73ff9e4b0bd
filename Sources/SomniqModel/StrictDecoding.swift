/// A coding key for any string, to list the keys an object really has.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

extension AnyCodingKey {
    init<Key: CodingKey>(_ key: Key) { self.init(stringValue: key.stringValue) }
}

extension Decoder {
    /// Rejects any key not in `Keys`: a misspelt field in a model file is an error, not a silent default.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        try container(keyedBy: AnyCodingKey.self).rejectUnknownKeys(keys)
    }
}

extension KeyedDecodingContainer where Key == AnyCodingKey {
    /// Rejects any key not in `Keys`. Decoding through this one container (rather than checking in a second)
    /// halves the work for the thousands of small objects of a fitted model's trees.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        // The common case, every key known, costs one look-up per key.
        guard allKeys.contains(where: { Keys(stringValue: $0.stringValue) == nil }) else { return }
        let allowed = Set(Keys.allCases.map(\.stringValue))
        for key in allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [key],
                debugDescription: "unknown field \"\(key.stringValue)\" (allowed: \(allowed.sorted().joined(separator: ", ")))"))
        }
    }
}

/// A human-readable path such as `classes[3].all[0].softness` from a coding path.
func describe(codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
        if let index = key.intValue {
            text += "[\(index)]"
        } else {
            text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
    }
    return text.isEmpty ? "(top level)" : text
}

extension KeyedDecodingContainer {
    /// Reads and checks a versioned file's `format` and `formatVersion` fields: a version from `oldestVersion` (default:
    /// the supported one) to `supportedVersion` is read.
    func decodeFormat(_ formatKey: Key, _ versionKey: Key, expected: String, supportedVersion: Int,
                      oldestVersion: Int? = nil) throws -> (String, Int) {
        let format = try decode(String.self, forKey: formatKey)
        guard format == expected else {
            throw DecodingError.dataCorruptedError(forKey: formatKey, in: self,
                debugDescription: "expected \"\(expected)\", found \"\(format)\"")
        }
        let version = try decode(Int.self, forKey: versionKey)
        let oldest = oldestVersion ?? supportedVersion
        guard (oldest...supportedVersion).contains(version) else {
            let readable = oldest == supportedVersion ? "\(supportedVersion)" : "\(oldest) to \(supportedVersion)"
            throw DecodingError.dataCorruptedError(forKey: versionKey, in: self,
                debugDescription: "format version \(version) is not supported (this build reads \(readable))")
        }
        return (format, version)
    }
}
