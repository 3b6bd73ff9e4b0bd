import SomniqModel

/// What the alert processor reports for a window.
public enum AlertEvent: Equatable, Sendable {
    /// The user is notified now.
    case alert(Alert)
    /// A class became active inside its cooldown: no notification, but it counts toward the episode.
    case suppressed(frame: Int, activation: Int)
    /// An activation ended (or the recording did).
    case ended(Activation)
}

/// A notification: the moment a user would have been told.
public struct Alert: Equatable, Sendable {
    public enum Kind: String, Sendable, Codable {
        /// At the start of an activation.
        case onset
        /// A class still active when its cooldown ran out ("still snoring").
        case continuing
    }

    public var classIndex: Int
    public var frame: Int
    public var kind: Kind
    /// The smoothed confidence that triggered it.
    public var confidence: Float
    /// Which activation of its class it belongs to (0, 1, ...).
    public var activation: Int

    public init(classIndex: Int, frame: Int, kind: Kind, confidence: Float, activation: Int) {
        self.classIndex = classIndex
        self.frame = frame
        self.kind = kind
        self.confidence = confidence
        self.activation = activation
    }
}

/// One stretch during which a class was active (past hysteresis and debounce).
public struct Activation: Equatable, Sendable {
    public var classIndex: Int
    public var index: Int
    /// First window whose smoothed confidence crossed the activation threshold.
    public var onsetFrame: Int
    /// Last window still above the off threshold.
    public var endFrame: Int
    /// Highest raw window confidence from onset to end.
    public var peakConfidence: Float
    public var alertCount: Int
    public var suppressedCount: Int

    public init(classIndex: Int, index: Int, onsetFrame: Int, endFrame: Int, peakConfidence: Float,
                alertCount: Int, suppressedCount: Int) {
        self.classIndex = classIndex
        self.index = index
        self.onsetFrame = onsetFrame
        self.endFrame = endFrame
        self.peakConfidence = peakConfidence
        self.alertCount = alertCount
        self.suppressedCount = suppressedCount
    }
}
