import Foundation
import SomniqAudio
import SomniqEvaluation
import SomniqFeatures
import SomniqFit
import SomniqStore

/// Builds the fitter's training data by analysing labelled audio.
public struct FitDataBuilder {
    public let analyzer: RecordingAnalyzer
    public let map: LabelMap

    public init(analyzer: RecordingAnalyzer, map: LabelMap) {
        self.analyzer = analyzer
        self.map = map
    }

    func windows(_ data: RecordingData) -> [[Float]] {
        let count = data.featureIDs.count
        return (0..<data.windowCount).map { Array(data.features[($0 * count)..<(($0 + 1) * count)]) }
    }

    /// Clips with one label each; only their loud windows train. Clips the map excludes are skipped.
    public func fromClips(_ clips: [ClipSource.Clip], progress: (Int) -> Void = { _ in },
                          failure: (AudioFileError) -> Void = { _ in }) -> FitDataset {
        var result: [FitDataset.Clip] = []
        for (number, clip) in clips.enumerated() {
            progress(number)
            let classID: String?
            switch map.target(for: clip.label) {
            case .excluded: continue
            case .none: classID = nil
            case .classes(let classes): classID = classes.first
            }
            do {
                let data = try analyzer.analyze(path: clip.path, explicitStart: Date(timeIntervalSince1970: 0))
                let rows = windows(data)
                let levels = rows.map { $0[FeatureID.rmsDbfs.index] }
                result.append(FitDataset.Clip(path: clip.path, label: clip.label, classID: classID,
                                              group: FitDataset.group(of: clip.path), windows: rows,
                                              windowClasses: rows.map { _ in classID },
                                              used: FitDataset.activeWindows(levels: levels)))
            } catch {
                failure(error)
            }
        }
        return FitDataset(clips: result)
    }

    /// Recordings with labelled events: a window takes the class of an event covering at least half of it,
    /// and is a negative otherwise; every window trains. Each recording is its own group.
    public func fromEvents(files: [String], events: [SoundEvent], progress: (Int) -> Void = { _ in },
                           failure: (AudioFileError) -> Void = { _ in }) -> FitDataset {
        var result: [FitDataset.Clip] = []
        for (number, file) in files.enumerated() {
            progress(number)
            let name = (file as NSString).lastPathComponent
            let fileEvents = events.filter { $0.file == name }
            do {
                let data = try analyzer.analyze(path: file, explicitStart: Date(timeIntervalSince1970: 0))
                let rows = windows(data)
                var classes: [String?] = []
                var used: [Bool] = []
                for window in rows.indices {
                    let start = AnalysisGrid.windowStartSeconds(window)
                    let end = min(data.durationSeconds, start + AnalysisGrid.windowSeconds)
                    let covering = fileEvents.first { min(end, $0.offset) - max(start, $0.onset) >= 0.5 * (end - start) }
                    switch covering.map({ map.target(for: $0.label) }) {
                    case .excluded?:
                        classes.append(nil)
                        used.append(false)
                    case .classes(let mapped)?:
                        classes.append(mapped.first)
                        used.append(true)
                    case .none?, nil:
                        classes.append(nil)
                        used.append(true)
                    }
                }
                result.append(FitDataset.Clip(path: file, label: name, classID: nil, group: name, windows: rows,
                                              windowClasses: classes, used: used))
            } catch {
                failure(error)
            }
        }
        return FitDataset(clips: result)
    }
}
