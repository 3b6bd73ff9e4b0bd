import Foundation
import Testing

/// What the README and the user guide show the tool printing is what it prints: each quoted line of the sample night's
/// output (its summary under the fitted default and under the hand-written rules, `compare`, a `dcase` export,
/// `evaluate`) is a line of the command's output today, and the clips it lists are the files `clips` writes. Lines the documents elide (`...`), the commands themselves (`$ ...`) and the path,
/// which differs from machine to machine, are not compared.
@Suite struct DocumentedOutputTests {
    static let root = CommandRunner.root
    static let sampleNight = root + "/fixtures/sample-night/sleep_recording_1795302000.caf"

    /// The fenced blocks of `document` whose first line starts with `opening`: their lines, the fences left out.
    static func blocks(in document: String, opening: String) throws -> [[String]] {
        let text = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
        var blocks: [[String]] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = current, block.first?.hasPrefix(opening) == true { blocks.append(block) }
                current = current == nil ? [] : nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The lines of `block` that `output` must hold, each whole.
    static func quoted(_ block: [String]) -> [String] {
        block.filter { line in
            !line.trimmingCharacters(in: .whitespaces).isEmpty && !line.contains("...") && !line.hasPrefix("$ ")
                && !line.hasPrefix("/home/")
        }
    }

    /// Checks that every quoted line of each block is a line of `output`; returns how many lines were compared.
    @discardableResult
    static func expectQuoted(_ blocks: [[String]], in output: String, _ what: String) -> Int {
        let lines = Set(output.split(separator: "\n").map(String.init))
        var compared = 0
        for block in blocks {
            for line in quoted(block) {
                let printed = lines.contains(line)
                #expect(printed, "\(what): the documents quote a line the tool no longer prints: \(line)")
                compared += 1
            }
        }
        return compared
    }

    @Test func theSampleNightsSummaryIsWhatAnalyzePrints() throws {
        let scratch = Scratch()
        let fitted = try CommandRunner.run(["analyze", Self.sampleNight, "--db", scratch.file("default.sqlite"),
                                            "--model", Self.root + "/models/default"])
        #expect(fitted.status == 0, "\(fitted.stderr)")
        let summaries = try Self.blocks(in: "README.md", opening: "/home/you/") + Self.blocks(in: "docs/guide.md", opening: "/home/you/")
        #expect(summaries.count == 2, "the README's quick start and the guide's sample night")
        #expect(Self.expectQuoted(summaries, in: fitted.stdout, "models/default") >= 20)

        let rulesDatabase = scratch.file("rules.sqlite")
        let rules = try CommandRunner.run(["analyze", Self.sampleNight, "--db", rulesDatabase, "--model", Self.root + "/models/rules"])
        #expect(rules.status == 0, "\(rules.stderr)")
        let designed = try Self.blocks(in: "docs/guide.md", opening: "$ scripts/quickstart --model models/rules")
        #expect(designed.count == 1)
        #expect(Self.expectQuoted(designed, in: rules.stdout, "models/rules") >= 9)

        let compare = try CommandRunner.run(["compare", Self.sampleNight, "--model", Self.root + "/models/rules"])
        let compared = try Self.blocks(in: "docs/guide.md", opening: "$ somniq-analyze compare")
        #expect(compare.status == 0 && compared.count == 1)
        #expect(Self.expectQuoted(compared, in: compare.stdout, "compare") >= 12)

        let export = try CommandRunner.run(["export", "--db", rulesDatabase, "--profile", "balanced", "--format", "dcase"])
        let exported = try Self.blocks(in: "docs/guide.md", opening: "$ somniq-analyze export --profile balanced --format dcase")
        #expect(export.status == 0 && exported.count == 1)
        #expect(Self.expectQuoted(exported, in: export.stdout, "export") >= 3)

        let evaluate = try CommandRunner.run(["evaluate", Self.sampleNight, "--labels", Self.root + "/fixtures/sample-night/sleep_recording_1795302000.tsv",
                                              "--profile", "balanced", "--model", Self.root + "/models/rules"])
        let scored = try Self.blocks(in: "docs/guide.md", opening: "profile balanced")
        #expect(evaluate.status == 0 && scored.count == 1)
        #expect(Self.expectQuoted(scored, in: evaluate.stdout, "evaluate") >= 12)

        // The clips the guide lists, by name, and what `clips` says it wrote.
        let clips = try CommandRunner.run(["clips", "--db", rulesDatabase, "--output", scratch.file("clips") + "/"])
        let listed = try Self.blocks(in: "docs/guide.md", opening: "$ somniq-analyze clips --output clips/")
        #expect(clips.status == 0 && listed.count == 1)
        let said = listed.first?.first { $0.hasPrefix("wrote ") } ?? "?"
        #expect(clips.stderr.contains(said.replacingOccurrences(of: "clips/", with: scratch.file("clips") + "/")), "\(clips.stderr)")
        let names = (listed.first ?? []).filter { !$0.hasPrefix("$ ") && !$0.hasPrefix("wrote ") }
            .flatMap { $0.split(separator: " ").map(String.init) }
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.file("clips")).sorted()
        #expect(names.count == 9 && names.sorted() == written, "\(names) against \(written)")
    }

    /// The checker itself: a line changed by a character is caught, elided and command lines are skipped.
    @Test func aChangedLineIsCaught() {
        let block = ["$ somniq-analyze compare x", "alerts   3", "  ...", "episodes 2", ""]
        #expect(Self.quoted(block) == ["alerts   3", "episodes 2"])
        #expect(Set("alerts   3\nepisodes 2\n".split(separator: "\n").map(String.init)).isSuperset(of: Self.quoted(block)))
        #expect(!Set("alerts   3\nepisodes 3\n".split(separator: "\n").map(String.init)).isSuperset(of: Self.quoted(block)))
    }
}
