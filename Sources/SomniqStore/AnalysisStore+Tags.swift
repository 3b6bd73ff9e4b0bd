import Foundation
import GRDB

/// Night tags: what the sleeper tried that night (`mouthguard`, `alcohol`, `side`), kept by the audio's content hash so that
/// a tag outlives a reanalysis (the recording's row is replaced, its audio is not) and a merge carries it.
extension AnalysisStore {
    /// The longest tag, in characters.
    public static let maximumTagLength = 40

    /// Why `tag` cannot be a tag (empty, too long, a comma, which separates tags in a manifest cell, or a control
    /// character), or `nil`.
    public static func tagProblem(_ tag: String) -> String? {
        if tag.isEmpty { return "a tag is not empty" }
        if tag.count > maximumTagLength { return "a tag has at most \(maximumTagLength) characters" }
        if tag.contains(",") { return "a tag holds no comma (commas separate tags in a manifest)" }
        if tag.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
            return "a tag holds no control or formatting character"
        }
        if tag != tag.trimmingCharacters(in: .whitespaces) { return "a tag neither begins nor ends with a space" }
        return nil
    }

    /// A recording's tags, sorted.
    public func tags(recordingID: Int64) throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT t.tag FROM night_tags t JOIN recordings r ON r.content_hash = t.content_hash
                WHERE r.id = ? ORDER BY t.tag
                """, arguments: [recordingID])
        }
    }

    /// Every tag the database holds on any night, sorted.
    public func tagsInUse() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT tag FROM night_tags ORDER BY tag") }
    }

    /// Every complete recording's tags, sorted, by recording id (recordings without tags left out).
    public func tagsByRecording() throws(StoreError) -> [Int64: [String]] {
        try read { db in
            var tags: [Int64: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT r.id, t.tag FROM night_tags t JOIN recordings r ON r.content_hash = t.content_hash
                WHERE r.status = 'complete' ORDER BY r.id, t.tag
                """) {
                tags[row[0], default: []].append(row[1])
            }
            return tags
        }
    }

    /// Adds and removes tags of a recording in one transaction (a tag both added and removed ends removed) and returns
    /// its tags. Tags must pass `tagProblem`; a recording whose analysis failed has no audio identity and takes none.
    @discardableResult
    public func changeTags(recordingID: Int64, adding: [String], removing: [String]) throws(StoreError) -> [String] {
        do {
            try writer.write { db in
                guard let hash = try String.fetchOne(db, sql: "SELECT content_hash FROM recordings WHERE id = ? AND status = 'complete'",
                                                     arguments: [recordingID]) else {
                    throw StoreError.notFound(path: path, what: "complete recording \(recordingID) (a failed one takes no tags)")
                }
                for tag in adding {
                    try db.execute(sql: "INSERT OR IGNORE INTO night_tags (content_hash, tag) VALUES (?, ?)", arguments: [hash, tag])
                }
                for tag in removing {
                    try db.execute(sql: "DELETE FROM night_tags WHERE content_hash = ? AND tag = ?", arguments: [hash, tag])
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .writeFailed(path: path, reason: Self.reason(error))
        }
        return try tags(recordingID: recordingID)
    }
}
