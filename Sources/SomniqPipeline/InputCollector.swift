import Foundation

/// Expands the command line's files and folders into the list of recordings to analyse.
public enum InputCollector {
    /// Extensions of the formats libsndfile reads, matched case-insensitively inside folders.
    public static let audioExtensions: Set<String> = [
        "wav", "wave", "caf", "aif", "aiff", "aifc", "flac", "ogg", "oga", "opus", "mp3", "au", "snd", "w64", "rf64",
    ]

    /// Extensions of recordings in formats libsndfile does not read (what phones and dictaphones often write: AAC in
    /// MPEG-4, AMR, 3GPP, WMA; and WavPack, Monkey's Audio, AC-3, Matroska audio). Folders list them too, so that each
    /// is reported with how to convert it rather than left out without a word (a folder of voice memos said "no audio
    /// files found").
    public static let unreadableRecordingExtensions: Set<String> = [
        "m4a", "m4b", "aac", "amr", "awb", "3gp", "3ga", "wma", "wv", "ape", "ac3", "mka",
    ]

    /// Files named on the command line are taken as they are (a bad one is reported by the analysis
    /// with its reason); folders are searched recursively for audio extensions (and those of recordings libsndfile
    /// cannot read, each then reported as such), in sorted order.
    /// Duplicates (the same standardised path twice) are dropped, keeping the first.
    public static func collect(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        func add(_ path: String) {
            let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
            if seen.insert(standardized).inserted { result.append(path) }
        }
        for argument in arguments {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory)
            guard exists, isDirectory.boolValue, !hasAudioExtension(argument) else {
                add(argument)
                continue
            }
            for file in audioFiles(in: argument) { add(file) }
        }
        return result
    }

    /// Arguments that name nothing at all: a typo on the command line, a usage error rather than a bad file. (A broken
    /// symbolic link or a name that is not valid UTF-8 does name something, and is reported by the analysis.)
    public static func missing(_ arguments: [String]) -> [String] {
        arguments.filter { argument in
            !FileManager.default.fileExists(atPath: argument)
                && (try? FileManager.default.destinationOfSymbolicLink(atPath: argument)) == nil
                && !argument.unicodeScalars.contains("\u{FFFD}")
        }
    }

    public static func hasAudioExtension(_ path: String) -> Bool {
        audioExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// Audio files below `folder`, sorted by path: those of `audioExtensions` and of `unreadableRecordingExtensions`
    /// (which the analysis then reports, with a conversion). A folder named like an audio file is still listed
    /// (as the bad input it is); hidden files are skipped.
    public static func audioFiles(in folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") { continue }
            if hasAudioExtension(name) || unreadableRecordingExtensions.contains((name as NSString).pathExtension.lowercased()) {
                files.append((folder as NSString).appendingPathComponent(relative))
            }
        }
        return files.sorted()
    }
}
