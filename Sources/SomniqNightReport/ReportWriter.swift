import Foundation
import SomniqFiles
import SomniqModel
import SomniqPipeline
import SomniqReports
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
        /// The database read and the recordings it knows: never written over (see `OutputSafety`).
        public var database: String?
        public var recordings: [String] = []
        /// Replace an existing page even if it is not an earlier report page.
        public var force = false

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
        /// Pages not written because a file that is not an earlier report page, or an input, holds their name.
        public var refusals: [OutputSafety.Refusal] = []
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
        // `-`: one night's page on standard output (its audio embedded or left out: there is no folder beside it).
        let toStandardOutput = output == "-"
        precondition(!toStandardOutput || (recordingIDs.count == 1 && (options.embedAudio || options.withoutAudio)),
                     "a page on standard output is one night's, without an audio folder")
        let single = recordingIDs.count == 1 && (toStandardOutput || Self.isSinglePagePath(output))
        let folder = toStandardOutput ? "" : single ? (output as NSString).deletingLastPathComponent : output
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // Every night's report first, so that the page of a piece of a night recorded in pieces can link the others'.
        let stored = try NightPieces.nights(in: builder.store, timeZone: options.clock.timeZone)
        var planned: [(report: NightReport, stem: String, page: String)] = []
        for (number, id) in recordingIDs.enumerated() {
            progress("report: night \(number + 1) of \(recordingIDs.count) (recording \(id))")
            let report: NightReport
            do {
                report = try builder.report(recordingID: id, profile: options.profile, nights: stored)
            } catch {
                outcome.failures.append((id, "\(error)"))
                continue
            }
            let stem = single ? ((output as NSString).lastPathComponent as NSString).deletingPathExtension
                : "night-\(options.clock.isoDate(options.clock.nightOf(report.recording.startMilliseconds)))-r\(id)"
            let page = toStandardOutput ? "-" : (folder as NSString).appendingPathComponent(stem + ".html")
            if !toStandardOutput, let refusal = refusal(page) {
                outcome.refusals.append(refusal)
                continue
            }
            planned.append((report, stem, page))
        }
        let pageOf = single ? [:] : Dictionary(uniqueKeysWithValues: planned.map { ($0.report.recording.id, Self.href($0.stem + ".html")) })
        var nights: [TrendPage.Night] = []
        for (number, entry) in planned.enumerated() {
            var report = entry.report
            let (stem, page, id) = (entry.stem, entry.page, report.recording.id)
            for index in report.pieces.indices where report.pieces[index].recordingID != id {
                report.pieces[index].href = pageOf[report.pieces[index].recordingID]
            }
            if !options.withoutAudio {
                progress("report: audio of night \(number + 1) of \(planned.count) (recording \(id))")
                let audioFolder = stem + "_audio"
                let placement: NightReportBuilder.AudioPlacement = options.embedAudio
                    ? .embedded(scratch: (NSTemporaryDirectory() as NSString).appendingPathComponent("somniq-report-\(getpid())-\(id)"))
                    : .folder(path: (folder as NSString).appendingPathComponent(audioFolder), href: Self.href(audioFolder))
                switch placement {
                case .embedded(let scratch): PartialFiles.remember(scratch)
                case .folder(let path, _): PartialFiles.removeStale(inFolder: path)
                }
                if let problem = NightReportBuilder.attachAudio(to: &report, placement: placement, margin: options.margin,
                                                                maximumSeconds: options.maximumClipSeconds) {
                    outcome.audioProblems.append((page, problem))
                }
                if case .embedded(let scratch) = placement {
                    try? FileManager.default.removeItem(atPath: scratch)
                    PartialFiles.forget(scratch)
                }
                outcome.clipCount += report.episodes.count { $0.clip != nil }
            }
            let trendHref = recordingIDs.count > 1 && !single ? "index.html" : nil
            let html = NightPage(report: report, clock: options.clock, trendHref: trendHref).render()
            if toStandardOutput {
                let sink = ByteSink.standardOutput()
                sink.write(html)
                try sink.finish()
            } else {
                try Self.writeAtomically(html, to: page)
            }
            outcome.pages.append(page)
            nights.append(TrendPage.Night(report: entry.report, href: Self.href(stem + ".html")))  // the trend page needs no audio
        }
        if recordingIDs.count > 1 && !nights.isEmpty {
            let index = (folder as NSString).appendingPathComponent("index.html")
            if let refusal = refusal(index) {
                outcome.refusals.append(refusal)
            } else {
                try Self.writeAtomically(TrendPage(nights: nights, clock: options.clock).render(), to: index)
                outcome.trendPage = index
            }
        }
        return outcome
    }

    /// A file name as a relative URL (percent-encoded where a name could break one).
    static func href(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? name
    }

    /// Why `page` may not be written, if it may not: it is the database or a recording, or a file other than an earlier
    /// report page (without `force`).
    func refusal(_ page: String) -> OutputSafety.Refusal? {
        do {
            let destination = try OutputSafety.check(page, database: options.database, recordings: options.recordings,
                                                     force: options.force, what: "report page", isOurs: Self.looksLikeAPage)
            return destination == .file ? nil : .notAFile(output: page, kind: "a device or a named pipe")
        } catch {
            return error
        }
    }

    /// Whether `head` (a file's first bytes) is the start of a page this tool wrote.
    static func looksLikeAPage(_ head: Data) -> Bool {
        String(decoding: head, as: UTF8.self).contains(PageStyle.generatorMeta)
    }

    /// Writes a page whole or not at all (`ByteSink`: a hidden partial file renamed into place, removed if interrupted).
    static func writeAtomically(_ text: String, to path: String) throws {
        let sink = try ByteSink.file(path)
        sink.write(text)
        try sink.finish()
    }
}
