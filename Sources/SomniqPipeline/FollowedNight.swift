import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqStore

/// A night being followed, stored as it is heard: every `commitSeconds` of audio the windows heard since are committed
/// to the store as a partial night (`AnalysisStore.savePartial`), and every alert raised is noted there, so that a
/// follow stopped by a crash or a power cut loses at most that much of the night, and a follow of the same file begun
/// again picks up where it stopped: it hears the file again from its start (at decoding speed), checks that the
/// windows it hears are the ones stored, stores only those after them, and raises no alert the first follow raised.
/// The complete analysis stored at the end replaces the partial night.
public final class FollowedNight {
    public let store: AnalysisStore
    public let bundle: ModelBundle
    public let path: String
    public let profile: String
    public let format: AudioFormatInfo
    /// The one channel heard (from 1; `follow --channel`), `nil` for the channels mixed.
    public let channel: Int?
    /// Audio between two commits.
    public let commitSeconds: Double
    /// Windows a follow before this one had stored (0 for a night begun afresh).
    public private(set) var resumedWindows = 0
    /// Set when the partial night stored for the file was not the audio the file holds now (it was dropped).
    public private(set) var discardedStaleNight = false
    /// The start a follow before this one stored: a resumed night keeps it, so that its windows keep their times of day.
    public private(set) var resumedStart: Date?
    private var recordingID: Int64?
    private var committedWindows = 0
    /// Audio stored so far (the last commit's, or the night resumed).
    public private(set) var committedSeconds = 0.0
    /// The stored windows' confidences, checked against what is heard as far as `checkedWindows`.
    private var storedConfidences: [Float] = []
    private var storedWindows = 0
    private var checkedWindows = 0
    /// Alerts a follow before this one raised.
    private var raisedBefore: Set<AnalysisStore.RaisedAlert> = []
    /// Alerts this follow raised, noted in the store up to `notedAlerts` (the rest wait for the night's first commit).
    private var raisedHere: [(alert: AnalysisStore.RaisedAlert, tier: String, offsetSeconds: Double, utc: String, confidence: Float)] = []
    private var notedAlerts = 0

