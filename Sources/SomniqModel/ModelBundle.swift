import Foundation
import SomniqFiles

/// A classifier model and its sensitivity profiles, loaded together from a model folder
/// (`model.json` and `profiles.json`) and checked.
public struct ModelBundle: Sendable {
    public static let modelFileName = "model.json"
    public static let profilesFileName = "profiles.json"
    /// Environment variable naming a default model folder.
    public static let environmentVariable = "SOMNIQ_MODEL"

    public let classifier: ClassifierModel
    public let profiles: ProfileSet
    /// The folder the files came from.
    public let location: String
    /// How well each class is heard, by class id, from the folder's `quality.tsv` (`ClassQuality`); empty without one.
    public let quality: [String: ClassQuality]

    public init(classifier: ClassifierModel, profiles: ProfileSet, location: String, quality: [String: ClassQuality] = [:]) {
        self.classifier = classifier
        self.profiles = profiles
        self.location = location
        self.quality = quality
    }

    /// The bundle as it chooses a whole clip's class (`ClassifierModel.choosingClips`): what `classify` and `evaluate
    /// --clips` analyse with.
    public var choosingClips: ModelBundle {
        ModelBundle(classifier: classifier.choosingClips, profiles: profiles, location: location, quality: quality)
    }

    /// `model-name@model-version+profiles-version`: what an analysis records to say which rules made it.
    public var versionTag: String { "\(classifier.name)@\(classifier.version)+profiles@\(profiles.version)" }

    /// Loads a model folder, or a `model.json` with its `profiles.json` beside it.
    public static func load(path: String) throws(ModelError) -> ModelBundle {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            switch InputFile.problem(path: path) {
            case .notFound?, nil: throw .notFound(path: path, searched: [])
            case let problem?: throw .unreadable(path: path, reason: problem.reason)
            }
        }
        let folder = isDirectory.boolValue ? path : (path as NSString).deletingLastPathComponent
        let modelPath = isDirectory.boolValue ? (folder as NSString).appendingPathComponent(modelFileName) : path
        let profilesPath = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(profilesFileName)
        let classifier: ClassifierModel = try decode(path: modelPath)
        let profiles: ProfileSet = try decode(path: profilesPath)
        let quality = try ClassQuality.load(folder: folder)
        if let stranger = quality.keys.sorted().first(where: { !classifier.classIDs.contains($0) }) {
            throw .invalid(path: ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(ClassQuality.fileName),
                           field: stranger, reason: "a class the model beside it does not define: is it the card of another model?")
        }
        return ModelBundle(classifier: classifier, profiles: profiles, location: folder, quality: quality)
    }

    /// Finds the default model: `$SOMNIQ_MODEL`, then `models/default` in the working directory, then
    /// beside the executable (an installed `share/somniq-analyze/models/default`, or the source
    /// tree's `models/default` for a binary under `.build/`).
    public static func defaultLocation(executablePath: String = CommandLine.arguments.first ?? "",
                                       workingDirectory: String = FileManager.default.currentDirectoryPath,
                                       environment: [String: String] = ProcessInfo.processInfo.environment) throws(ModelError) -> String {
        var candidates: [String] = []
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            candidates.append(fromEnvironment)
        }
        candidates.append(workingDirectory + "/models/default")
        let executable = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(executable.appendingPathComponent("../share/somniq-analyze/models/default").standardized.path)
        var folder = executable
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent("models/default").standardized.path)
        }
        // Each place once: walking up from a shallow folder reaches the root and stays there.
        var seen = Set<String>()
        candidates = candidates.filter { seen.insert($0).inserted }
        for candidate in candidates
        where FileManager.default.fileExists(atPath: (candidate as NSString).appendingPathComponent(modelFileName)) {
            return candidate
        }
        throw .notFound(path: "models/default", searched: candidates)
    }

    /// The largest model or profiles file read (the shipped model.json is about 1 MB): a bigger one is refused before
    /// it is read, so a stray or crafted file cannot take the memory of a run.
    public static let maximumFileBytes = 16 << 20

    static func decode<Value: Decodable>(path: String) throws(ModelError) -> Value {
        let data: Data
        do {
            data = try InputFile.data(path: path, maximumBytes: Int64(maximumFileBytes))
        } catch .notFound {
            throw .notFound(path: path, searched: [])
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            if let (number, line) = outOfRangeNumber(in: data) {
                throw .invalid(path: path, field: "line \(line)",
                               reason: "the number \(number) is out of range (a model's numbers are 0 or lie within ±1.2e-38 to ±3.4e38)")
            }
            if let (depth, line) = tooDeep(data) {
                throw .invalid(path: path, field: "line \(line)",
                               reason: "arrays and objects nested \(depth) deep, more than the JSON reader takes (\(maximumNesting)); "
                                   + "a model's trees are a few levels deep: is this the right file?")
            }
            throw .invalidJSON(path: path, reason: context.underlyingError.map { "\($0)" } ?? context.debugDescription)
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalid(path: path, field: describe(codingPath: context.codingPath), reason: context.debugDescription)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalid(path: path, field: describe(codingPath: context.codingPath + [key]), reason: "required field is missing")
        } catch let DecodingError.typeMismatch(type, context) {
            throw .invalid(path: path, field: describe(codingPath: context.codingPath), reason: "expected \(type)")
        } catch let DecodingError.valueNotFound(type, context) {
            throw .invalid(path: path, field: describe(codingPath: context.codingPath), reason: "expected \(type), found null")
        } catch {
            throw .invalidJSON(path: path, reason: "\(error)")
        }
    }

    /// The first number in a JSON text too large for a Float (the JSON parser calls such a file invalid, which
    /// hides the cause), with its line.
    static func outOfRangeNumber(in data: Data) -> (String, Int)? {
        let text = String(decoding: data, as: UTF8.self)
        guard let pattern = try? NSRegularExpression(pattern: #"-?[0-9]+(\.[0-9]+)?[eE][+-]?[0-9]+|-?[0-9]{40,}"#) else { return nil }
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let range = Range(match.range, in: text) else { continue }
            let token = String(text[range])
            let mantissaHoldsADigit = token.prefix { $0 != "e" && $0 != "E" }.contains { ("1"..."9").contains($0) }
            if let value = Double(token), abs(value) <= Double(Float.greatestFiniteMagnitude),
               value != 0 || !mantissaHoldsADigit { continue }
            return (token, text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 })
        }
        return nil
    }

    /// The deepest nesting the JSON reader accepts (Foundation's parser stops at 512 levels).
    static let maximumNesting = 512

    /// The depth of the first place `data` nests arrays and objects deeper than `maximumNesting`, with its line.
    static func tooDeep(_ data: Data) -> (Int, Int)? {
        var depth = 0, line = 1, inString = false, escaped = false
        for byte in data {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumNesting { return (depth, line) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    /// The alert rules of `profile`, one per class in model order; `nil` for classes of tier `none`.
    public func rules(for profile: SensitivityProfile, frameHz: Double) -> [AlertRule?] {
        classifier.classes.map { definition in
            guard let adjustment = adjustment(for: definition) else { return nil }
            return AlertRule.expand(profile: profile, soundClass: definition.id, tier: definition.tier,
                                    adjustment: adjustment, frameHz: frameHz)
        }
    }

    /// The adjustment a class runs under: its tier's, with the class's own fields put in (`nil` for tier `none`).
    public func adjustment(for definition: SoundClassDefinition) -> TierAdjustment? {
        guard definition.tier != .none, let tierAdjustment = profiles.tiers[definition.tier] else { return nil }
        return definition.adjust?.applied(to: tierAdjustment) ?? tierAdjustment
    }
}
