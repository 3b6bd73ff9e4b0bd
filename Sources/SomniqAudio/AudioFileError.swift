import Foundation
import SomniqFiles

/// Why an audio file could not be read. Every case names the file, says what is wrong and,
/// through `description`, what the user can do about it.
public enum AudioFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(path: String)
    /// The file's name is not valid UTF-8: it reached the tool with U+FFFD in place of the bytes that are not, and
    /// no file has that name.
    case nameNotUTF8(path: String)
    case brokenLink(path: String)
    /// Symbolic links that lead back to themselves.
    case linkLoop(path: String)
    case isDirectory(path: String)
    /// A FIFO, socket or device: opening it could block forever, and it is no recording.
    case notARegularFile(path: String, kind: String)
    case permissionDenied(path: String)
    /// The process (or the system) has as many files open as it may: nothing is wrong with the file.
    case tooManyOpenFiles(path: String)
    /// libsndfile refused the file; `reason` is libsndfile's own message.
    case cannotOpen(path: String, reason: String)
    /// A container libsndfile reads holding audio it cannot decode (`codec`: the container's name for it, such as a
    /// CAF's `alac` with a magic cookie laid out as some encoders write it), or an MPEG-4 file (`.m4a`, as phones'
    /// voice recorders write), which it does not read at all (`container` "MPEG-4").
    case undecodable(path: String, container: String, codec: String, reason: String)
    case empty(path: String)
    case unsupportedSampleRate(path: String, sampleRate: Int)
    /// The channel asked for (`--channel`, from 1) is not one the file has.
    case noSuchChannel(path: String, channel: Int, channelCount: Int)
    /// The header promised more audio than the file holds.
    case truncated(path: String, expectedFrames: Int64, readFrames: Int64)
    case nonFiniteSamples(path: String, atSeconds: Double)
    case readFailed(path: String, reason: String)
    case cannotCreate(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    /// More audio than the encoding can be written with (`AudioFileWriter.appleLosslessFrameLimit`).
    case longerThanEncodingAllows(path: String, encoding: String, maximumFrames: Int64, sampleRate: Int)
    /// Reading was stopped on request (the batch was interrupted); nothing is wrong with the file.
    case interrupted(path: String)
    /// The file's size or modification time changed while it was read: another program wrote it meanwhile, so what
    /// was read is neither the old audio nor the new.
    case changedWhileRead(path: String)
    /// The file holds other audio than the recording analysed from it (written over since), so nothing cut from it
    /// would be the night's sounds.
    case notTheAudioAnalysed(path: String)

    public var path: String {
        switch self {
        case .notFound(let path), .nameNotUTF8(let path), .brokenLink(let path), .linkLoop(let path), .isDirectory(let path), .notARegularFile(let path, _),
             .permissionDenied(let path), .tooManyOpenFiles(let path),
             .cannotOpen(let path, _), .undecodable(let path, _, _, _), .empty(let path), .unsupportedSampleRate(let path, _),
             .noSuchChannel(let path, _, _),
             .truncated(let path, _, _), .nonFiniteSamples(let path, _), .readFailed(let path, _),
             .cannotCreate(let path, _), .writeFailed(let path, _), .longerThanEncodingAllows(let path, _, _, _), .interrupted(let path),
             .changedWhileRead(let path), .notTheAudioAnalysed(let path):
            return path
        }
    }

    /// A short machine-readable cause, stable across releases (stored with failed recordings).
    public var code: String {
        switch self {
        case .notFound: "not-found"
        case .nameNotUTF8: "name-not-utf8"
        case .brokenLink: "broken-link"
        case .linkLoop: "link-loop"
        case .isDirectory: "is-directory"
        case .notARegularFile: "not-a-regular-file"
        case .permissionDenied: "permission-denied"
        case .tooManyOpenFiles: "too-many-open-files"
        case .cannotOpen: "not-audio"
        case .undecodable: "undecodable-codec"
        case .empty: "empty"
        case .unsupportedSampleRate: "unsupported-sample-rate"
        case .noSuchChannel: "no-such-channel"
        case .truncated: "truncated"
        case .nonFiniteSamples: "non-finite-samples"
        case .readFailed: "read-failed"
        case .cannotCreate: "cannot-create"
        case .writeFailed: "write-failed"
        case .longerThanEncodingAllows: "longer-than-encoding-allows"
        case .interrupted: "interrupted"
        case .changedWhileRead: "changed-while-read"
        case .notTheAudioAnalysed: "not-the-audio-analysed"
        }
    }

    /// The ffmpeg command that converts the file at `path` to a FLAC beside it (`night.m4a` → `night<suffix>.flac`).
    static func ffmpegToFLAC(_ path: String, options: String = "", suffix: String = "") -> String {
        let name = (path as NSString).lastPathComponent
        let flac = ((name as NSString).deletingPathExtension + suffix as NSString).appendingPathExtension("flac") ?? "night.flac"
        return "ffmpeg -i '\(name)' " + (options.isEmpty ? "" : options + " ") + "'\(flac)'"
    }

    /// What is wrong and what to do, without the path (callers prefix `path: error: `).
    public var reason: String {
        switch self {
        case .notFound:
            return "no such file; check the path"
        case .nameNotUTF8:
            return "the file name is not valid UTF-8 (shown with \u{FFFD} for the bytes that are not), so it cannot be "
                + "opened by name; rename the file to UTF-8 (for example with convmv) and retry"
        case .brokenLink:
            return "a symbolic link to a file that does not exist; fix or remove the link"
        case .linkLoop:
            return InputFileProblem.linkLoop.reason
        case .isDirectory:
            return "is a directory, not an audio file"
        case .notARegularFile(_, let kind):
            return "is \(kind), not a regular file; only regular files (or links to them) are read, so it was skipped"
        case .permissionDenied:
            return "permission denied; make the file readable (chmod +r) and retry"
        case .tooManyOpenFiles:
            return "too many open files (the limit on open files was reached, nothing is wrong with this file); "
                + "raise the limit (ulimit -n), use fewer --jobs, and retry"
        case .cannotOpen(_, let reason):
            return "not a readable audio file (libsndfile: \(reason)); convert it to WAV, CAF or FLAC"
        case .undecodable(let path, let container, let codec, let reason):
            let convert = "Convert it, for example with \(Self.ffmpegToFLAC(path)), and analyse the FLAC"
            if container == "MPEG-4" {
                // libsndfile reads no MPEG-4 file at all, whatever its codec.
                return "an MPEG-4 file (.m4a, .mp4; its audio '\(codec)'), which libsndfile does not read (libsndfile: "
                    + "\(reason)). \(convert)"
            }
            return "a \(container) file of '\(codec)' audio that libsndfile cannot decode (libsndfile: \(reason)); the codec, or "
                + "how this encoder wrote its settings, is not one libsndfile reads. \(convert)"
        case .empty:
            return "holds no audio samples (zero length); re-export or remove it"
        case .unsupportedSampleRate(let path, let rate):
            let supported = AudioFormatInfo.supportedSampleRates
            return "sample rate \(rate) Hz is outside the supported \(supported.lowerBound)–\(supported.upperBound) Hz; "
                + (rate < supported.lowerBound
                    ? "a rate this low cannot hold the sounds analysed (they reach 2 kHz and more), so the header is likely "
                        + "wrong; re-export the recording from its source"
                    : "convert it, for example with \(Self.ffmpegToFLAC(path, options: "-ar 48000", suffix: "-48k")), and analyse the FLAC")
        case .truncated(_, let expected, let read):
            return "truncated: the header promises \(expected) frames but only \(read) could be read; "
                + "the file was cut short (repair it, e.g. re-export, and retry)"
        case .nonFiniteSamples(_, let seconds):
            return "contains NaN, infinite or absurdly large samples (first at \(formatSeconds(seconds)) s); the recording is corrupt: "
                + "re-export it from its source, or cut the damaged stretch out and analyse the rest"
        case .readFailed(_, let reason):
            return "read failed (libsndfile: \(reason))"
        case .cannotCreate(_, let reason):
            return "cannot create audio file (libsndfile: \(reason))"
        case .writeFailed(_, let reason):
            return "write failed (libsndfile: \(reason)); is the disk full?"
        case .longerThanEncodingAllows(_, let encoding, let maximumFrames, let sampleRate):
            return "libsndfile writes at most \(maximumFrames) frames of \(encoding) whole (\(Int(Double(maximumFrames) / Double(sampleRate) / 60)) "
                + "minutes at \(sampleRate) Hz; a longer file would come out unreadable); write a longer recording as FLAC, or as PCM"
        case .interrupted:
            return "interrupted before the end; run again to analyse it"
        case .noSuchChannel(_, let channel, let count):
            return "it has \(count) channel\(count == 1 ? "" : "s"), so there is no channel \(channel) to analyse; "
                + (count == 1 ? "leave out --channel" : "give --channel 1 to \(count), or leave it out to analyse the channels mixed")
        case .changedWhileRead:
            return "the file changed while it was read (its size or modification time moved: is a recorder still writing "
                + "it, or was it copied over?); nothing of it was stored; analyse it again once it is complete"
        case .notTheAudioAnalysed:
            return "holds other audio than the recording analysed from it (written over or edited since), so clips cut "
                + "from it would not be of that night's sounds, and none were cut; put the recording analysed back, or "
                + "analyse the file again to report what it holds now"
        }
    }

    public var description: String { "\(path): error: \(reason)" }
}

private func formatSeconds(_ seconds: Double) -> String {
    String(format: "%.3f", seconds)
}
