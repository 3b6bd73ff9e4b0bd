import ArgumentParser
import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqPipeline
import SomniqStore

struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow a recording while it is being made, and print each alert as it is raised.",
        discussion: """
            Reads a WAV, CAF or FLAC file that a recorder is still writing (its header not yet final, or simply \
            growing), analyses the audio as it arrives, and prints each alert of the profile on stdout the moment it \
            is settled: at once for a class heard as the classifier hears it (a smoke alarm), once its bout is \
            settled for snoring (up to about three minutes later). The alerts printed are those 'analyze' stores for \
            the finished file, at the same offsets. It ends when the recorder finalises the file, when the file has \
            not grown for --idle seconds, or on SIGINT or SIGTERM; then it stores the night as 'analyze' would, \
            in --db.
            Exit status: 0 followed and stored; 1 the audio could not be read; 2 the model or database is unusable; \
            64 usage error.
            """)

    @Argument(help: ArgumentHelp("The recording being written.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("SQLite database to store the night in at the end.", valueName: "path"))
    var db = "somniq.sqlite"

    @Option(help: ArgumentHelp("Profile whose alerts are printed. Default: the model's default (balanced).", valueName: "name"))
    var profile: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("Seconds without the file growing after which the recording is taken to have ended.", valueName: "seconds"))
    var idle = 30.0

    @Option(help: "How each alert is printed: text (a line for people) or jsonl (one JSON object a line).")
    var format = Format.text

    @Option(name: .customLong("on-alert"), help: ArgumentHelp(
        "A command to run for each alert, executed directly (no shell), the alert in its environment: SOMNIQ_CLASS, SOMNIQ_TIER, SOMNIQ_KIND, SOMNIQ_OFFSET_S, SOMNIQ_TIME, SOMNIQ_CONFIDENCE, SOMNIQ_PROFILE, SOMNIQ_RECORDING.",
        valueName: "command"))
    var onAlert: String?

    @Option(name: .customLong("on-alert-timeout"), help: ArgumentHelp("Seconds an --on-alert command may run before it is stopped.", valueName: "seconds"))
    var onAlertTimeout = 10.0

    @Option(help: ArgumentHelp(
        "Recording start time (ISO 8601 with zone); otherwise from the file name, or the moment the follow began minus the audio already in the file.",
        valueName: "iso8601"))
    var start: String?

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    func validate() throws {
        if !(idle > 0) { throw ValidationError("--idle must be a positive number of seconds") }
        if !(onAlertTimeout > 0) { throw ValidationError("--on-alert-timeout must be a positive number of seconds") }
        if let start, let problem = RecordingStartTime.problem(withISO8601: start) {
            throw ValidationError("--start \(start): \(problem)")
        }
    }

    func run() throws {
        let bundle = try modelOptions.load()
        let name = profile ?? bundle.profiles.defaultProfile
        guard let chosen = bundle.profiles.profile(named: name) else {
            throw ValidationError("unknown profile '\(name)'; choose one of \(bundle.profiles.profileNames.joined(separator: ", "))")
        }
        let command: AlertCommand?
        do {
            command = try onAlert.map { try AlertCommand(command: $0, timeoutSeconds: onAlertTimeout, report: { Terminal.error($0) }) }
        } catch {
            throw ValidationError(String(describing: error))
        }
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let source: GrowingAudioSource
        do {
            source = try GrowingAudioSource(path: path, idleSeconds: idle)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.someInputsFailed
        }
        let store = try StoreOpening.open(db)
        let began = Date()
        let analyzer = RecordingAnalyzer(bundle: bundle)
        let rules = bundle.rules(for: chosen, frameHz: AnalysisGrid.frameHz)
        var live = LiveAlerts(profile: chosen, bundle: bundle)
        var startDate = start.flatMap(RecordingStartTime.parseISO8601)
        let printer = AlertPrinter(format: format, profile: chosen.name, classIDs: bundle.classifier.classIDs, path: path)
        func raise(_ alerts: [Alert], start: Date) {
            for alert in alerts {
                let tier = rules[alert.classIndex]?.tier ?? bundle.classifier.classes[alert.classIndex].tier
                let fields = printer.fields(alert, tier: tier, start: start)
                Terminal.output(printer.line(fields) + "\n")
                command?.submit(fields.environment)
            }
        }
        let interruption = SignalCatcher(signals: [SIGINT, SIGTERM]) { _ in source.stop() }
        if Terminal.stderrIsTerminal { Terminal.error("following \(path) under \(chosen.name); Ctrl-C ends it and stores the night") }
        let heard: RecordingAnalyzer.Heard
        do {
            heard = try analyzer.follow(source) { heard in
                // The start: as given, from the file name, or the moment the follow began minus the audio there then.
                let start = startDate ?? RecordingStartTime.dateFromFileName(path) ?? began.addingTimeInterval(-heard.heardSeconds)
                startDate = start
                raise(live.update(confidences: heard.confidences, windowCount: heard.windowCount, envelope: heard.envelope,
                                  heardSeconds: heard.heardSeconds), start: start)
            }
        } catch {
            interruption.stop()
            command?.finish()
            Terminal.error(error.description)
            throw ExitStatus.someInputsFailed
        }
        interruption.stop()
        // What the recording ended too soon after to settle, from the whole of it.
        let timeline = analyzer.timeline(envelope: heard.envelope, confidences: heard.confidences, windowCount: heard.windowCount)
        let whole = ProfileRunner.run(profile: chosen, bundle: bundle, confidences: heard.confidences, windowCount: heard.windowCount,
                                      durationSeconds: heard.heardSeconds, timeline: timeline)
        if let start = startDate { raise(live.finish(whole), start: start) }
        // The night is stored as `analyze` stores the finished file: the same rows.
        let batch = BatchAnalyzer(analyzer: analyzer, store: store, profiles: [chosen], jobs: 1, reanalyze: false,
                                  explicitStart: startDate, startsByPath: [:])
        batch.run([path]) { _ in }
        let failure = batch.snapshot.failures.first?.reason
        command?.finish()
        if let failure {
            Terminal.error("\(path): error: the night was followed (\(Formatting.clock(heard.heardSeconds))) but could not be stored: \(failure)")
            throw ExitStatus.someInputsFailed
        }
        let ending = switch source.endReason {
        case .finalised?: "the recorder finished the file"
        case .stopped?: "stopped"
        case .idle?, nil: "the file did not grow for \(Formatting.fixed(idle, 0)) s"
        }
        Terminal.error("\(path): \(Formatting.clock(heard.heardSeconds)) followed (\(ending)); stored in \(db)")
    }
}

