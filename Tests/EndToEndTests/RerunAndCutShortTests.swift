import Foundation
import GRDB
import Testing

/// Nights cut short (a recorder that crashed: the header promises more audio than the file holds) and reruns that
/// change a stored recording's metadata, through the executable.
@Suite(.serialized) struct RerunAndCutShortTests {
    /// A synthetic night whose bytes stop at `share` of its audio, its header untouched: the shape a recording app
    /// leaves when it dies mid-night.
    func cutShortNight(_ scratch: Scratch, share: Double = 0.5) throws -> (path: String, promised: Int, held: Int) {
        let whole = try Nights.copies(into: scratch.file("whole"), count: 1)[0]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let dataChunk = bytes.range(of: Data("data".utf8))!.upperBound + 4
        let audioBytes = bytes.count - dataChunk
        let kept = dataChunk + Int(Double(audioBytes) * share) / 2 * 2
        let path = scratch.file("cut-short.wav")
        try bytes.prefix(kept).write(to: URL(fileURLWithPath: path))
        return (path, audioBytes / 2, (kept - dataChunk) / 2)  // 16-bit mono
    }

    @Test func aNightCutShortIsAnalysedAsFarAsItGoesWithAWarning() throws {
        let scratch = Scratch()
        let night = try cutShortNight(scratch)
        let db = scratch.file("cut.sqlite")
        let result = try CommandRunner.run(["analyze", night.path, "--db", db, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(night.path): warning: cut short: the header promises \(night.promised) frames (4:00.0) "
            + "but only \(night.held) (2:00.0) could be read; analysed what is there, 2:00.0 of the promised audio is missing"),
                "\(result.stderr)")
        #expect(result.stderr.contains("1 analysed (1 cut short), 0 skipped (already done), 0 failed"))
        // Written a moment ago, it may be a recording still being made: follow is named.
        #expect(result.stderr.contains("of the promised audio is missing (--strict refuses such files); it was written to ")
                && result.stderr.contains(" ago: if a recorder is still making it, 'somniq-analyze follow \(night.path)' hears it as it is made"),
                "\(result.stderr)")
        let check = try DatabaseCheck(db)
        #expect(try check.count("SELECT COUNT(*) FROM recordings WHERE status = 'complete' AND truncated = 1 AND "
            + "declared_frames = \(night.promised) AND frame_count = \(night.held) AND duration_s = 120") == 1)
        #expect(try check.count("SELECT window_count FROM recordings") == 240)  // a window per half-second block
        #expect(try check.incomplete() == 0)
        // Its first two minutes are what a whole file's first two minutes give: same windows, same classes on top.
        let wholeDB = scratch.file("whole.sqlite")
        _ = try CommandRunner.run(["analyze", scratch.file("whole"), "--db", wholeDB, "--quiet"])
        let top = "SELECT group_concat(top_class, ',') FROM (SELECT top_class FROM windows WHERE window_index < 230 ORDER BY window_index)"
        let cutTop = try check.queue.read { try String.fetchOne($0, sql: top) }
        let wholeTop = try DatabaseCheck(wholeDB).queue.read { try String.fetchOne($0, sql: top) }
        #expect(cutTop != nil && cutTop == wholeTop)
        // Exports say so.
        let json = try CommandRunner.run(["export", "--db", db, "--format", "json", "--what", "episodes"])
        #expect(json.stdout.contains("\"truncated\": true") && json.stdout.contains("\"declaredFrames\": \(night.promised)"), "\(json.stdout.prefix(600))")

        // Analysed again as it is (the night was cut short from the start, not damaged since): still one recording;
        // last written hours ago, it is no recording in progress.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: night.path)
        let again = try CommandRunner.run(["analyze", night.path, "--db", db, "--quiet", "--reanalyze"])
        #expect(again.status == 0 && again.stderr.contains("1 analysed (1 cut short)"), "\(again.stderr)")
        #expect(again.stderr.contains("is missing (--strict refuses such files)\n") && !again.stderr.contains("follow"), "\(again.stderr)")
        #expect(try check.count("SELECT COUNT(*) FROM recordings WHERE status = 'complete' AND truncated = 1") == 1)
        #expect(try check.count("SELECT COUNT(*) FROM recordings WHERE status = 'failed'") == 0)

        // --strict keeps the refusal.
        let strict = try CommandRunner.run(["analyze", night.path, "--db", scratch.file("strict.sqlite"), "--strict", "--quiet"])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("\(night.path): error: truncated: the header promises \(night.promised) frames but only \(night.held) could be read"),
                "\(strict.stderr)")
    }

    /// A header with no audio behind it stays an error: there is nothing to analyse.
    @Test func aFileWithNoAudioAtAllStaysAnError() throws {
        let scratch = Scratch()
        let night = try cutShortNight(scratch, share: 0)
        let result = try CommandRunner.run(["analyze", night.path, "--db", scratch.file("none.sqlite"), "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(night.path): error: "), "\(result.stderr)")
    }

    /// Found as a new user would: a folder holding a night and a copy of it (a backup beside the original) said "1
    /// analysed, 1 skipped (already done)" off a terminal, the copy never named. A recording is known by its audio, so
    /// the copy is still not stored twice, but it is named with the file that holds its audio, and counted apart.
    @Test func aCopyOfANightIsNamedWithTheFileThatHoldsItsAudio() throws {
        let scratch = Scratch()
        let night = try Nights.copies(into: scratch.file("in"), count: 1)[0]
        let copy = scratch.file("in/night-2, a copy of night 1.wav")
        try FileManager.default.copyItem(atPath: night, toPath: copy)
        let db = scratch.file("db.sqlite")
        let first = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--jobs", "1", "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("\(copy): skipped: same audio as \(night), already analysed"), "\(first.stderr)")
        #expect(first.stderr.contains("1 analysed, 0 skipped (already done), 1 skipped (the same audio as another file stored), "
                                      + "0 failed of 2 recordings"), "\(first.stderr)")
        #expect(try DatabaseCheck(db).queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordings") } == 1)
        // Said once: a rerun finds both done.
        let again = try CommandRunner.run(["analyze", scratch.file("in"), "--db", db, "--quiet"])
        #expect(again.stderr.contains("0 analysed, 2 skipped (already done), 0 failed") && !again.stderr.contains("same audio"),
                "\(again.stderr)")
    }

    /// `--start` on a recording already analysed moves every stored time of day to the new start, without decoding,
    /// and the result is what analysing it with that start gives.
    @Test func aNewStartMovesTheStoredRecording() throws {
        let scratch = Scratch()
        let file = try Nights.copies(into: scratch.file("in"), count: 1)[0]
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", file, "--db", db, "--profile", "all", "--quiet"]).status == 0)
        let before = try DatabaseCheck(db).queue.read { try String.fetchOne($0, sql: "SELECT start_utc FROM recordings")! }
        let moved = try CommandRunner.run(["analyze", file, "--db", db, "--profile", "all", "--start", "2026-11-21T23:14:05Z"])
        #expect(moved.status == 0)
        #expect(moved.stderr.contains("\(file): start time set to 2026-11-21T23:14:05.000Z (was \(before))"), "\(moved.stderr)")
        #expect(moved.stderr.contains("0 analysed, 1 updated (profiles added or start time set), 0 skipped")
            && moved.stderr.contains("0.00 h of audio decoded"), "\(moved.stderr)")
        let fresh = scratch.file("fresh.sqlite")
        #expect(try CommandRunner.run(["analyze", file, "--db", fresh, "--profile", "all", "--start", "2026-11-21T23:14:05Z", "--quiet"]).status == 0)
        let times = """
            SELECT (SELECT start_utc || start_source FROM recordings)
                || (SELECT group_concat(start_utc) FROM (SELECT start_utc FROM windows ORDER BY window_index))
                || (SELECT group_concat(start_utc) FROM (SELECT start_utc FROM detections ORDER BY window_index, class_id))
                || (SELECT group_concat(utc) FROM (SELECT utc FROM alerts ORDER BY profile, offset_s, class_id))
                || (SELECT group_concat(t) FROM (SELECT start_utc || end_utc AS t FROM episodes ORDER BY profile, start_offset_s, class_id))
                || (SELECT group_concat(onset_utc) FROM (SELECT onset_utc FROM sound_events ORDER BY class_id, event_index))
                || (SELECT group_concat(onset_utc) FROM (SELECT onset_utc FROM bouts ORDER BY class_id, bout_index))
            """
        let movedTimes = try DatabaseCheck(db).queue.read { try String.fetchOne($0, sql: times) }
        let freshTimes = try DatabaseCheck(fresh).queue.read { try String.fetchOne($0, sql: times) }
        #expect(movedTimes != nil && movedTimes == freshTimes)
        #expect(movedTimes?.contains("2026-11-21T23:1") == true)
        // The same start again changes nothing and says nothing about it.
        let again = try CommandRunner.run(["analyze", file, "--db", db, "--start", "2026-11-21T23:14:05Z"])
        #expect(again.stderr.contains("0 analysed, 1 skipped (already done)") && !again.stderr.contains("start time set"), "\(again.stderr)")
    }
}
