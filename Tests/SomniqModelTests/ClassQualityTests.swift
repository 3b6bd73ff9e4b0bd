import Foundation
import SomniqModel
import Testing

/// The report card's figures a model folder carries (`quality.tsv`), as `classes` and the morning report read them.
@Suite struct ClassQualityTests {
    static let path = defaultModelPath + "/" + ClassQuality.fileName

    /// The shipped file is the card's per-class table (docs/classifier.md), row for row and digit for digit.
    @Test func theShippedFiguresAreTheCardsTable() throws {
        let quality = try ModelBundle.load(path: defaultModelPath).quality
        let card = try String(contentsOfFile: repositoryRoot + "/docs/classifier.md", encoding: .utf8)
        let header = "| class | clips | sources | leave one source out | grouped 5-fold | shipped |"
        let table = try #require(card.range(of: header).map { card[$0.upperBound...] })
        let rows = table.split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        #expect(rows.count == quality.count && rows.count >= 17, "\(rows.count) rows in the card, \(quality.count) in the file")
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            func pair(_ cell: String) -> (Double?, Double?) {
                let parts = cell.components(separatedBy: " / ")
                return (Double(parts[0]), Double(parts[1]))
            }
            let figures = try #require(quality[cells[0]], "\(cells[0]) is missing from \(Self.path)")
            #expect(figures.clips == Int(cells[1]) && figures.sources == Int(cells[2]), "\(cells[0])")
            #expect((figures.newSourcePrecision, figures.newSourceRecall) == pair(cells[3]), "\(cells[0]), by source")
            #expect((figures.precision, figures.recall) == pair(cells[4]), "\(cells[0]), grouped 5-fold")
        }
    }

    @Test func aFolderWithoutACardHasNone() throws {
        #expect(try ModelBundle.load(path: rulesModelPath).quality.isEmpty)
    }

    @Test func readsEmptyPrecisionAsNeverCalled() throws {
        let text = "# a comment\n\(header)\nwind\t5\t2\t\t0.000\t\t0.000\r\nsnoring\t394\t7\t0.789\t0.845\t0.603\t0.520\n"
        let quality = try ClassQuality.parse(text, path: "q.tsv")
        #expect(quality["wind"] == ClassQuality(clips: 5, sources: 2, precision: nil, recall: 0, newSourcePrecision: nil, newSourceRecall: 0))
        #expect(quality["snoring"]?.precision == 0.789 && quality["snoring"]?.newSourceRecall == 0.52)
    }

    let header = "class\tclips\tsources\tprecision\trecall\tnew_source_precision\tnew_source_recall"

    @Test(arguments: [
        ("snoring\t394\t7\t0.789\t0.845\t0.603\t0.520\n", "q.tsv: error: line 1: expected the header"),
        ("HEADER\nsnoring\t394\t7\t1.789\t0.845\t0.603\t0.520\n", "line 2, precision: '1.789' is not a share from 0 to 1"),
        ("HEADER\nsnoring\t-1\t7\t0.789\t0.845\t0.603\t0.520\n", "line 2, clips: '-1' is not a count"),
        ("HEADER\nsnoring\t394\t7\t0.789\t\t0.603\t0.520\n", "line 2, recall: '' is not a share"),
        ("HEADER\nsnoring\t394\t7\t0.789\t0.845\n", "line 2: 5 cells where the header names 7"),
        ("HEADER\nrain\t1\t1\t0.5\t0.5\t0.5\t0.5\nrain\t1\t1\t0.5\t0.5\t0.5\t0.5\n", "line 3: rain is listed twice"),
        ("# only a comment\n", "the file holds no header line"),
    ])
    func refusesAMalformedFileNamingTheLine(text: String, message: String) {
        #expect {
            _ = try ClassQuality.parse(text.replacingOccurrences(of: "HEADER", with: header), path: "q.tsv")
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    /// A card naming a class the model does not define is another model's: the model is refused, not described wrongly.
    @Test func aCardOfAnotherModelIsRefused() throws {
        let folder = NSTemporaryDirectory() + "somniq-quality-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in [ModelBundle.modelFileName, ModelBundle.profilesFileName] {
            try FileManager.default.copyItem(atPath: rulesModelPath + "/" + name, toPath: folder + "/" + name)
        }
        try "\(header)\nhiccup\t10\t2\t0.5\t0.5\t0.5\t0.5\n".write(toFile: folder + "/quality.tsv", atomically: true, encoding: .utf8)
        #expect {
            _ = try ModelBundle.load(path: folder)
        } throws: { error in
            "\(error)".contains("quality.tsv") && "\(error)".contains("hiccup") && "\(error)".contains("does not define")
        }
    }
}
