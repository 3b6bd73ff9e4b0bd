import Foundation
import Testing

/// Every relative link and anchor in the project's Markdown files leads somewhere: the file exists, and a `#anchor`
/// names a heading of it (as GitHub makes anchors from headings).
@Suite struct DocumentationLinkTests {
    static let root = CommandRunner.root

    /// The Markdown files a reader follows links through.
    static var documents: [String] {
        let fixed = ["README.md", "CHANGELOG.md", "models/default/README.md", "models/rules/README.md", "scripts/bench/RESULTS.md"]
        let docs = ((try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return (fixed + docs).filter { FileManager.default.fileExists(atPath: root + "/" + $0) }
    }

    struct Link: Equatable {
        var target: String
        var line: Int
    }

    /// The inline links and images of `text`, outside code blocks and code spans.
    static func links(in text: String) -> [Link] {
        var links: [Link] = []
        var inFence = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            // Code spans hold examples, not links.
            let plain = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = Substring(plain)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = String(after[..<close]).split(separator: " ").first.map(String.init) ?? ""
                links.append(Link(target: target, line: number + 1))
                rest = after[close...]
            }
        }
        return links
    }

    /// GitHub's anchors for the headings of `text`: lower case, spaces to hyphens, punctuation but `-` and `_` dropped;
    /// a repeated one gets `-1`, `-2`, ...
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors = Set<String>()
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#") else { continue }
            let heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for character in heading.lowercased() {
                if character.isLetter || character.isNumber || character == "-" || character == "_" {
                    slug.append(character)
                } else if character == " " {
                    slug.append("-")
                }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let documents = Self.documents
        #expect(documents.contains("README.md") && documents.contains { $0.hasPrefix("docs/") })
        var checked = 0
        for document in documents {
            let text = try String(contentsOfFile: Self.root + "/" + document, encoding: .utf8)
            let folder = (document as NSString).deletingLastPathComponent
            for link in Self.links(in: text) where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
                checked += 1
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].isEmpty ? document : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let full = Self.root + "/" + path
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory),
                        "\(document):\(link.line): \(link.target): no such file")
                if parts.count == 2, !isDirectory.boolValue, let target = try? String(contentsOfFile: full, encoding: .utf8) {
                    #expect(Self.anchors(in: target).contains(parts[1]), "\(document):\(link.line): \(link.target): no such heading")
                }
            }
        }
        #expect(checked >= 20, "the README and docs link to each other")
    }

    /// The checker itself: a broken file, a broken anchor, and links in code are told apart.
    @Test func theCheckerFindsLinksAndAnchorsAsGitHubMakesThem() {
        let text = "# A title\n## The sample night, in detail\n## Repeat\n## Repeat\nSee [x](docs/a.md#b) and `[no](link)`.\n"
            + "```\n[not](a link)\n```\n![pic](p.png)\n"
        #expect(Self.links(in: text).map(\.target) == ["docs/a.md#b", "p.png"])
        #expect(Self.anchors(in: text) == ["a-title", "the-sample-night-in-detail", "repeat", "repeat-1"])
    }
}
