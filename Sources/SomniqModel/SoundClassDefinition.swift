/// One sound class of a model: its identity, tier and the rules that give its confidence.
///
/// `confidence = maxConfidence × Π membership(all) × max membership(any) × (1 - max membership(none))`,
/// where an empty `any` counts as 1 and an empty `none` as 0.
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
    public var description: String
    /// Upper bound of the class's confidence, (0, 1].
    public var maxConfidence: Float
    public var all: [Condition]
    public var any: [Condition]
    public var none: [Condition]
    /// The class's own adjustment, overriding its tier's where the sound's nature calls for it.
    public var adjust: ClassAdjustment?

    public init(id: String, tier: AlertTier, status: Status = .supported, description: String = "",
                maxConfidence: Float = 1, all: [Condition] = [], any: [Condition] = [], none: [Condition] = [],
                adjust: ClassAdjustment? = nil) {
        self.id = id
        self.tier = tier
        self.status = status
        self.description = description
        self.maxConfidence = maxConfidence
        self.all = all
        self.any = any
        self.none = none
        self.adjust = adjust
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, tier, status, description, maxConfidence, all, any, none, adjust
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        tier = try container.decode(AlertTier.self, forKey: .tier)
        status = try container.decode(Status.self, forKey: .status)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        maxConfidence = try container.decodeIfPresent(Float.self, forKey: .maxConfidence) ?? 1
        all = try container.decodeIfPresent([Condition].self, forKey: .all) ?? []
        any = try container.decodeIfPresent([Condition].self, forKey: .any) ?? []
        none = try container.decodeIfPresent([Condition].self, forKey: .none) ?? []
        adjust = try container.decodeIfPresent(ClassAdjustment.self, forKey: .adjust)
        guard maxConfidence > 0, maxConfidence <= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .maxConfidence, in: container,
                debugDescription: "maxConfidence must lie in (0, 1]")
        }
        if status != .unsupported, all.isEmpty, any.isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .all, in: container,
                debugDescription: "a \(status.rawValue) class needs at least one condition in all or any")
        }
    }
}
