import Foundation

/// A folder a recorder writes its recordings into, one file a recording (`somniq-analyze follow FOLDER`): the next
/// recording to follow is one written to since the follow began, and a recorder that restarts in the night starts a
/// new file, followed in its turn.
public struct RecordingFolder: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The folder's audio files (not those in folders below it, nor hidden ones), each with when it was last written.
    public func recordings() -> [(path: String, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().compactMap { name in
            guard !name.hasPrefix("."), InputCollector.hasAudioExtension(name) else { return nil }
            let file = (path as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let modified = attributes[.modificationDate] as? Date else { return nil }
            return (file, modified)
        }
    }

    /// The recording to follow next: of the files written to at or after `since` and not in `excluding`, the one
    /// written to longest ago (a recorder's earlier file before its later one), the name deciding a tie; or `nil`.
    public func next(since: Date, excluding: Set<String>) -> String? {
        recordings().filter { $0.modified >= since && !excluding.contains($0.path) }
            .min { $0.modified != $1.modified ? $0.modified < $1.modified : $0.path < $1.path }?.path
    }

    /// What waiting for the next recording ended with.
    public enum Wait: Equatable, Sendable {
        case recording(String)
        /// `stopped()` said to stop.
        case stopped
        /// The folder was not there (removed, renamed, or its disk unmounted) for `goneAfter` seconds on end.
        case folderGone
    }

    /// Whether the folder is there: a folder (or a link to one) that can be listed.
    public func isThere() -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            && (try? FileManager.default.contentsOfDirectory(atPath: path)) != nil
    }

    /// Waits for `next(since:excluding:)`, looking every `pollSeconds`, until `stopped()` says to stop or the folder has
    /// been away for `goneAfter` seconds (a moment away, as when a sync tool swaps it for a copy, is waited out).
    public func waitForNext(since: Date, excluding: Set<String>, pollSeconds: Double = 0.25, goneAfter: Double = 5,
                            stopped: () -> Bool) -> Wait {
        var awaySince: Date?
        while !stopped() {
            if isThere() {
                awaySince = nil
                if let next = next(since: since, excluding: excluding) { return .recording(next) }
            } else {
                let now = Date()
                if let away = awaySince, now.timeIntervalSince(away) >= goneAfter { return .folderGone }
                if awaySince == nil { awaySince = now }
            }
            usleep(useconds_t(pollSeconds * 1_000_000))
        }
        return .stopped
    }
}
