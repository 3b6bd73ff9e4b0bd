import SomniqDetection
import SomniqFeatures

/// Everything decoding and classifying one recording produced: what the store persists and what
/// the profiles run on. Plain values, so the store need not know the audio or feature modules.
public struct RecordingData: Sendable {
    public var path: String
    public var container: String
    public var encoding: String
    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int64
    public var durationSeconds: Double
    /// Recording start, milliseconds since the Unix epoch (UTC).
    public var startMilliseconds: Int64
    /// How the start time was found (`explicit`, `file-name`, `metadata`, `modification-time`).
    public var startSource: String
    public var windowCount: Int
    public var featureIDs: [String]
    /// Row-major, `windowCount × featureIDs.count`; empty when the rows are in `featureSpool`. For part of a night
    /// being followed, the rows from window `firstFeatureWindow` on.
    public var features: [Float]
    public private(set) var firstFeatureWindow = 0
    /// The feature rows of a recording analysed for the database, kept out of memory (see `forEachFeatureBlock`).
    public var featureSpool: FeatureSpool?
    public var classIDs: [String]
    /// Row-major, `windowCount × classIDs.count`.
    public var confidences: [Float]
    /// Classes the model has but this recording cannot hear: their band lies above its Nyquist frequency (a smoke
    /// alarm's tone in a 4 kHz recording). Their confidences are 0: not detectable, rather than guessed.
    public var undetectableClasses: [String] = []
    /// The recording's level every 10 ms, to time sounds to their own start and end.
    public var envelope = LevelEnvelope()
    /// What the envelope says about time under the analysing model (events, bouts, refined episodes); built by the
    /// analyzer, or from `envelope` when profiles run again on a stored recording.
    public var timeline: RecordingTimeline?
    /// The windows where breathing is heard with a steady rhythm (for the night summary's quiet breathing).
    public var steadyBreathing: [NightSummary.RhythmWindow] = []
    /// XXH3-128 of the decoded audio (see `AudioFileReader.contentHash`; SHA-256 in nights stored before): what identifies
    /// the recording.
    public var contentHash: String?
    /// The file's size in bytes and modification time when it was analysed, to recognise it cheaply next time.
    public var fileSize: Int64?
    /// For a file cut short (it holds less audio than its header promises), the frame count the header promised;
    /// `frameCount` is what it held and what was analysed.
    public var declaredFrameCount: Int64?
    /// The one channel analysed (from 1) where the channels were not mixed (`analyze --channel`).
    public var channel: Int?
    /// Clipping and channels that cancel in the mono mix, as decoding measured them.
    public var faults = RecordingFaults()
    public var fileModified: Double?

    public init(path: String, container: String, encoding: String, sampleRate: Int, channelCount: Int,
                frameCount: Int64, durationSeconds: Double, startMilliseconds: Int64, startSource: String,
                windowCount: Int, featureIDs: [String], features: [Float], classIDs: [String], confidences: [Float],
                featureSpool: FeatureSpool? = nil, firstFeatureWindow: Int = 0) {
        precondition(featureSpool.map { features.isEmpty && $0.rowCount == windowCount && $0.width == featureIDs.count }
                        ?? (features.count == (windowCount - firstFeatureWindow) * featureIDs.count), "feature matrix does not match window count")
        precondition(confidences.count == windowCount * classIDs.count, "confidence matrix does not match window count")
        self.path = path
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.durationSeconds = durationSeconds
        self.startMilliseconds = startMilliseconds
        self.startSource = startSource
        self.windowCount = windowCount
        self.featureIDs = featureIDs
        self.features = features
        self.featureSpool = featureSpool
        self.classIDs = classIDs
        self.confidences = confidences
        self.firstFeatureWindow = firstFeatureWindow
    }

    public func confidence(window: Int, classIndex: Int) -> Float { confidences[window * classIDs.count + classIndex] }

    /// Calls `body` with consecutive blocks of feature rows in window order (the block's first window and its
    /// rows, row-major), from memory or from the spool.
    public func forEachFeatureBlock(_ body: (Int, UnsafeBufferPointer<Float>) throws -> Void) throws {
        if let featureSpool { return try featureSpool.forEachBlock(body) }
        try features.withUnsafeBufferPointer { try body(firstFeatureWindow, $0) }
    }
}
