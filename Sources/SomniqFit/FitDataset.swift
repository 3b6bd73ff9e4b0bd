import Foundation

/// Labelled clips turned into training windows for the fitter.
public struct FitDataset: Sendable {
    /// One labelled recording: a clip with one label, or a long recording with labelled events.
    public struct Clip: Sendable {
        public var path: String
        /// The clip's label as the dataset spells it (for reports); for event-labelled recordings, the file's name.
        public var label: String
        /// The dataset's finer category of the label (a manifest's `orig_label`), where it has one.
        public var detail: String? = nil
        /// Our class for the whole clip, when it has one label (`nil` for a clip of none of our classes).
        public var classID: String?
        /// Clips of one group (the same source recording) always fall in the same cross-validation fold.
        public var group: String
        /// Feature rows of the clip's windows, in `FeatureID` order.
        public var windows: [[Float]]
        /// Our class for each window (`nil`: none of ours, a negative for every class).
        public var windowClasses: [String?]
        /// Which windows train the fitter: those holding the labelled sound, or all windows of event-labelled audio.
        public var used: [Bool]
        /// Where the clip comes from (a dataset or corpus, from the manifest's `source` column), for leave-one-source-out
        /// scoring.
        public var source: String?
        /// An augmented copy of another clip (it trains, and is never scored), and the group and source of the recorded
        /// background it was mixed over: it must not train a model scored on that group or source.
        public var augmented = false
        /// A recording labelled by events (`fit --labels`): scored window by window, as its windows carry the labels.
        public var eventLabelled = false
        /// For a recording labelled by events, which labelled event each window holds (-1: none): each event, not the
        /// recording, is one example of its class (`ModelFitter.Options.minExamples`).
        public var windowEvents: [Int]?
        /// Classes the clip may hold, which it is not known (a mixed bag: `LabelMap.Target.mixed`; or, for a copy, those
        /// its background holds, its own class aside): it is no example, either way, of these classes, and a
        /// counter-example of every other class (and an example of `other`).
        public var uncertainClasses: Set<String> = []
        public var backgroundGroup: String?
        public var backgroundSource: String?
        /// Perturbed versions of the clip (another rate, level or background), scored only, to measure whether its
        /// prediction survives the change.
        public var probes: [Probe] = []

        public struct Probe: Sendable {
            public var name: String
            public var windows: [[Float]]

            public init(name: String, windows: [[Float]]) {
                self.name = name
                self.windows = windows
            }
        }

        public init(path: String, label: String, classID: String?, group: String, windows: [[Float]],
                    windowClasses: [String?], used: [Bool], source: String? = nil) {
            precondition(windows.count == windowClasses.count && windows.count == used.count)
            self.path = path
            self.label = label
            self.classID = classID
            self.group = group
            self.windows = windows
            self.windowClasses = windowClasses
            self.used = used
            self.source = source
        }

        /// Whether this clip may train a model that is scored on clips of `groups` and `sources`.
        public func mayTrain(scoredGroups groups: Set<String>, sources: Set<String>) -> Bool {
            !groups.contains(group) && !(source.map(sources.contains) ?? false)
                && !(backgroundGroup.map(groups.contains) ?? false) && !(backgroundSource.map(sources.contains) ?? false)
        }
    }

    public var clips: [Clip]

    public init(clips: [Clip]) { self.clips = clips }

    /// The group of a clip, from its file name: a UUID if it has one (a recording device or session), a
    /// Freesound id (`_<digits>_` of five or more digits), a spoken-digit speaker (`<digit>_<name>_<take>`),
    /// else the file itself.
    public static func group(of path: String) -> String {
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let patterns = [
            "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
            "(?<=_)[0-9]{5,}(?=_)",
            "(?<=__[0-9]_)[A-Za-z]+(?=_[0-9]+$)",
        ]
        for pattern in patterns {
            if let range = name.range(of: pattern, options: .regularExpression) {
                return String(name[range]).lowercased()
            }
        }
        return name
    }

    /// Assigns groups to `folds` folds, largest groups first, each to the fold with the fewest clips so far:
    /// deterministic, and balanced even when a few groups are large. Augmented copies follow their clip's group
    /// without weighing in the balance.
    public func folds(_ count: Int) -> [Int] {
        var sizes: [String: Int] = [:]
        for clip in clips { sizes[clip.group, default: 0] += clip.augmented ? 0 : 1 }
        let ordered = sizes.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        var load = [Int](repeating: 0, count: count)
        var foldOfGroup: [String: Int] = [:]
        for (group, size) in ordered {
            let fold = load.indices.min { (load[$0], $0) < (load[$1], $1) }!
            foldOfGroup[group] = fold
            load[fold] += size
        }
        return clips.map { foldOfGroup[$0.group]! }
    }
}
