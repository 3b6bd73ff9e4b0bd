/// The shape of an audio file as its header describes it.
public struct AudioFormatInfo: Equatable, Sendable {
    /// Sample rates the analysis accepts, in Hz. Below 4 kHz the bands the classifier relies on do not exist.
    public static let supportedSampleRates = 4_000...384_000

    /// Frames per second, in Hz.
    public var sampleRate: Int
    public var channelCount: Int
    /// Number of frames (one sample per channel) the header promises.
    public var frameCount: Int64
    /// Container name as libsndfile reports it, e.g. "WAV", "CAF", "FLAC".
    public var container: String
    /// Sample encoding as libsndfile reports it, e.g. "PCM_16", "FLOAT".
    public var encoding: String

    public init(sampleRate: Int, channelCount: Int, frameCount: Int64, container: String, encoding: String) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.container = container
        self.encoding = encoding
    }

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
}
