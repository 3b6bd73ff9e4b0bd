import Foundation
import Testing

/// Night tags (#47 item 3): added and removed without reanalysis, kept through one, listed, and carried by a merge.
@Suite struct TagCommandTests {
    @Test func tagsAreStoredListedAndOutliveAReanalysis() throws {
        let scratch = Scratch()
        let night = scratch.file("night.caf")
        try FileManager.default.copyItem(atPath: sampleNight, toPath: night)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)

        let added = try CommandRunner.run(["tag", "1", "--add", "mouthguard", "--add", "no alcohol", "--db", db])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "1\t\(night)\tmouthguard,no alcohol\n", "\(added.stdout)")
        let byPath = try CommandRunner.run(["tag", night, "--remove", "no alcohol", "--add", "side", "--db", db])
        #expect(byPath.stdout.hasSuffix("\tmouthguard,side\n"), "\(byPath.stdout)")

        let again = try CommandRunner.run(["analyze", night, "--db", db, "--reanalyze", "--quiet"])
        #expect(again.status == 0)
        let listed = try CommandRunner.run(["tag", "--db", db])
        #expect(listed.stdout.hasSuffix("\tmouthguard,side\n"), "the tags outlive the reanalysis: \(listed.stdout)")
        let recordings = try CommandRunner.run(["recordings", "--db", db, "--format", "csv"])
        // The tags column, then the start's source (the copy named night.caf is dated by its file), then neither clipped
        // nor with channels that cancel, and its channels mixed (no one channel).
        #expect(recordings.stdout.contains(",\"mouthguard,side\",modification-time,0,0,\r\n"),
                "\(recordings.stdout)")

        let exported = try CommandRunner.run(["export", "--db", db, "--format", "json", "--what", "episodes"])
        let json = try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as! [String: Any]
        let recording = try #require((json["recordings"] as? [[String: Any]])?.first)
        #expect(recording["tags"] as? [String] == ["mouthguard", "side"], "\(recording)")
        let comma = try CommandRunner.run(["tag", "1", "--add", "a,b", "--db", db])
        #expect(comma.status == 64 && comma.stderr.contains("no comma"), "\(comma.stderr)")
        let nobody = try CommandRunner.run(["tag", "--add", "x", "--db", db])
        #expect(nobody.status == 64, "\(nobody.stderr)")
    }

    /// Tags compare exactly: a typo in --remove, or a tag that differs from one in use only by case (which `trends`
    /// would count apart), is named on stderr; neither stops the command nor changes what it does.
    @Test func aTagRemovedThatIsNotThereOrAddedInAnotherCaseIsNamed() throws {
        let scratch = Scratch()
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, "--db", db, "--quiet"]).status == 0)
        let first = try CommandRunner.run(["tag", "1", "--add", "mouthguard", "--db", db])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")

        let twin = try CommandRunner.run(["tag", "1", "--add", "Mouthguard", "--db", db])
        #expect(twin.status == 0, "\(twin.stderr)")
        #expect(twin.stderr.contains("tag 'Mouthguard': warning: a new tag, though 'mouthguard' is in use"), "\(twin.stderr)")
        #expect(twin.stdout.hasSuffix("\tMouthguard,mouthguard\n"), "added as written: \(twin.stdout)")
        let again = try CommandRunner.run(["tag", "1", "--add", "Mouthguard", "--db", db])
        #expect(again.stderr.isEmpty, "a tag in use is not new: \(again.stderr)")

        let typo = try CommandRunner.run(["tag", "1", "--remove", "mouthgaurd", "--remove", "Mouthguard", "--db", db])
        #expect(typo.status == 0, "\(typo.stderr)")
        #expect(typo.stderr.contains("warning: it has no tag 'mouthgaurd'; nothing removed (its tags: 'Mouthguard', 'mouthguard')"),
                "\(typo.stderr)")
        #expect(!typo.stderr.contains("no tag 'Mouthguard'"), "\(typo.stderr)")
        #expect(typo.stdout.hasSuffix("\tmouthguard\n"), "\(typo.stdout)")
    }

    @Test func aFailedRecordingTakesNoTagAndAMergeCarriesThem() throws {
        let scratch = Scratch()
        let bad = scratch.file("notes.wav")
        try "not audio".write(toFile: bad, atomically: true, encoding: .utf8)
        let shard = scratch.file("shard.sqlite")
        #expect(try CommandRunner.run(["analyze", sampleNight, bad, "--db", shard, "--quiet"]).status == 1)
        let rows = try CommandRunner.run(["recordings", "--db", shard, "--format", "csv"]).stdout.split(whereSeparator: \.isNewline)
        let failedID = try #require(rows.first { $0.contains(",failed,") }?.split(separator: ",").first)
        let goodID = try #require(rows.first { $0.contains(",complete,") }?.split(separator: ",").first)
        let failed = try CommandRunner.run(["tag", String(failedID), "--add", "x", "--db", shard])
        #expect(failed.status == 1 && failed.stderr.contains("its analysis failed"), "\(failed.stderr)")
        #expect(try CommandRunner.run(["tag", String(goodID), "--add", "mouthguard", "--db", shard]).status == 0)
        let study = scratch.file("study.sqlite")
        #expect(try CommandRunner.run(["merge", shard, "--into", study]).status == 0)
        let listed = try CommandRunner.run(["tag", "--db", study])
        #expect(listed.stdout.hasSuffix("\tmouthguard\n"), "\(listed.stdout)")
    }

    /// A manifest's `tags` column tags each night as it is analysed; a tag that cannot be one stops the run, named.
    @Test func aManifestsTagsColumnTagsTheNights() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CommandRunner.root + "/fixtures/nights/apnea-night_8k.caf", toPath: scratch.file("in/a.caf"))
        try FileManager.default.copyItem(atPath: sampleNight, toPath: scratch.file("in/b.caf"))
        let manifest = scratch.file("in/study.csv")
        try "path,tags\na.caf,\"mouthguard, side\"\nb.caf,\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", "--manifest", manifest, "--db", db, "--quiet"]).status == 0)
        let listed = try CommandRunner.run(["tag", "--db", db]).stdout.split(whereSeparator: \.isNewline)
        #expect(listed.contains { $0.contains("a.caf") && $0.hasSuffix("\tmouthguard,side") }, "\(listed)")
        #expect(listed.contains { $0.contains("b.caf") && $0.hasSuffix("\t") }, "\(listed)")

        try "path,tags\na.caf,\"ok,\u{1B}[31m\"\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let bad = try CommandRunner.run(["analyze", "--manifest", manifest, "--db", scratch.file("o.sqlite")])
        #expect(bad.status == 64 && bad.stderr.contains("study.csv:2: error: tag \"\\u{1B}[31m\""), "\(bad.stderr)")
        #expect(!bad.stderr.contains("\u{1B}"), "the escape is shown, not sent to the terminal")
    }

    /// `analyze --tag` tags every night it is given, those analysed and those the database already held (their other
    /// tags kept); a file that fails takes none and stops nothing; a tag that cannot be one is refused before any work.
    @Test func analyzeTagsTheNightsItIsGiven() throws {
        let scratch = Scratch()
        let (night, other, bad) = try scratch.nightOtherAndNotes(other: CommandRunner.root + "/fixtures/nights/apnea-night_8k.caf")
        let db = scratch.file("db.sqlite")
        #expect(try CommandRunner.run(["analyze", night, "--db", db, "--quiet"]).status == 0)
        #expect(try CommandRunner.run(["tag", night, "--add", "side", "--db", db]).status == 0)

        let tagged = try CommandRunner.run(["analyze", night, other, bad, "--db", db, "--quiet", "--tag", "mouthguard", "--tag", "no alcohol"])
        #expect(tagged.status == 1, "the bad file fails, the others are done: \(tagged.stderr)")
        #expect(tagged.stderr.contains("tagged 2 nights 'mouthguard', 'no alcohol'"), "\(tagged.stderr)")
        let listed = try CommandRunner.run(["tag", "--db", db]).stdout.split(whereSeparator: \.isNewline)
        #expect(listed.contains { $0.contains("night.caf") && $0.hasSuffix("\tmouthguard,no alcohol,side") }, "\(listed)")
        #expect(listed.contains { $0.contains("other.caf") && $0.hasSuffix("\tmouthguard,no alcohol") }, "\(listed)")
        #expect(listed.count == 2, "the failed file is no night to list: \(listed)")

        let twin = try CommandRunner.run(["analyze", other, "--db", db, "--quiet", "--tag", "Side"])
        #expect(twin.status == 0 && twin.stderr.contains("tag 'Side': warning: a new tag, though 'side' is in use"), "\(twin.stderr)")

        let fresh = scratch.file("fresh.sqlite")
        let refused = try CommandRunner.run(["analyze", night, "--db", fresh, "--tag", "a,b"])
        #expect(refused.status == 64 && refused.stderr.contains("--tag tag 'a,b': a tag holds no comma"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh), "nothing analysed, no database made")
    }
}