/// An alert as `follow` prints it and hands it to `--on-alert`.
struct AlertPrinter {
    let format: FollowCommand.Format
    let profile: String
    let classIDs: [String]
    let path: String

    struct Fields {
        var classID: String, tier: String, kind: String, offsetSeconds: Double, time: String, confidence: Float
        var environment: [String: String]
    }

    func fields(_ alert: Alert, tier: AlertTier, start: Date) -> Fields {
        let offset = AnalysisGrid.windowStartSeconds(alert.frame) + AnalysisGrid.windowSeconds
        let time = UTCTimestamp.format(milliseconds: UTCTimestamp.milliseconds(
            startMilliseconds: Int64((start.timeIntervalSince1970 * 1000).rounded()), offsetSeconds: offset))
        let classID = classIDs[alert.classIndex]
        return Fields(classID: classID, tier: tier.rawValue, kind: alert.kind.rawValue, offsetSeconds: offset, time: time,
                      confidence: alert.confidence,
                      environment: ["SOMNIQ_CLASS": classID, "SOMNIQ_TIER": tier.rawValue, "SOMNIQ_KIND": alert.kind.rawValue,
                                    "SOMNIQ_OFFSET_S": Formatting.fixed(offset, 1), "SOMNIQ_TIME": time,
                                    "SOMNIQ_CONFIDENCE": Formatting.fixed(Double(alert.confidence), 3),
                                    "SOMNIQ_PROFILE": profile, "SOMNIQ_RECORDING": path])
    }

    func line(_ fields: Fields) -> String {
        switch format {
        case .text:
            return "\(fields.time)  +\(Formatting.clock(fields.offsetSeconds))  \(fields.classID) (\(fields.tier), \(fields.kind))  "
                + "confidence \(Formatting.fixed(Double(fields.confidence), 2))"
        case .jsonl:
            let object: [String: Any] = ["class": fields.classID, "tier": fields.tier, "kind": fields.kind, "time": fields.time,
                                         "offset_s": fields.offsetSeconds, "confidence": Double(fields.confidence),
                                         "profile": profile]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
