/// How a class's sound comes as separate events that recur (snores once a breath, coughs in a fit): how to find
/// each event and when a run of them is one bout. Data in the model (`"events"` of a class), read by the event
/// finder; the alert processor's `holdSec` makes a bout one activity.
public struct EventRhythm: Codable, Equatable, Sendable {
    /// A window at or above this confidence for the class is evidence that a sound in it is one of its events.
    public var confidence: Double
    /// Only where the class is also on top of every other class: for a class whose confidence runs high beside others
    /// (crying beside snores and breaths at 8 kHz), a sound heard more as something else is not one of its events.
    public var onTop: Bool
    /// Events shorter than this are not counted (clicks, a breath's edge), seconds.
    public var minEventSec: Double
    /// Dips shorter than this inside a sound do not split it, seconds.
    public var bridgeSec: Double
    /// Consecutive events whose onsets lie at most this far apart belong to one bout, seconds.
    public var boutGapSec: Double
    /// A bout holds at least this many events.
    public var boutMinEvents: Int
    /// Sounds whose onsets lie closer than this are one event, seconds (0: no such limit). Snores come at most once
    /// a breath, and a breath in sleep takes 2.4 s or more: a snore whose level dips for a moment is still one snore.
    public var minIntervalSec: Double
    /// An episode of the class holds at least one bout: a lone event is not the activity (snoring is a run of
    /// snores at breathing pace; one snore-like sound on its own is not a snoring episode).
    public var boutOnly: Bool
    /// Classes whose episodes and events give way to this class's bouts: a sound that is one of the events of a bout
    /// (a snore at the bout's pace) is that, even where another class scored it higher in its window (a loud snore
    /// taken for a cough or a door). Ids of classes of the same model.
    public var claims: [String]

    public init(confidence: Double, minEventSec: Double = 0.15, bridgeSec: Double = 0.12, boutGapSec: Double,
                boutMinEvents: Int = 3, minIntervalSec: Double = 0, boutOnly: Bool = false, claims: [String] = [],
                onTop: Bool = false) {
        self.confidence = confidence
        self.onTop = onTop
        self.minEventSec = minEventSec
        self.bridgeSec = bridgeSec
        self.boutGapSec = boutGapSec
        self.boutMinEvents = boutMinEvents
        self.minIntervalSec = minIntervalSec
        self.boutOnly = boutOnly
        self.claims = claims
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case confidence, onTop, minEventSec, bridgeSec, boutGapSec, boutMinEvents, minIntervalSec, boutOnly, claims
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(confidence, forKey: .confidence)
        if onTop { try container.encode(onTop, forKey: .onTop) }
        try container.encode(minEventSec, forKey: .minEventSec)
        try container.encode(bridgeSec, forKey: .bridgeSec)
        try container.encode(boutGapSec, forKey: .boutGapSec)
        try container.encode(boutMinEvents, forKey: .boutMinEvents)
        if minIntervalSec > 0 { try container.encode(minIntervalSec, forKey: .minIntervalSec) }
        if boutOnly { try container.encode(boutOnly, forKey: .boutOnly) }
        if !claims.isEmpty { try container.encode(claims, forKey: .claims) }
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        confidence = try container.decode(Double.self, forKey: .confidence)
        onTop = try container.decodeIfPresent(Bool.self, forKey: .onTop) ?? false
        minEventSec = try container.decodeIfPresent(Double.self, forKey: .minEventSec) ?? 0.15
        bridgeSec = try container.decodeIfPresent(Double.self, forKey: .bridgeSec) ?? 0.12
        boutGapSec = try container.decode(Double.self, forKey: .boutGapSec)
        boutMinEvents = try container.decodeIfPresent(Int.self, forKey: .boutMinEvents) ?? 3
        minIntervalSec = try container.decodeIfPresent(Double.self, forKey: .minIntervalSec) ?? 0
        boutOnly = try container.decodeIfPresent(Bool.self, forKey: .boutOnly) ?? false
        claims = try container.decodeIfPresent([String].self, forKey: .claims) ?? []
        guard (0.01...1).contains(confidence) else {
            throw DecodingError.dataCorruptedError(forKey: .confidence, in: container, debugDescription: "must lie in [0.01, 1]")
        }
        for (key, value, range) in [(CodingKeys.minEventSec, minEventSec, 0.0...10), (.bridgeSec, bridgeSec, 0.0...2),
                                    (.boutGapSec, boutGapSec, 0.5...120), (.minIntervalSec, minIntervalSec, 0...10)]
        where !range.contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                debugDescription: "must lie in [\(range.lowerBound), \(range.upperBound)] s, found \(value)")
        }
        guard boutMinEvents >= 2 else {
            throw DecodingError.dataCorruptedError(forKey: .boutMinEvents, in: container, debugDescription: "a bout holds at least 2 events")
        }
    }
}
