/// One sound class of a model: its identity, tier and the rules that give its confidence.
///
/// ```
/// confidence = max(maxConfidence × Π membership(all) × max membership(any)
///                  × max over paths (weight × Π membership(path.all)) × score.confidence
///                  × (1 − max membership(none)),
///                  backstop)
///              × (1 − max membership(never))
/// confidence = max(confidence, max membership(always))
/// ```
///
/// where an empty `any` or `paths` and a missing `score` count as 1 and an empty `none` or `never` as 0. Hand-written
/// classes use `all`, `any` and `none`. Fitted classes use either `paths`, each a branch of one learnt decision
/// tree whose `weight` is the share of that branch's training windows that were this class, or a `score`: points
/// summed over many small trees and calibrated (see `PointsScore`).
public struct SoundClassDefinition: Codable, Equatable, Sendable {
    /// How far a class can be trusted with the features the model has.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Rules exist and were checked against labelled audio.
        case supported
        /// Rules exist but are weakly checked; confidences are capped by `maxConfidence`.
        case experimental
        /// The features cannot tell this class apart; its confidence is always 0.
        case unsupported
    }

    /// Identifier, following Apple SoundAnalysis names where one exists (`snoring`, `smoke_detector`, ...).
    public var id: String
    public var tier: AlertTier
    public var status: Status
    /// How the confidence is reached (the rules in words, or how the score was fitted).
    public var description: String
    /// What sounds the class stands for, in plain words ("knocks, slams and creaks of doors"); unlike `description`,
    /// a refit keeps it.
    public var covers: String = ""
    /// Upper bound of the class's confidence, (0, 1].
    public var maxConfidence: Float
    public var all: [Condition]
    public var any: [Condition]
    public var none: [Condition]
    public var paths: [RulePath]
    public var score: PointsScore?
    /// The class's own adjustment, overriding its tier's where the sound's nature calls for it.
    public var adjust: ClassAdjustment?
    /// The top of the band the sound needs to be heard, Hz (a smoke alarm's 3 kHz tone): a recording whose Nyquist
    /// frequency falls short of it cannot hear the class, which is then reported as not detectable for that
    /// recording and given confidence 0 rather than guessed. `nil`: audible at every supported rate.
    public var bandHz: Float?
    /// A hand-written rule kept beside a fitted score for a sound with a textbook form (a smoke alarm's pure tone):
    /// the class's confidence is the larger of the two, so the fitted score, learnt from a few dozen clips, never
    /// hears less than the rule would.
    public var backstop: Backstop?
    /// Where the sound comes as separate, recurring events (snores, coughs, sobs): how to find them and group them in bouts.
    public var events: EventRhythm?
    /// What the sound never is, whatever its rules, paths, score or backstop say: `confidence × (1 − max
    /// membership(never))`, where a missing feature vetoes nothing (a recording without the band is not evidence). Unlike
    /// `none`, fitting keeps them beside the fitted score: they state the sound's acoustics (a voice never holds a tone
    /// to 1% for a second), which a corpus without such sounds cannot teach the score.
    public var never: [Condition] = []
    /// What the sound always is, whatever its rules, score or `never` say: `max(confidence, max membership(always))`,
    /// a missing feature counting 0. Kept by fitting, as `never` is: they state a form the sound is prescribed to have
    /// (a smoke alarm's temporal-three pattern, `alarm_pattern_cycles`), which must be heard even where the fitted score,
    /// learnt from a few dozen recordings, does not.
    public var always: [Condition] = []
    /// The sound is one that opens a loud stretch after quiet (a gasp ending a pause in breathing): it is heard only
    /// where no other class held the stretch before it. A gasp-like breath a second into a sob, a cough fit or a
    /// snore is that sound's own breath, not a gasp.
    public var opensSound: Bool = false
    /// The sound ends a pause in another sound (a gasp ends a pause in breathing): it is heard only where one of those
    /// classes held a window shortly before. After a quiet that no breathing was heard before, a gasp-like sound
    /// cannot be told to end a pause in breathing: it is a sneeze's intake, a scream's start, a bark.
    public var endsPauseIn: PauseEnding?

    /// The classes whose pause a sound ends, and how long such a pause may last.
    public struct PauseEnding: Codable, Equatable, Sendable {
        /// The classes one of which must have held a window (on top, at `RecordingTimeline.holdingConfidence` or
        /// more) before the sound.
        public var classes: [String]
        /// How long before the sound's window that window may start, seconds.
        public var withinSec: Double

        public init(classes: [String], withinSec: Double) {
            self.classes = classes
            self.withinSec = withinSec
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case classes, withinSec }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            classes = try container.decode([String].self, forKey: .classes)
            withinSec = try container.decode(Double.self, forKey: .withinSec)
            guard !classes.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .classes, in: container,
                    debugDescription: "endsPauseIn needs the classes whose pause the sound ends")
            }
            guard withinSec > 0, withinSec <= 3600 else {
                throw DecodingError.dataCorruptedError(forKey: .withinSec, in: container,
                    debugDescription: "endsPauseIn.withinSec is how long a pause may last, in seconds: a number in (0, 3600]")
            }
        }
    }

    /// Hand-written conditions, read as a class's own are (`maxConfidence × Π all × max any × (1 − max none)`).
    public struct Backstop: Codable, Equatable, Sendable {
        public var maxConfidence: Float
        public var all: [Condition]
        public var any: [Condition]
        public var none: [Condition]

        public init(maxConfidence: Float = 1, all: [Condition] = [], any: [Condition] = [], none: [Condition] = []) {
            self.maxConfidence = maxConfidence
            self.all = all
            self.any = any
            self.none = none
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case maxConfidence, all, any, none }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            maxConfidence = try container.decodeIfPresent(Float.self, forKey: .maxConfidence) ?? 1
            all = try container.decodeIfPresent([Condition].self, forKey: .all) ?? []
            any = try container.decodeIfPresent([Condition].self, forKey: .any) ?? []
            none = try container.decodeIfPresent([Condition].self, forKey: .none) ?? []
            guard maxConfidence > 0, maxConfidence <= 1, !(all.isEmpty && any.isEmpty) else {
                throw DecodingError.dataCorruptedError(forKey: .all, in: container,
                    debugDescription: "a backstop needs a condition in all or any, and maxConfidence in (0, 1]")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if maxConfidence != 1 { try container.encode(maxConfidence, forKey: .maxConfidence) }
            if !all.isEmpty { try container.encode(all, forKey: .all) }
            if !any.isEmpty { try container.encode(any, forKey: .any) }
            if !none.isEmpty { try container.encode(none, forKey: .none) }
        }
    }

    public init(id: String, tier: AlertTier, status: Status = .supported, description: String = "",
                maxConfidence: Float = 1, all: [Condition] = [], any: [Condition] = [], none: [Condition] = [],
                paths: [RulePath] = [], score: PointsScore? = nil, adjust: ClassAdjustment? = nil, bandHz: Float? = nil) {
        self.id = id
        self.tier = tier
        self.status = status
        self.description = description
        self.maxConfidence = maxConfidence
        self.all = all
        self.any = any
        self.none = none
        self.paths = paths
        self.score = score
        self.adjust = adjust
        self.bandHz = bandHz
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, tier, status, covers, description, bandHz, maxConfidence, all, any, none, paths, score, backstop, never, always, adjust, events,
             opensSound, endsPauseIn
    }

    /// Whether `id` is safe as a file-name part, a CSV column, a label and a SQL value without quoting:
    /// 1-64 of `a-z`, `0-9` and `_`, starting with a letter (every SoundAnalysis class name is one).
    public static func isSafeIdentifier(_ id: String) -> Bool {
        guard let first = id.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), id.utf8.count <= 64 else { return false }
        return id.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            || $0 == UInt8(ascii: "_") }
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        guard Self.isSafeIdentifier(id) else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription:
                "class id \(id.debugDescription) is not a plain identifier: use 1-64 lowercase letters, digits and '_', starting "
                + "with a letter (ids name files, columns and labels)")
        }
        tier = try container.decode(AlertTier.self, forKey: .tier)
        status = try container.decode(Status.self, forKey: .status)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        covers = try container.decodeIfPresent(String.self, forKey: .covers) ?? ""
        maxConfidence = try container.decodeIfPresent(Float.self, forKey: .maxConfidence) ?? 1
        all = try container.decodeIfPresent([Condition].self, forKey: .all) ?? []
        any = try container.decodeIfPresent([Condition].self, forKey: .any) ?? []
        none = try container.decodeIfPresent([Condition].self, forKey: .none) ?? []
        paths = try container.decodeIfPresent([RulePath].self, forKey: .paths) ?? []
        score = try container.decodeIfPresent(PointsScore.self, forKey: .score)
        adjust = try container.decodeIfPresent(ClassAdjustment.self, forKey: .adjust)
        bandHz = try container.decodeIfPresent(Float.self, forKey: .bandHz)
        backstop = try container.decodeIfPresent(Backstop.self, forKey: .backstop)
        never = try container.decodeIfPresent([Condition].self, forKey: .never) ?? []
        always = try container.decodeIfPresent([Condition].self, forKey: .always) ?? []
        events = try container.decodeIfPresent(EventRhythm.self, forKey: .events)
        opensSound = try container.decodeIfPresent(Bool.self, forKey: .opensSound) ?? false
        endsPauseIn = try container.decodeIfPresent(PauseEnding.self, forKey: .endsPauseIn)
        if let bandHz, !(bandHz > 0 && bandHz <= 192_000) {
            throw DecodingError.dataCorruptedError(forKey: .bandHz, in: container,
                debugDescription: "bandHz is the top of the band the sound needs, in Hz: a number in (0, 192000]")
        }
        guard maxConfidence > 0, maxConfidence <= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .maxConfidence, in: container,
                debugDescription: "maxConfidence must lie in (0, 1]")
        }
        if status != .unsupported, all.isEmpty, any.isEmpty, paths.isEmpty, score == nil, always.isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .all, in: container,
                debugDescription: "a \(status.rawValue) class needs at least one condition in all, any or paths, or a score")
        }
    }
}

