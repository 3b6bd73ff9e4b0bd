import Foundation

/// A folder a recorder writes its recordings into, one file a recording (`somniq-analyze follow FOLDER`): the next
/// recording to follow is one written to since the follow began, and a recorder that restarts in the night starts a
/// new file, followed in its turn. A recorder that starts a folder a night (`2026-11-21/`) or a numbered one when one
/// is full (`FOLDER01/`) writes into a folder directly inside it: those changed in the last `recentFolderSeconds` are
/// looked into too.
public struct RecordingFolder: Sendable {
    public let path: String
    /// How recently a folder inside `path` must have changed (a file made, renamed or removed in it) for its recordings
    /// to be looked at: a recording still being written was begun within it. Older ones are left unread, so that
    /// looking four times a second stays cheap in a folder of years of nights.
    public static let recentFolderSeconds: TimeInterval = 36 * 3600

    public init(path: String) { self.path = path }

    /// The folder's audio files, and those of the folders directly inside it that changed recently (not hidden ones,
    /// nor anything deeper), each with when it was last written, in order of path.
    public func recordings(now: Date = Date()) -> [(path: String, modified: Date)] {
        var found: [(path: String, modified: Date)] = []
        for entry in Self.entries(of: path) {
            if entry.type == .typeRegular, InputCollector.hasAudioExtension(entry.path) {
                found.append((entry.path, entry.modified))
            } else if entry.type == .typeDirectory, now.timeIntervalSince(entry.modified) <= Self.recentFolderSeconds {
                for inner in Self.entries(of: entry.path) where inner.type == .typeRegular && InputCollector.hasAudioExtension(inner.path) {
                    found.append((inner.path, inner.modified))
                }
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// What `folder` holds, hidden names aside: each entry's path, its type (a link is a link, not followed) and when
    /// it last changed.
    private static func entries(of folder: String) -> [(path: String, type: FileAttributeType, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { name in
            guard !name.hasPrefix(".") else { return nil }
            let entry = (folder as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: entry),
                  let type = attributes[.type] as? FileAttributeType, let modified = attributes[.modificationDate] as? Date else { return nil }
            return (entry, type, modified)
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
