import Foundation
import GRDB
import SomniqAudio
import SomniqSynth
import Testing

/// The sample night heard through a phone's microphone (`MicrophoneResponse.phone`: a high-pass at 200 Hz, +6 dB at
/// 2.5 kHz, -4 dB above 3 kHz), through the fitted default model.
@Suite struct PhoneMicrophoneTests {
    static func episodes(of path: String, model: String, in scratch: Scratch, name: String) throws -> [Row] {
        let database = scratch.file(name + ".sqlite")
        let running = try CommandRunner.start(["analyze", path, "--db", database, "--model", model, "--quiet"])
        running.waitUntilExit()
        #expect(running.terminationStatus == 0, "\(running.stderr)")
        return try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: """
                SELECT class_id, tier, start_offset_s, end_offset_s FROM episodes WHERE profile = 'balanced' ORDER BY start_offset_s
                """)
        }
    }

    /// The scripted sounds a sleeper is told of are still heard, on their tiers: the snoring bout (10–68 s), the gasp
    /// (88 s) and the smoke alarm (150–166 s, whose episode ends at 164.5 s) from within a second of their starts to
    /// within 3 s of their ends, the speech (132–144 s) from within a second of its start for at least half of it; and
    /// nothing else is critical. (Model 2.10.2 passes this too: the synthesised night's sounds keep their identity through this
    /// microphone; the development set's real clips are where the two models differ, the card in docs/classifier.md.)
    @Test func theSampleNightThroughAPhoneKeepsWhatTheSleeperIsToldOf() throws {
        let scratch = Scratch()
        let audio = try AudioFileReader.readMono(sampleNight)
        let phone = scratch.file("phone.wav")
        do {
            let writer = try AudioFileWriter(path: phone, sampleRate: audio.sampleRate)
            try writer.write(interleaved: MicrophoneResponse.phone.apply(audio.samples, sampleRate: audio.sampleRate))
        }
        let episodes = try Self.episodes(of: phone, model: CommandRunner.root + "/models/default", in: scratch, name: "phone")
        func heard(_ id: String, tier: String, from start: Double, to end: Double, endWithin: Double = 3) -> Bool {
            episodes.contains { row in
                row["class_id"] as String == id && row["tier"] as String == tier
                    && abs(row["start_offset_s"] as Double - start) <= 1 && abs(row["end_offset_s"] as Double - end) <= endWithin
            }
        }
        #expect(heard("snoring", tier: "high", from: 10, to: 68), "\(episodes)")
        #expect(heard("gasp", tier: "critical", from: 88, to: 89), "\(episodes)")
        #expect(heard("smoke_detector", tier: "critical", from: 150, to: 166), "\(episodes)")
        #expect(heard("speech", tier: "medium", from: 132, to: 144, endWithin: 6), "\(episodes)")
        let critical = episodes.filter { $0["tier"] as String == "critical" }.map { $0["class_id"] as String }
        #expect(critical == ["gasp", "smoke_detector"], "\(episodes)")
    }
}