extension SoundClassDefinition {
    /// Writes only what is set, so a written model reads like a hand-written one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(tier, forKey: .tier)
        try container.encode(status, forKey: .status)
        if !covers.isEmpty { try container.encode(covers, forKey: .covers) }
        if !description.isEmpty { try container.encode(description, forKey: .description) }
        try container.encodeIfPresent(bandHz, forKey: .bandHz)
        if maxConfidence != 1 { try container.encode(maxConfidence, forKey: .maxConfidence) }
        if !all.isEmpty { try container.encode(all, forKey: .all) }
        if !any.isEmpty { try container.encode(any, forKey: .any) }
        if !paths.isEmpty { try container.encode(paths, forKey: .paths) }
        try container.encodeIfPresent(score, forKey: .score)
        try container.encodeIfPresent(backstop, forKey: .backstop)
        if !none.isEmpty { try container.encode(none, forKey: .none) }
        if !never.isEmpty { try container.encode(never, forKey: .never) }
        if !always.isEmpty { try container.encode(always, forKey: .always) }
        try container.encodeIfPresent(adjust, forKey: .adjust)
        try container.encodeIfPresent(events, forKey: .events)
        if opensSound { try container.encode(opensSound, forKey: .opensSound) }
        try container.encodeIfPresent(endsPauseIn, forKey: .endsPauseIn)
    }
}

/// One branch of a fitted decision tree: a conjunction of conditions and the share of its training windows
/// that belonged to the class.
public struct RulePath: Codable, Equatable, Sendable {
    public var weight: Float
    public var all: [Condition]
    /// Training windows that reached this branch, for the record.
    public var support: Int?

    public init(weight: Float, all: [Condition], support: Int? = nil) {
        self.weight = weight
        self.all = all
        self.support = support
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case weight, all, support }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        weight = try container.decode(Float.self, forKey: .weight)
        all = try container.decode([Condition].self, forKey: .all)
        support = try container.decodeIfPresent(Int.self, forKey: .support)
        guard weight > 0, weight <= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .weight, in: container, debugDescription: "weight must lie in (0, 1]")
        }
    }
}
