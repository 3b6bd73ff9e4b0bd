import SomniqPipeline
import Foundation
import SomniqFiles
import SomniqEvaluation
import SomniqFit

/// Labelled clips to score: from a manifest (TSV with `path` and `label` columns, paths absolute or relative
/// to the manifest) or from a folder whose sub-folders name the labels (`cough/x.wav` is a cough).
///
/// A manifest may also have `source` (the corpus), `group` (the recording or person a clip was cut from, which
/// cross-validation keeps on one side of a fold) and `orig_label` (the dataset's own finer category, which a `LabelMap`
/// line can name: `other:screaming`).
public enum ClipSource {
    public struct Clip: Equatable, Sendable {
        public var path: String
        public var label: String
        /// The manifest's `source` column where it has one (the corpus or recording set the clip comes from).
        public var source: String? = nil
        /// The manifest's `orig_label` column where it has one: the dataset's own finer category.
        public var detail: String? = nil
        /// The manifest's `group` column where it has one; else the group is read from the file name
        /// (`FitDataset.group(of:)`).
        public var group: String? = nil

        /// The cross-validation group: the manifest's, else the one the file name shows.
        public var resolvedGroup: String { group ?? FitDataset.group(of: path) }
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case missingColumn(path: String, column: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "\(path): error: cannot read clips: \(reason)"
            case .missingColumn(let path, let column):
                "\(path): error: the manifest has no '\(column)' column; it needs a header with 'path' and 'label'"
            }
        }
    }

    public static func load(_ location: String) throws(Error) -> [Clip] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else {
            throw .unreadable(path: location, reason: "no such file or folder")
        }
        return isDirectory.boolValue ? fromFolders(location) : try fromManifest(location)
    }

    static func fromFolders(_ root: String) -> [Clip] {
        InputCollector.audioFiles(in: root).compactMap { path in
            let relative = String(path.dropFirst(root.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let components = relative.split(separator: "/")
            guard components.count >= 2 else { return nil }
            return Clip(path: path, label: String(components[0]))
        }
    }

    static func fromManifest(_ manifest: String) throws(Error) -> [Clip] {
        let text: String
        do {
            text = try InputFile.text(path: manifest)
        } catch {
            throw .unreadable(path: manifest, reason: error.reason)
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        guard let pathColumn = header.firstIndex(of: "path") else { throw .missingColumn(path: manifest, column: "path") }
        guard let labelColumn = header.firstIndex(of: "label") else { throw .missingColumn(path: manifest, column: "label") }
        let (sourceColumn, groupColumn, detailColumn) = (header.firstIndex(of: "source"), header.firstIndex(of: "group"),
                                                         header.firstIndex(of: "orig_label"))
        let base = (manifest as NSString).deletingLastPathComponent
        return lines.dropFirst().compactMap { fields in
            guard fields.count > max(pathColumn, labelColumn), !fields[pathColumn].isEmpty else { return nil }
            func field(_ column: Int?) -> String? {
                column.flatMap { $0 < fields.count && !fields[$0].isEmpty ? fields[$0] : nil }
            }
            let path = fields[pathColumn]
            return Clip(path: path.hasPrefix("/") ? path : (base as NSString).appendingPathComponent(path), label: fields[labelColumn],
                        source: field(sourceColumn), detail: field(detailColumn), group: field(groupColumn))
        }
    }
}
