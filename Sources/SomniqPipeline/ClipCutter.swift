import CSV
import Foundation
import SomniqAudio
import SomniqFiles
import SomniqReports
import SomniqStore

/// Cuts the audio of episodes or alerts out of their original recordings into short WAV files, with an
/// index, so that a night's events can be listened to without scrubbing through hours. It seeks to each
/// excerpt: nothing before it is decoded.
public struct ClipCutter {
    /// One excerpt to cut.
    public struct Excerpt: Sendable {
        public var classID: String
        public var tier: String
        public var kind: String
        public var profile: String
        public var startSeconds: Double
        public var endSeconds: Double
        public var startUTC: String

        public init(classID: String, tier: String, kind: String, profile: String, startSeconds: Double, endSeconds: Double, startUTC: String) {
            self.classID = classID
            self.tier = tier
            self.kind = kind
            self.profile = profile
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
            self.startUTC = startUTC
        }
    }

    /// A written clip, as its index row describes it.
    public struct Clip: Sendable {
        public var file: String
        public var excerpt: Excerpt
        /// Its excerpt's place in the list given to `cut`.
        public var excerptIndex: Int
        /// Where the clip begins and how long it is, margins included, seconds in the recording.
        public var clipStartSeconds: Double
        public var clipSeconds: Double
    }

    public let margin: Double

    public init(margin: Double) { self.margin = margin }

    /// What the clips name as the program that wrote them, by which a later run knows a clip as its own.
    public static let software = "somniq-analyze clips"

    /// Cuts every excerpt of one recording into `folder`, as WAV (32-bit float unless told, the recording's own rate and
    /// channels). Files are named `<UTC start>_r<recording id>_<profile>_<class>_<kind>-<n>.wav` (the profile and class
    /// reduced to letters, digits, `_` and `-`, so no name leaves the folder), unique per recording and profile. A clip of
    /// that name written before (`isOurs`) is written again, so that rerunning writes the same files; a name taken by any
    /// other file gets `~2`, `~3`, ...: nothing else is overwritten. Each clip is written under a hidden name and renamed
    /// into place (`PartialFiles`), so a link planted under a clip's name is replaced, never followed, and an
    /// interrupted run leaves no half clip.
    ///
    /// A recording analysed on one channel alone (`channel`, from 1: `analyze --channel`) gives clips of that channel,
    /// mono: what was heard, where its other channel may be dead, noisy or cancel it on a speaker that mixes them.
    ///
    /// With `analysed` (what the file was when it was analysed), the file must still hold that audio: the same size and
    /// modification time, or else the same content hash (a copy put back, a file touched); a file written over since
    /// throws `notTheAudioAnalysed` before anything is cut.
    public func cut(recordingPath: String, recordingID: Int64, excerpts: [Excerpt], into folder: String,
                    encoding: AudioFileWriter.Encoding = .float32, channel: Int? = nil,
                    analysed: AnalysedFile? = nil) throws(AudioFileError) -> [Clip] {
        if let analysed { try analysed.check(recordingPath, channel: channel) }
        let reader = try AudioFileReader(path: recordingPath)
        let channels = reader.format.channelCount
        if let channel { try reader.readOnly(channel: channel) }
        let picked = reader.channel
        let rate = Double(reader.format.sampleRate)
        var clips: [Clip] = []
        var buffer: [Float] = []
        for (index, excerpt) in excerpts.enumerated() {
            let first = max(0, Int64(((excerpt.startSeconds - margin) * rate).rounded(.down)))
            let last = min(reader.format.frameCount, Int64(((excerpt.endSeconds + margin) * rate).rounded(.up)))
            guard last > first else { continue }
            let stem = "\(Self.compact(excerpt.startUTC))_r\(recordingID)_\(Self.safe(excerpt.profile))_\(Self.safe(excerpt.classID))_"
                + "\(Self.safe(excerpt.kind))-\(index + 1)"
            var name = stem + ".wav"
            var copy = 1
            while Self.isTakenByAnother((folder as NSString).appendingPathComponent(name)) {
                copy += 1
                name = "\(stem)~\(copy).wav"
            }
            let path = (folder as NSString).appendingPathComponent(name)
            let partial: String, descriptor: Int32
            switch PartialFiles.create(for: path) {
            case .success(let created): (descriptor, partial) = created
            case .failure(let error): throw .cannotCreate(path: path, reason: error.reason)
            }
            do {
                try reader.seek(toFrame: first)
                let writer = try AudioFileWriter(descriptor: descriptor, path: path, sampleRate: reader.format.sampleRate,
                                                 channelCount: picked == nil ? channels : 1, encoding: encoding)
                writer.setSoftware(Self.software)
                var remaining = Int(last - first)
                while remaining > 0 {
                    let got = try reader.readInterleaved(frameCount: min(remaining, 65_536), into: &buffer)
                    guard got > 0 else { break }
                    if let picked {
                        try writer.write(interleaved: (0..<got).map { buffer[$0 * channels + picked] })
                    } else {
                        try writer.write(interleaved: Array(buffer[0..<(got * channels)]))
                    }
                    remaining -= got
                }
                try writer.close()
            } catch {
                PartialFiles.abandon(partial)
                throw error
            }
            if case .failure(let error) = PartialFiles.commit(partial, to: path) { throw .writeFailed(path: path, reason: error.reason) }
            clips.append(Clip(file: name, excerpt: excerpt, excerptIndex: index, clipStartSeconds: Double(first) / rate, clipSeconds: Double(last - first) / rate))
        }
        return clips
    }

