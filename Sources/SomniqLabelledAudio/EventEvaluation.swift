import SomniqPipeline
import Foundation
import SomniqDetection
import SomniqEvaluation
import SomniqModel
import SomniqStore

/// Scores what each profile detected in recordings against a DCASE reference: segment-based and
/// event-based, as `sed_eval` does. The profiles' episodes are the detected events.
public struct EventEvaluation: Sendable {
    /// One profile's scores over every evaluated file.
    public struct ProfileScores: Sendable {
        public var profile: String
        public var segmentBased: DetectionScores
        public var eventBased: DetectionScores
        /// The detected events, in file then onset order (what was scored).
        public var estimated: [SoundEvent]
    }

    public let segmentResolution: Double
    public let onsetCollar: Double
    public let offsetFraction: Double
    public private(set) var profiles: [ProfileScores] = []
    /// Reference files for which no recording was analysed.
    public private(set) var unmatchedReferenceFiles: [String] = []

    public init(segmentResolution: Double = 1.0, onsetCollar: Double = 0.2, offsetFraction: Double = 0.5) {
        self.segmentResolution = segmentResolution
        self.onsetCollar = onsetCollar
        self.offsetFraction = offsetFraction
    }

    /// The reference name of a recording: its file name, as DCASE tables name files.
    public static func referenceName(of path: String) -> String { (path as NSString).lastPathComponent }

    /// A profile's episodes as events labelled with class identifiers.
    public static func events(of result: ProfileResult, file: String, classIDs: [String]) -> [SoundEvent] {
        result.episodes.map { SoundEvent(file: file, onset: $0.startSeconds, offset: $0.endSeconds, label: classIDs[$0.classIndex]) }
    }

    /// Scores `recordings` (each with every profile's result, in the same profile order) against `reference`.
    /// Reference labels go through `map` (a label that maps to none of our classes, or is excluded, is not scored).
    public mutating func evaluate(recordings: [(data: RecordingData, results: [ProfileResult])], reference: [SoundEvent],
                                  map: LabelMap) {
        let mapped = reference.compactMap { event -> SoundEvent? in
            guard case .classes(let classes) = map.target(for: event.label), let first = classes.first else { return nil }
            return SoundEvent(file: event.file, onset: event.onset, offset: event.offset, label: first)
        }
        let analysed = Set(recordings.map { Self.referenceName(of: $0.data.path) })
        unmatchedReferenceFiles = Set(mapped.map(\.file)).subtracting(analysed).sorted()
        guard let profileNames = recordings.first?.results.map(\.profile) else { return }
        profiles = profileNames.enumerated().map { index, name in
            var segment = SegmentBasedMetrics(resolution: segmentResolution)
            var event = EventBasedMetrics(onsetCollar: onsetCollar, offsetFraction: offsetFraction)
            var estimatedAll: [SoundEvent] = []
            for recording in recordings {
                let file = Self.referenceName(of: recording.data.path)
                let estimated = Self.events(of: recording.results[index], file: file, classIDs: recording.data.classIDs)
                    .sorted { ($0.onset, $0.label) < ($1.onset, $1.label) }
                let fileReference = mapped.filter { $0.file == file }
                segment.evaluate(reference: fileReference, estimated: estimated)
                event.evaluate(reference: fileReference, estimated: estimated)
                estimatedAll += estimated
            }
            return ProfileScores(profile: name, segmentBased: segment.scores, eventBased: event.scores, estimated: estimatedAll)
        }
    }
}