    /// Opens the night of `path` in `store`: resumed where a partial night of that path is stored (heard by this model
    /// on the same channel, or mixed alike), begun afresh (at the first commit) otherwise.
    public init(store: AnalysisStore, bundle: ModelBundle, path: String, profile: String, format: AudioFormatInfo,
                channel: Int? = nil, commitSeconds: Double = 60) throws(StoreError) {
        precondition(commitSeconds > 0, "commits need a positive interval")
        self.store = store
        self.bundle = bundle
        self.path = path
        self.profile = profile
        self.format = format
        self.channel = channel
        self.commitSeconds = commitSeconds
        guard let partial = try store.partialNight(path: path) else { return }
        guard partial.classIDs == bundle.classifier.classIDs, partial.channel == channel else {
            // Heard by another model, or from another channel: nothing of it can be continued.
            try store.deletePartial(id: partial.id)
            discardedStaleNight = true
            return
        }
        recordingID = partial.id
        resumedWindows = partial.windowCount
        committedWindows = partial.windowCount
        committedSeconds = partial.durationSeconds
        storedWindows = partial.windowCount
        storedConfidences = partial.confidences
        raisedBefore = partial.raised
        resumedStart = partial.startMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Whether an alert of the followed profile is still to be raised: a follow before this one has not raised it.
    public func shouldRaise(classID: String, kind: String, windowIndex: Int) -> Bool {
        !raisedBefore.contains(.init(profile: profile, classID: classID, kind: kind, windowIndex: windowIndex))
    }

    /// Notes an alert raised (printed, handed to `--on-alert`); before the night's first commit it waits for it.
    public func noteRaised(classID: String, kind: String, windowIndex: Int, tier: String, offsetSeconds: Double, utc: String,
                           confidence: Float) throws(StoreError) {
        let alert = AnalysisStore.RaisedAlert(profile: profile, classID: classID, kind: kind, windowIndex: windowIndex)
        raisedHere.append((alert, tier, offsetSeconds, utc, confidence))
        try notePending()
    }

    private func notePending() throws(StoreError) {
        guard let recordingID else { return }
        while notedAlerts < raisedHere.count {
            let raised = raisedHere[notedAlerts]
            try store.noteRaised(raised.alert, recordingID: recordingID, tier: raised.tier, offsetSeconds: raised.offsetSeconds,
                                 utc: raised.utc, confidence: raised.confidence)
            notedAlerts += 1
        }
    }

    /// Checks the windows heard again against those a follow before this one stored; where they differ the file holds
    /// other audio (replaced, rewritten), and the stored night is dropped (`discardedStaleNight`).
    public func check(_ heard: RecordingAnalyzer.Heard) throws(StoreError) {
        if checkedWindows < storedWindows, heard.windowCount > checkedWindows {
            let classCount = bundle.classifier.classIDs.count
            let upTo = min(heard.windowCount, storedWindows)
            let range = (checkedWindows * classCount)..<(upTo * classCount)
            if heard.confidences[range].elementsEqual(storedConfidences[range], by: { $0.bitPattern == $1.bitPattern }) {
                checkedWindows = upTo
                if checkedWindows == storedWindows { storedConfidences = [] }
            } else {
                try startAfresh()
            }
        }
    }

    /// Commits the windows heard since the last commit when `commitSeconds` of audio have passed (or at once with
    /// `force`), the night starting at `start`.
    public func commitIfDue(_ heard: RecordingAnalyzer.Heard, start: Date, force: Bool = false) throws(StoreError) {
        guard heard.windowCount > committedWindows,
              force || heard.heardSeconds - committedSeconds >= commitSeconds else { return }
        var data = RecordingData(
            path: path, container: format.container, encoding: format.encoding, sampleRate: format.sampleRate,
            channelCount: format.channelCount, frameCount: heard.frames, durationSeconds: heard.heardSeconds,
            startMilliseconds: Int64((start.timeIntervalSince1970 * 1000).rounded()), startSource: "explicit",
            windowCount: heard.windowCount, featureIDs: FeatureID.stored.map(\.rawValue),
            features: Self.storedFeatures(heard.features.dropFirst(committedWindows * FeatureID.count)),
            classIDs: bundle.classifier.classIDs,
            confidences: heard.confidences, firstFeatureWindow: committedWindows)
        data.envelope = heard.envelope
        data.channel = channel
        recordingID = try store.savePartial(data, bundle: bundle, newWindows: committedWindows..<heard.windowCount,
                                            recordingID: recordingID)
        committedWindows = heard.windowCount
        committedSeconds = heard.heardSeconds
        try notePending()
    }

    /// The rows a database keeps (`FeatureID.stored`) of whole feature rows.
    static func storedFeatures(_ rows: ArraySlice<Float>) -> [Float] {
        var kept: [Float] = []
        kept.reserveCapacity(rows.count / FeatureID.count * FeatureID.stored.count)
        var start = rows.startIndex
        while start + FeatureID.count <= rows.endIndex {
            FeatureID.appendStored(of: rows[start..<(start + FeatureID.count)], to: &kept)
            start += FeatureID.count
        }
        return kept
    }

    /// Drops the night stored as it was heard, once the whole night is stored under another path (the file renamed
    /// while followed).
    public func dropPartial() throws(StoreError) {
        if let recordingID { try store.deletePartial(id: recordingID) }
        recordingID = nil
    }

    /// The file holds other audio than the night stored for it (replaced, rewritten): that night is dropped, and this
    /// one stored from its start; the alerts raised here are noted again with its first commit.
    private func startAfresh() throws(StoreError) {
        if let recordingID { try store.deletePartial(id: recordingID) }
        recordingID = nil
        discardedStaleNight = true
        committedWindows = 0
        committedSeconds = 0
        storedWindows = 0
        checkedWindows = 0
        storedConfidences = []
        raisedBefore = []
        notedAlerts = 0
    }
}
