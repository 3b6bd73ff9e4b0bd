import Foundation
import SomniqAudio
import SomniqSynth
import Testing

/// What helped (#47 items 4 and 5): a study of synthesised nights in which the nights tagged `mouthguard` snore less
/// and more softly than the others, analysed, tagged and compared through the executable.
@Suite struct TrendsCommandTests {
    /// Six 3-minute nights a day apart: three with a mouthguard (one soft bout of 40 s) and three without (two loud
    /// bouts, 140 s in all); one night also tagged `alcohol`.
    static func study(in scratch: Scratch) throws -> String {
        let db = scratch.file("study.sqlite")
        for index in 0..<6 {
            let guarded = index % 2 == 0
            var night = SyntheticNight(seconds: 180, sampleRate: 16_000, seed: 100 + UInt64(index))
            if guarded {
                night.addSnoringBout(from: 60, to: 100, levelDbfs: -46)
            } else {
                night.addSnoringBout(from: 10, to: 80, levelDbfs: -26)
                night.addSnoringBout(from: 100, to: 170, levelDbfs: -26)
            }
            // Named by their start (sleep_recording_<epoch>), a day apart from 23:00 UTC on 2026-11-21.
            let path = scratch.file("sleep_recording_\(1_795_302_000 + index * 86_400).wav")
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: 1, encoding: .pcm16)
            try writer.write(interleaved: night.samples.map(Float.init))
            try writer.close()
            let analysed = try CommandRunner.run(["analyze", path, "--db", db, "--quiet"])
            try #require(analysed.status == 0, "\(analysed.stderr)")
            if guarded { #expect(try CommandRunner.run(["tag", path, "--add", "mouthguard", "--db", db]).status == 0) }
            if index == 1 { #expect(try CommandRunner.run(["tag", path, "--add", "alcohol", "--db", db]).status == 0) }
        }
        return db
    }

    @Test func theTaggedNightsThatSnoreLessShowIt() throws {
        let scratch = Scratch()
        let db = try Self.study(in: scratch)
        let json = try CommandRunner.run(["trends", "--db", db, "--format", "json"])
        try #require(json.status == 0, "\(json.stderr)")
        let value = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(value["nights"] as? Int == 6)
        let rows = value["tags"] as! [[String: Any]]
        #expect(rows.map { $0["tag"] as! String } == ["alcohol", "mouthguard"])
        let guard_ = rows[1], with = guard_["with"] as! [String: Any], without = guard_["without"] as! [String: Any]
        #expect(with["nights"] as? Int == 3 && without["nights"] as? Int == 3)
        let (scoreWith, scoreWithout) = (with["medianScore"] as! Double, without["medianScore"] as! Double)
        #expect(scoreWith > 0 && scoreWith < scoreWithout / 3, "with \(scoreWith), without \(scoreWithout)")
        #expect((with["highestScore"] as! Double) < (without["lowestScore"] as! Double), "every guarded night scores lower")
        #expect((with["medianShare"] as! Double) < (without["medianShare"] as! Double))
        #expect(guard_["tooFewNights"] as? Bool == false)
        #expect(rows[0]["tooFewNights"] as? Bool == true, "one night with alcohol is too few to tell")
        // Every guarded night below every other: the most extreme of the 20 ways to split six nights three and three,
        // which is all three and three can say.
        let (pValue, smallestP) = (guard_["pValue"] as? Double ?? -1, guard_["smallestPValue"] as? Double ?? -1)
        #expect(pValue == 0.1 && smallestP == 0.1, "p \(pValue), at best \(smallestP)")
        let test = value["test"] as? String ?? ""
        #expect(test.hasPrefix("p: the Wilcoxon rank-sum (Mann-Whitney U) test"), "\(test)")

        // The score over the six nights, guarded and not in turn: no trend to speak of.
        let overTime = try #require(value["overTime"] as? [String: Any])
        #expect(overTime["nights"] as? Int == 6 && overTime["firstNight"] as? String != nil, "\(overTime)")
        #expect((overTime["sentence"] as? String)?.hasPrefix("Over 6 nights (") == true, "\(overTime)")
        #expect((overTime["pValue"] as? Double ?? 0) > 0.5, "alternating nights are no trend: \(overTime)")

        let table = try CommandRunner.run(["trends", "--db", db])
        #expect(table.stdout.hasPrefix("Over 6 nights ("), "\(table.stdout)")
        let sentence = table.stdout.split(separator: "\n").first { $0.hasPrefix("with mouthguard, 3 nights: median score ") }
        #expect(sentence != nil, "\(table.stdout)")
        #expect(sentence?.contains("; without, 3 nights: ") == true)
        let verdict = "; 3 and 3 nights cannot tell this from chance (rank-sum test: p = 0.10 at best)"
        #expect(sentence?.hasSuffix(verdict) == true, "\(table.stdout)")
        // As the README and the guide quote it.
        let quoted = "with mouthguard, 3 nights: median score 12 (11-13); without, 3 nights: 74 (73-76)" + verdict
        #expect(sentence.map(String.init) == quoted, "\(table.stdout)")
        #expect(table.stdout.contains("with alcohol, 1 night: median score ") && table.stdout.contains("too few to tell"))
        let csv = try CommandRunner.run(["trends", "--db", db, "--format", "csv"])
        #expect(csv.stdout.hasPrefix("tag,with_nights,with_median_score,") && csv.stdout.contains("\r\nmouthguard,3,"), "\(csv.stdout)")
        #expect(csv.stdout.contains(",too_few_nights,p_value,smallest_p_value,entangled_tags\r\n") && csv.stdout.contains(",0,0.1,0.1,\r\n"),
                "\(csv.stdout)")
        // Kept to the nights without alcohol: five, the mouthguard's three against two.
        let kept = try CommandRunner.run(["trends", "--db", db, "--only-without", "alcohol"])
        #expect(kept.status == 0 && kept.stdout.hasPrefix("Among the 5 nights without alcohol:\nOver 5 nights ("), "\(kept.stdout)")
        #expect(kept.stdout.contains("\nwith mouthguard, 3 nights: median score 12 (11-13); without, 2 nights: "), "\(kept.stdout)")
        #expect(!kept.stdout.contains("with alcohol"), "\(kept.stdout)")
        let unknown = try CommandRunner.run(["trends", "--db", db, "--only-with", "wine"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no night in \(db) is tagged 'wine'; its tags: alcohol, mouthguard"),
                "\(unknown.stderr)")

        // Nights named as the report dates them: from noon to noon, local time.
        func tagList(_ night: String, zone: String = "UTC") throws -> CommandResult {
            try CommandRunner.run(["tag", night, "--db", db], environment: ["TZ": zone])
        }
        func listed(_ result: CommandResult) -> [String] {
            result.stdout.split(separator: "\n").map { ($0.split(separator: "\t")[1] as NSString).lastPathComponent }
        }
        #expect(try listed(tagList("2026-11-22")) == ["sleep_recording_1795388400.wav"], "begun 23:00 UTC on the 22nd")
        #expect(try tagList("2026-11-22").stdout.hasSuffix("\talcohol\n"))
        #expect(try listed(tagList("last")) == ["sleep_recording_1795734000.wav"])
        // In Tonga (UTC+13) 23:00 UTC is noon the next day: the night of the 22nd there.
        #expect(try listed(tagList("2026-11-22", zone: "Pacific/Tongatapu")) == ["sleep_recording_1795302000.wav"])
        let none = try tagList("2026-11-30")
        #expect(none.status == 64 && none.stderr.contains("no recording began on the night of 2026-11-30 (from noon that day to noon the "
                                                          + "next, UTC); the nights stored run from 2026-11-21 to 2026-11-26 (6 nights)"),
                "\(none.stderr)")
        #expect(try CommandRunner.run(["tag", "2026-11-31", "--db", db]).stderr.contains("no analysed recording '2026-11-31'"),
                "not a day of the calendar")

        // The trend page says the same and draws both charts, the tagged nights marked.
        let pages = scratch.file("pages")
        let report = try CommandRunner.run(["report", "--db", db, "--timezone", "UTC", "--no-audio", "--output", pages])
        try #require(report.status == 0, "\(report.stderr)")
        let trend = try String(contentsOfFile: pages + "/index.html", encoding: .utf8)
        let comparison = String(sentence?.dropLast(verdict.count) ?? "-")
        #expect(trend.contains("<h2 id=\"helped\">What helped</h2>") && trend.contains(comparison) && trend.contains(verdict + ".</li>"))
        #expect(trend.contains("<p>Over 6 nights (Sat 21 Nov 2026 to Thu 26 Nov 2026) the snore score "), "the score over time")
        #expect(trend.components(separatedBy: "<svg class=\"bars\"").count - 1 == 2)
        #expect(trend.components(separatedBy: "<rect class=\"bar tagged\"").count - 1 == 2 * 4, "3 guarded nights and 1 with alcohol, in each chart")
        #expect(trend.components(separatedBy: "<rect class=\"tagmark\"").count - 1 == 2 * 4)
        #expect(trend.contains("<desc id=\"chart-score-desc\">Sat 21 Nov 2026: "), "the chart's text alternative names every night")
    }

    @Test func withoutTagsThereIsNothingToCompare() throws {
        let scratch = Scratch()
        let db = scratch.file("one.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        let table = try CommandRunner.run(["trends", "--db", db])
        #expect(table.status == 0 && table.stdout.contains("1 night, none tagged: nothing to compare"), "\(table.stdout)")
        let missing = try CommandRunner.run(["trends", "--db", scratch.file("none.sqlite")])
        #expect(missing.status != 0 && missing.stderr.contains("none.sqlite"))
    }
}
