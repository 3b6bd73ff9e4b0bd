import Foundation
import SomniqModel
import SomniqStore

/// Writes the pages of `somniq-analyze report`: one page per night, and a trend page when there are several.
///
/// One night to a path ending in `.html` writes that file, its clips in a folder beside it named after it
/// (`night.html` → `night_audio/`). Otherwise the output is a folder: each night's page is
/// `night-<date of the evening>-r<id>.html` with its clips in `night-<local date>-r<id>_audio/`, and with several nights
/// `index.html` is the trend page. Every file is written whole or not at all (a temporary file renamed).
public struct ReportWriter {
    public struct Options {
        public var profile: String
        public var clock: LocalClock
        /// Embed the clips in the page (base64 WAV) instead of a folder beside it.
        public var embedAudio: Bool
        /// No clips at all (the page is written from the database alone; the recordings need not be reachable).
        public var withoutAudio: Bool
        public var margin: Double
        public var maximumClipSeconds: Double

        public init(profile: String, clock: LocalClock, embedAudio: Bool = false, withoutAudio: Bool = false, margin: Double = 2,
                    maximumClipSeconds: Double = 60) {
            self.profile = profile
            self.clock = clock
            self.embedAudio = embedAudio
            self.withoutAudio = withoutAudio
            self.margin = margin
            self.maximumClipSeconds = maximumClipSeconds
        }
    }

    /// What was written, and what went wrong per recording (the others' pages are written all the same).
    public struct Outcome {
        public var pages: [String] = []
        public var trendPage: String?
        public var clipCount = 0
        /// Recordings without a page: (id, why).
        public var failures: [(Int64, String)] = []
        /// Pages written without their audio: (page, why).
        public var audioProblems: [(String, String)] = []
    }

    public let builder: NightReportBuilder
    public let options: Options

    public init(builder: NightReportBuilder, options: Options) {
        self.builder = builder
        self.options = options
    }

    public static func isSinglePagePath(_ output: String) -> Bool {
        let lower = output.lowercased()
        return lower.hasSuffix(".html") || lower.hasSuffix(".htm")
    }

    public func write(recordingIDs: [Int64], output: String, progress: (String) -> Void = { _ in }) throws -> Outcome {
        var outcome = Outcome()
        let single = recordingIDs.count == 1 && Self.isSinglePagePath(output)
        let folder = single ? (output as NSString).deletingLastPathComponent : output
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        var nights: [TrendPage.Night] = []
        for (number, id) in recordingIDs.enumerated() {
            progress("report: night \(number + 1) of \(recordingIDs.count) (recording \(id))")
            var report: NightReport
            do {
                report = try builder.report(recordingID: id, profile: options.profile)
            } catch {
                outcome.failures.append((id, "\(error)"))
                continue
            }
            let stem = single ? ((output as NSString).lastPathComponent as NSString).deletingPathExtension
                : "night-\(options.clock.isoDate(options.clock.nightOf(report.recording.startMilliseconds)))-r\(id)"
            let page = (folder as NSString).appendingPathComponent(stem + ".html")
            if !options.withoutAudio {
                let audioFolder = stem + "_audio"
                let placement: NightReportBuilder.AudioPlacement = options.embedAudio
                    ? .embedded(scratch: (NSTemporaryDirectory() as NSString).appendingPathComponent("somniq-report-\(getpid())-\(id)"))
                    : .folder(path: (folder as NSString).appendingPathComponent(audioFolder), href: Self.href(audioFolder))
                if let problem = NightReportBuilder.attachAudio(to: &report, placement: placement, margin: options.margin,
                                                                maximumSeconds: options.maximumClipSeconds) {
                    outcome.audioProblems.append((page, problem))
                }
                if case .embedded(let scratch) = placement { try? FileManager.default.removeItem(atPath: scratch) }
                outcome.clipCount += report.episodes.count { $0.clip != nil }
            }
            let trendHref = recordingIDs.count > 1 && !single ? "index.html" : nil
            try Self.writeAtomically(NightPage(report: report, clock: options.clock, trendHref: trendHref).render(), to: page)
            outcome.pages.append(page)
            report.episodes = report.episodes.map { var episode = $0; episode.clip = nil; return episode }  // the trend page needs no audio
            nights.append(TrendPage.Night(report: report, href: Self.href(stem + ".html")))
        }
        if recordingIDs.count > 1 && !nights.isEmpty {
            let index = (folder as NSString).appendingPathComponent("index.html")
            try Self.writeAtomically(TrendPage(nights: nights, clock: options.clock).render(), to: index)
            outcome.trendPage = index
        }
        return outcome
    }

    /// A file name as a relative URL (percent-encoded where a name could break one).
    static func href(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? name
    }

    static func writeAtomically(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
