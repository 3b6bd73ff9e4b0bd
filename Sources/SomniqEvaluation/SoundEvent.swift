/// A labelled stretch of a recording: one row of a DCASE event list.
public struct SoundEvent: Equatable, Hashable, Sendable, Codable {
    /// The recording it belongs to, as the label table names it (usually the file's name).
    public var file: String
    /// Seconds from the file's start.
    public var onset: Double
    public var offset: Double
    public var label: String

    public init(file: String, onset: Double, offset: Double, label: String) {
        self.file = file
        self.onset = onset
        self.offset = offset
        self.label = label
    }

    public var duration: Double { offset - onset }
}
