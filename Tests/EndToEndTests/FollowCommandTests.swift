import Foundation
import GRDB
import SomniqAudio
import SomniqSynth
import Testing

/// `follow` (#48): a recording followed while it is written gives the night `analyze` gives for the finished file,
/// and the alerts printed live are the alerts stored.
@Suite struct FollowCommandTests {
    /// The sample night as 16-bit mono samples, and its rate.
    static let night: (samples: [Int16], rate: Int) = {
        let (mono, rate) = try! AudioFileReader.readMono(sampleNight)
        return (mono.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }, rate)
    }()

    @Test func aNightFollowedAtTenTimesRealTimeIsTheNightAnalyseStores() throws {
        let scratch = Scratch()
        let path = scratch.file("bedside.wav")
        let (samples, rate) = Self.night
        // A recorder writing at ten times real time: a header with its sizes open, a tenth of a second every 10 ms,
        // then the final header.
        FileManager.default.createFile(atPath: path, contents: UnfinishedWAV.header(sampleRate: rate, dataBytes: 0))
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: path)!
            handle.seekToEndOfFile()
            for start in stride(from: 0, to: samples.count, by: rate / 10) {
                handle.write(samples[start..<min(samples.count, start + rate / 10)].withUnsafeBytes { Data($0) })
                Thread.sleep(forTimeInterval: 0.01)
            }
            handle.seek(toFileOffset: 0)
            handle.write(UnfinishedWAV.header(sampleRate: rate, dataBytes: UInt32(samples.count * 2)))
            try? handle.close()
        }
        writer.start()
        let start = "2026-11-27T23:00:00Z"
        // A command for each alert, given it in its environment.
        let hook = scratch.file("on-alert.sh")
        try "#!/bin/sh\necho \"$SOMNIQ_CLASS $SOMNIQ_TIER $SOMNIQ_OFFSET_S $SOMNIQ_PROFILE\" >> \"$1\"\n"
            .write(toFile: hook, atomically: false, encoding: .utf8)
        chmod(hook, 0o755)
        let followed = try CommandRunner.start(["follow", path, "--db", scratch.file("follow.sqlite"), "--format", "jsonl",
                                                "--idle", "20", "--start", start, "--on-alert", "\(hook) \(scratch.file("hooked"))"])
        followed.waitUntilExit()
        #expect(followed.terminationStatus == 0, "\(followed.stderr)")
        while writer.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
        let analysed = try CommandRunner.run(["analyze", path, "--db", scratch.file("analyze.sqlite"), "--start", start, "--quiet"])
        #expect(analysed.status == 0, "\(analysed.stderr)")

        // The same rows, table by table.
        let live = try FixtureStudy.dump(scratch.file("follow.sqlite")), whole = try FixtureStudy.dump(scratch.file("analyze.sqlite"))
        #expect(live.keys.sorted() == whole.keys.sorted())
        for table in whole.keys.sorted() { #expect(live[table] == whole[table], "\(table)") }

        // The alerts printed live are the stored ones: class, kind, offset and confidence, class by class in order.
        let printed = followed.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(printed.count == followed.stdout.split(separator: "\n").count, "one JSON object a line: \(followed.stdout)")
        let stored = try DatabaseQueue(path: scratch.file("analyze.sqlite")).read { db in
            try Row.fetchAll(db, sql: "SELECT class_id, kind, offset_s, confidence, tier FROM alerts WHERE profile = 'balanced' ORDER BY offset_s, class_id")
        }
        #expect(!stored.isEmpty)
        #expect(printed.count == stored.count, "\(followed.stdout)")
        for classID in Set(stored.map { $0["class_id"] as String }).sorted() {
            let ours = printed.filter { $0["class"] as? String == classID }
            let theirs = stored.filter { ($0["class_id"] as String) == classID }
            #expect(ours.map { $0["offset_s"] as? Double } == theirs.map { $0["offset_s"] as Double? }, "\(classID)")
            #expect(ours.map { $0["kind"] as? String } == theirs.map { $0["kind"] as String? }, "\(classID)")
            #expect(ours.map { $0["tier"] as? String } == theirs.map { $0["tier"] as String? }, "\(classID)")
            #expect(zip(ours, theirs).allSatisfy { abs(($0["confidence"] as? Double ?? -1) - ($1["confidence"] as Double)) < 1e-6 }, "\(classID)")
        }
        #expect(printed.allSatisfy { $0["profile"] as? String == "balanced" })
        // --on-alert ran once for each alert printed, in the order printed.
        let hooked = (try? String(contentsOfFile: scratch.file("hooked"), encoding: .utf8)) ?? ""
        #expect(hooked.split(separator: "\n").map(String.init) == printed.map { alert in
            "\(alert["class"] as? String ?? "") \(alert["tier"] as? String ?? "") \(String(format: "%.1f", alert["offset_s"] as? Double ?? -1)) balanced"
        })
    }
}
