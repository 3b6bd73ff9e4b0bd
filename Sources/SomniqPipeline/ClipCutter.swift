import Foundation
import SomniqAudio
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

    /// Cuts every excerpt of one recording into `folder`, as WAV (32-bit float unless told, the recording's own rate and
    /// channels). Files are named `<UTC start>_r<recording id>_<class>_<kind>-<n>.wav` (the class reduced to letters,
    /// digits, `_` and `-`, so no name leaves the folder), unique per recording; a name already taken gets `~2`, `~3`,
    /// ...: nothing is overwritten, and every clip returned was written. With `replacing`, for a folder that belongs to
    /// one report, a file of the same name is written over instead, so that writing the report again writes the same
    /// files.
    public func cut(recordingPath: String, recordingID: Int64, excerpts: [Excerpt], into folder: String,
                    encoding: AudioFileWriter.Encoding = .float32, replacing: Bool = false) throws(AudioFileError) -> [Clip] {
        let reader = try AudioFileReader(path: recordingPath)
        let rate = Double(reader.format.sampleRate)
        var clips: [Clip] = []
        var buffer: [Float] = []
        for (index, excerpt) in excerpts.enumerated() {
            let first = max(0, Int64(((excerpt.startSeconds - margin) * rate).rounded(.down)))
            let last = min(reader.format.frameCount, Int64(((excerpt.endSeconds + margin) * rate).rounded(.up)))
            guard last > first else { continue }
            let stem = "\(Self.compact(excerpt.startUTC))_r\(recordingID)_\(Self.safe(excerpt.classID))_\(Self.safe(excerpt.kind))-\(index + 1)"
            var name = stem + ".wav"
            var copy = 1
            while !replacing && FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(name)) {
                copy += 1
                name = "\(stem)~\(copy).wav"
            }
            let path = (folder as NSString).appendingPathComponent(name)
            try reader.seek(toFrame: first)
            let writer = try AudioFileWriter(path: path, sampleRate: reader.format.sampleRate, channelCount: reader.format.channelCount,
                                             encoding: encoding)
            var remaining = Int(last - first)
            while remaining > 0 {
                let got = try reader.readInterleaved(frameCount: min(remaining, 65_536), into: &buffer)
                guard got > 0 else { break }
                try writer.write(interleaved: Array(buffer[0..<(got * reader.format.channelCount)]))
                remaining -= got
            }
            clips.append(Clip(file: name, excerpt: excerpt, excerptIndex: index, clipStartSeconds: Double(first) / rate, clipSeconds: Double(last - first) / rate))
        }
        return clips
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

    /// The index of written clips, RFC 4180 CSV.
    public static func index(_ clips: [(recording: String, clip: Clip)]) -> String {
        CSVText.make { writer in
            writer.write(row: ["file", "recording", "class", "tier", "kind", "profile", "start_utc", "start_offset_s", "end_offset_s",
                                   "clip_start_offset_s", "clip_seconds"])
            for (recording, clip) in clips {
                let e = clip.excerpt
                writer.write(row: [clip.file, recording, e.classID, e.tier, e.kind, e.profile, e.startUTC, CSVText.number(e.startSeconds),
                                       CSVText.number(e.endSeconds), CSVText.number(clip.clipStartSeconds), CSVText.number(clip.clipSeconds)])
            }
        }
    }
}
