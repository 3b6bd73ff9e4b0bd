import Foundation

/// Why a path given as an input file (a model, a manifest, a label file, a recording) cannot be read, in words that
/// name the cause and what to do. Foundation's own messages for these ("You don't have permission" for a FIFO,
/// "NSCocoaErrorDomain error 256" for a folder, "isn't in the correct format" for Latin-1 text) name neither.
public enum InputFileProblem: Error, Equatable, Sendable {
    case notFound
    /// A symbolic link whose target does not exist.
    case brokenLink(target: String)
    /// Symbolic links that lead back to themselves.
    case linkLoop
    case isDirectory
    /// A FIFO, a socket or a device: reading one blocks forever or never ends.
    case notARegularFile(kind: String)
    case permissionDenied
    case tooLarge(bytes: Int64, limit: Int64)
    /// Text that is not UTF-8: the first offending byte and its line.
    case notUTF8(byte: UInt8, line: Int)
    case unreadable(reason: String)

    /// What is wrong and what to do, to follow `<path>: error: <what the file is for>: `.
    public var reason: String {
        switch self {
        case .notFound:
            "no such file; check the path"
        case .brokenLink(let target):
            "a symbolic link to \(target), which does not exist; fix or remove the link"
        case .linkLoop:
            "a loop of symbolic links (each leads back to another); give the path of the file itself"
        case .isDirectory:
            "a folder, not a file; give the path of the file itself"
        case .notARegularFile(let kind):
            "\(kind), not a file (reading it would wait for a writer or never end); give the path of a regular file"
        case .permissionDenied:
            "permission denied; make the file readable (chmod +r) and retry"
        case .tooLarge(let bytes, let limit):
            "\(bytes) bytes, more than such a file may hold (\(limit) bytes, \(limit >> 20) MB); is this the right file?"
        case .notUTF8(let byte, let line):
            "not UTF-8 text (line \(line) holds the byte 0x\(String(byte, radix: 16, uppercase: true))); save it as UTF-8 "
                + "(for a Latin-1 file: iconv -f latin1 -t utf-8)"
        case .unreadable(let reason):
            "cannot be read: \(reason)"
        }
    }
}

/// Checks and reads the small files a command is given beside its audio, one way for every kind.
public enum InputFile {
    /// Why `path` is not a readable regular file (links followed), or `nil` when it is one.
    public static func problem(path: String) -> InputFileProblem? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let failure = errno
            switch failure {
            case ELOOP:
                return .linkLoop
            case EACCES:
                return .permissionDenied
            case ENOENT, ENOTDIR:
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) { return .brokenLink(target: target) }
                return .notFound
            default:
                return .unreadable(reason: String(cString: strerror(failure)))
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .isDirectory
        case S_IFIFO: return .notARegularFile(kind: "a FIFO (named pipe)")
        case S_IFSOCK: return .notARegularFile(kind: "a socket")
        case S_IFCHR: return .notARegularFile(kind: "a character device")
        case S_IFBLK: return .notARegularFile(kind: "a block device")
        default: return .notARegularFile(kind: "not a regular file")
        }
        return access(path, R_OK) == 0 ? nil : .permissionDenied
    }

    /// The bytes of the regular file at `path`, refused past `maximumBytes` before a byte is read.
    public static func data(path: String, maximumBytes: Int64) throws(InputFileProblem) -> Data {
        if let problem = problem(path: path) { throw problem }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        if let size, size.int64Value > maximumBytes { throw .tooLarge(bytes: size.int64Value, limit: maximumBytes) }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(reason: (error as NSError).localizedFailureReason ?? error.localizedDescription)
        }
    }

    /// The UTF-8 text of the regular file at `path` (a byte-order mark dropped).
    public static func text(path: String, maximumBytes: Int64 = 256 << 20) throws(InputFileProblem) -> String {
        let bytes = try data(path: path, maximumBytes: maximumBytes)
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw firstInvalidByte(bytes)
        }
        return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
    }

    /// The first byte of `bytes` that does not continue valid UTF-8, and its line.
    static func firstInvalidByte(_ bytes: Data) -> InputFileProblem {
        var line = 1
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return .notUTF8(byte: lead, line: line)
            }
            guard index + length <= bytes.endIndex,
                  String(data: bytes[index..<(index + length)], encoding: .utf8) != nil else {
                return .notUTF8(byte: lead, line: line)
            }
            if lead == 0x0A { line += 1 }
            index += length
        }
        return .unreadable(reason: "not UTF-8 text")
    }
}
