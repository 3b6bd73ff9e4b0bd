import ArgumentParser
import Foundation
import SomniqCluster
import SomniqPipeline
import SomniqStore

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge shard databases (analyze --shard) into one study database.",
        discussion: """
            Each shard is merged in one transaction: interrupted, nothing of it is written; run again, what the study \
            holds is skipped. Recordings are known by the hash of their audio, so merging a shard twice, or shards \
            that overlap, adds nothing. Shards analysed with another model or other profiles than the study's (or the \
            first shard's) are refused, named with what differs, unless --allow-mixed-models.
            Exit status: 0 every shard merged; 1 some refused (each named on stderr, the others merged); 2 the study \
            database cannot be opened or written; 64 usage error.
            """)

    @Argument(help: ArgumentHelp("Shard databases to merge.", valueName: "shard.sqlite"))
    var shards: [String]

    @Option(help: ArgumentHelp("The study database to merge into (created if missing, and not left behind if no shard is merged).", valueName: "path"))
    var into: String

    @Flag(help: "Merge shards analysed with another model or other profiles than the study's.")
    var allowMixedModels = false

    func validate() throws {
        if shards.isEmpty { throw ValidationError("name the shard databases to merge") }
    }

    func run() throws {
        let creates = !FileManager.default.fileExists(atPath: into)
        let study = try StoreOpening.open(into)
        // A study this command creates and merges nothing into (every shard refused, or interrupted before the first) is
        // not left behind: an empty study would read as a merge that ran.
        func discardIfEmpty(_ reports: [StudyMerger.Report]) {
            guard creates, !reports.contains(where: { $0.outcome != nil }) else { return }
            StoreOpening.discardCreated(study)
            Terminal.error("\(into): not created, as no shard was merged into it")
        }
        // SIGINT or SIGTERM stops the shard under way (its transaction rolled back) and the rest, says what was merged,
        // and leaves the study one file (the databases are closed, and checkpointed, on the way out).
        let interruption = SignalCatcher(signals: [SIGINT, SIGTERM]) { _ in study.interrupt() }
        defer { interruption.stop() }
        let reports = StudyMerger(study: study, allowMixedModels: allowMixedModels)
            .merge(shards, isCancelled: { interruption.received != nil }) { Terminal.progress($0) }
        Terminal.clearProgress()
        if let signal = interruption.received {
            let merged = reports.filter { $0.outcome != nil }
            let added = merged.reduce(0) { $0 + ($1.outcome?.added ?? 0) }
            Terminal.error("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM"): merged \(merged.count) of \(Formatting.counted(shards.count, "shard")) "
                           + "into \(into) (\(Formatting.counted(added, "recording")) added), the shard under way not at all; run the same command again "
                           + "to merge the rest (what the study holds is skipped)")
            discardIfEmpty(reports)
            throw ExitCode(128 + signal)
        }
        var added = 0, already = 0, failures = 0, refused = 0
        for report in reports {
            if let outcome = report.outcome {
                added += outcome.added
                already += outcome.alreadyThere
                failures += outcome.failuresAdded
                Terminal.error("\(report.shard): \(Formatting.counted(outcome.added, "recording")) added, \(outcome.alreadyThere) already in the study"
                               + (outcome.failuresAdded > 0 ? ", \(Formatting.counted(outcome.failuresAdded, "failed file")) recorded" : ""))
            } else {
                refused += 1
                // A store error names its file already; a refusal of ours is prefixed with the shard.
                let reason = report.refusal ?? "not merged"
                Terminal.error(reason.hasPrefix(report.shard + ": ") ? reason : "\(report.shard): error: \(reason)")
            }
        }
        Terminal.error("merged \(reports.count - refused) of \(Formatting.counted(reports.count, "shard")) into \(into): \(Formatting.counted(added, "recording")) added, "
                       + "\(already) already there, \(Formatting.counted(failures, "failed file")) recorded" + (refused > 0 ? "; \(refused) refused" : ""))
        discardIfEmpty(reports)
        if reports.contains(where: \.studyFailed) { throw ExitStatus.nothingDone }
        if refused > 0 { throw ExitStatus.someInputsFailed }
    }
}
