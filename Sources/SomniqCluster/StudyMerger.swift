import Foundation
import SomniqAudio
import SomniqStore

/// The inputs a shard takes, and what they hold.
public struct ShardSelection: Sendable {
    public let shard: Shard
    /// The share's files, in the order given.
    public let paths: [String]
    public let totalFiles: Int
    /// Hours of audio in the share, from the files' headers (a file that cannot be opened counts 0: the analysis
    /// reports it).
    public let audioHours: Double

    /// `identities[i]` is the identity of `paths[i]` (the manifest's path, or the path as given).
    public init(shard: Shard, paths: [String], identities: [String]) {
        self.shard = shard
        let chosen = zip(paths, identities).filter { shard.holds($0.1) }.map(\.0)
        self.paths = chosen
        totalFiles = paths.count
        audioHours = chosen.reduce(0) { sum, path in
            guard let reader = try? AudioFileReader(path: path, acceptCutShort: true), reader.format.sampleRate > 0 else { return sum }
            return sum + Double(reader.format.frameCount) / Double(reader.format.sampleRate) / 3600
        }
    }

    public var summary: String {
        "shard \(shard): \(paths.count) of \(totalFiles) files, \(String(format: "%.2f", audioHours)) h of audio"
    }
}

/// Merges shard databases into a study database, one transaction per shard.
public struct StudyMerger {
    public struct Report: Sendable {
        public var shard: String
        public var outcome: AnalysisStore.MergeOutcome?
        /// Why the shard was not merged.
        public var refusal: String?
        /// The study database could not take it (a full disk, a lock held too long): not the shard's fault.
        public var studyFailed = false
    }

    public let study: AnalysisStore
    /// Merge shards analysed with another model or other profiles than the study's (refused otherwise).
    public let allowMixedModels: Bool

    public init(study: AnalysisStore, allowMixedModels: Bool = false) {
        self.study = study
        self.allowMixedModels = allowMixedModels
    }

    /// Merges each shard in turn; a shard that cannot be read, or was analysed differently, is refused with the reason
    /// and the others go on. The reference for "differently" is the study's own recordings, or the first shard's.
    /// Stops before the next shard once `isCancelled` says so (a shard under way is stopped by `AnalysisStore.interrupt`,
    /// and nothing of it is written).
    public func merge(_ shards: [String], isCancelled: () -> Bool = { false }, progress: (String) -> Void = { _ in }) -> [Report] {
        var reference: AnalysisStore.Provenance?
        if let own = try? study.provenance(), !own.isEmpty { reference = own }
        var reports: [Report] = []
        let studyPath = URL(fileURLWithPath: study.path).standardizedFileURL.resolvingSymlinksInPath().path
        for (number, shard) in shards.enumerated() {
            if isCancelled() { break }
            progress("merge: shard \(number + 1) of \(shards.count): \(shard)")
            if URL(fileURLWithPath: shard).standardizedFileURL.resolvingSymlinksInPath().path == studyPath {
                reports.append(Report(shard: shard, refusal: "this is the study database itself"))
                continue
            }
            let provenance: AnalysisStore.Provenance
            do {
                guard FileManager.default.fileExists(atPath: shard) else { throw StoreError.cannotOpen(path: shard, reason: "no such file") }
                let store = try AnalysisStore(path: shard, upgrade: false)
                provenance = try store.provenance()
                try store.close()
            } catch {
                reports.append(Report(shard: shard, refusal: "\(error)"))
                continue
            }
            if let reference, !provenance.isEmpty, provenance != reference, !allowMixedModels {
                reports.append(Report(shard: shard, refusal: Self.difference(provenance, reference)))
                continue
            }
            if reference == nil, !provenance.isEmpty { reference = provenance }
            do {
                reports.append(Report(shard: shard, outcome: try study.merge(shard: shard)))
            } catch {
                reports.append(Report(shard: shard, refusal: "\(error)", studyFailed: true))
            }
        }
        return reports
    }

    static func difference(_ shard: AnalysisStore.Provenance, _ reference: AnalysisStore.Provenance) -> String {
        var parts: [String] = []
        if shard.models != reference.models {
            parts.append("analysed with \(shard.models.sorted().joined(separator: ", ")) where the study has "
                         + reference.models.sorted().joined(separator: ", "))
        }
        if shard.profiles != reference.profiles {
            parts.append("profiles \(shard.profiles.sorted().joined(separator: ", ")) where the study has "
                         + reference.profiles.sorted().joined(separator: ", "))
        }
        return "not merged: " + parts.joined(separator: "; ") + " (analyse it again with the study's model and profiles, "
            + "or pass --allow-mixed-models to merge it anyway)"
    }
}