    /// What a recording's file was when it was analysed (`recordings.file_size`, `file_mtime`, `content_hash`).
    public struct AnalysedFile: Sendable {
        public var size: Int64?
        public var modified: Double?
        public var contentHash: String?

        public init(size: Int64?, modified: Double?, contentHash: String?) {
            self.size = size
            self.modified = modified
            self.contentHash = contentHash
        }

        /// Throws `notTheAudioAnalysed` unless the file at `path` is the one analysed (its size and modification time),
        /// or holds the same audio (its content hash, channel `channel` alone where one was analysed; or, for 16-bit
        /// audio, the hash of its samples as floats that nights stored before model 3.5.0 carry). A file that
        /// cannot be read throws as reading it does. A night stored with none of the three (by a version of this tool
        /// that kept none) cannot be checked, and is cut as it always was.
        func check(_ path: String, channel: Int?) throws(AudioFileError) {
            if let now = RecordingAnalyzer.identity(path), now.size == size, now.modified == modified { return }
            if let contentHash {
                // A night stored before XXH3-128 carries SHA-256, by which the file is checked.
                let kind = ContentHashKind(identity: contentHash) ?? .xxh3
                if try AudioFileReader.contentHash(of: path, channel: channel, kind: kind) == contentHash { return }
                // A 16-bit night stored before such audio was hashed as integers carries the hash of its floats.
                if kind == .sha256, channel == nil, try AudioFileReader.contentSHA256HashedAsFloats(of: path) == contentHash { return }
                throw .notTheAudioAnalysed(path: path)
            }
            if size != nil || modified != nil { throw .notTheAudioAnalysed(path: path) }
        }
    }

    /// Whether something other than a clip this tool wrote is at `path` (a file, a link, a folder): a name not to reuse.
    static func isTakenByAnother(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return false }
        guard status.st_mode & S_IFMT == S_IFREG else { return true }
        return !isOurClip(path)
    }

    /// Whether the regular file at `path` is a clip written by this tool: a WAV naming `software` in its header.
    public static func isOurClip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4_096), head.starts(with: Array("RIFF".utf8)) else { return false }
        return head.range(of: Data(software.utf8)) != nil
    }

    /// `text` with everything but ASCII letters, digits, `_` and `-` replaced by `_`: a file name part that cannot
    /// climb out of its folder or split a line.
    static func safe(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-") ? Character(scalar) : "_"
        })
    }

    /// `2026-11-21T23:18:30.500Z` as `20261121T231830Z`, for file names that sort by time.
    static func compact(_ utc: String) -> String {
        let digits = utc.prefix(19).filter { $0.isNumber || $0 == "T" }
        return digits + "Z"
    }

    /// The columns of the index, in order.
    public static let indexHeader = ["file", "recording", "class", "tier", "kind", "profile", "start_utc", "start_offset_s",
                                     "end_offset_s", "clip_start_offset_s", "clip_seconds"]

    /// The index of written clips, RFC 4180 CSV. With the text of an earlier index of the same folder (`earlier`), its
    /// rows come first, less those of a file written again now and those whose file is no longer a clip (`stillAClip`
    /// of the file's name: removed, or replaced by a stranger's): rerunning `clips` into a folder adds to its index and
    /// never loses or repeats a row.
    public static func index(_ clips: [(recording: String, clip: Clip)], earlier: String? = nil,
                             stillAClip: (String) -> Bool = { _ in true }) throws -> String {
        let rewritten = Set(clips.map(\.clip.file))
        var kept: [[String]] = []
        if let earlier {
            let reader = try CSVReader(string: earlier, hasHeaderRow: true, trimFields: false)
            while let row = reader.next() {
                if row.count == indexHeader.count && !rewritten.contains(row[0]) && stillAClip(row[0]) { kept.append(row) }
            }
        }
        return CSVText.make { writer in
            writer.write(row: indexHeader)
            for row in kept { writer.write(row: row) }
            for (recording, clip) in clips {
                let e = clip.excerpt
                writer.write(row: [clip.file, recording, e.classID, e.tier, e.kind, e.profile, e.startUTC, CSVText.number(e.startSeconds),
                                   CSVText.number(e.endSeconds), CSVText.number(clip.clipStartSeconds), CSVText.number(clip.clipSeconds)])
            }
        }
    }

    /// Whether `head` (a file's first bytes) is the start of an index this tool wrote.
    public static func looksLikeAnIndex(_ head: Data) -> Bool {
        let text = String(decoding: head, as: UTF8.self), header = indexHeader.joined(separator: ",")
        return text.hasPrefix(header + "\r\n") || text.hasPrefix(header + "\n")
    }
}
