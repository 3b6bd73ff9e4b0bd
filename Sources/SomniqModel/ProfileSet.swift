/// The sensitivity profiles and tier adjustments of `profiles.json`.
public struct ProfileSet: Codable, Equatable, Sendable {
    public static let format = "somniq-profiles"
    public static let supportedFormatVersion = 1

    public var format: String
    public var formatVersion: Int
    public var version: String
    public var defaultProfile: String
    /// Strictest first; every number loosens (or stays) from one profile to the next.
    public var profiles: [SensitivityProfile]
    public var tiers: [AlertTier: TierAdjustment]

    enum CodingKeys: String, CodingKey, CaseIterable { case format, formatVersion, version, defaultProfile, profiles, tiers }

    public init(version: String, defaultProfile: String, profiles: [SensitivityProfile], tiers: [AlertTier: TierAdjustment]) {
        format = Self.format
        formatVersion = Self.supportedFormatVersion
        self.version = version
        self.defaultProfile = defaultProfile
        self.profiles = profiles
        self.tiers = tiers
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        (format, formatVersion) = try container.decodeFormat(.format, .formatVersion, expected: Self.format,
                                                             supportedVersion: Self.supportedFormatVersion)
        version = try container.decode(String.self, forKey: .version)
        defaultProfile = try container.decode(String.self, forKey: .defaultProfile)
        profiles = try container.decode([SensitivityProfile].self, forKey: .profiles)
        let tierTable = try container.decode([String: TierAdjustment].self, forKey: .tiers)
        var tiers: [AlertTier: TierAdjustment] = [:]
        for (name, adjustment) in tierTable {
            guard let tier = AlertTier(rawValue: name), tier != .none else {
                throw DecodingError.dataCorruptedError(forKey: .tiers, in: container,
                    debugDescription: "unknown tier \"\(name)\" (tiers: critical, high, medium, low)")
            }
            tiers[tier] = adjustment
        }
        for tier in AlertTier.alerting where tiers[tier] == nil {
            throw DecodingError.dataCorruptedError(forKey: .tiers, in: container,
                debugDescription: "tier \"\(tier.rawValue)\" has no adjustment")
        }
        self.tiers = tiers
        guard !profiles.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .profiles, in: container, debugDescription: "no profiles")
        }
        var names = Set<String>()
        for profile in profiles where !names.insert(profile.name).inserted {
            throw DecodingError.dataCorruptedError(forKey: .profiles, in: container,
                debugDescription: "profile \"\(profile.name)\" is defined twice")
        }
        guard names.contains(defaultProfile) else {
            throw DecodingError.dataCorruptedError(forKey: .defaultProfile, in: container,
                debugDescription: "default profile \"\(defaultProfile)\" is not defined")
        }
        for (stricter, looser) in zip(profiles, profiles.dropFirst()) {
            if let field = Self.firstLooserField(stricter, than: looser) {
                throw DecodingError.dataCorruptedError(forKey: .profiles, in: container, debugDescription:
                    "profiles are listed strictest first, but \"\(looser.name)\" has a stricter \(field) than \"\(stricter.name)\"")
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(formatVersion, forKey: .formatVersion)
        try container.encode(version, forKey: .version)
        try container.encode(defaultProfile, forKey: .defaultProfile)
        try container.encode(profiles, forKey: .profiles)
        try container.encode(Dictionary(uniqueKeysWithValues: tiers.map { ($0.key.rawValue, $0.value) }), forKey: .tiers)
    }

    /// The field in which `looser` is stricter than `stricter`, if any.
    static func firstLooserField(_ stricter: SensitivityProfile, than looser: SensitivityProfile) -> String? {
        if looser.uncertainty > stricter.uncertainty { return "uncertainty" }
        if looser.on > stricter.on { return "on" }
        if looser.off > stricter.off { return "off" }
        if looser.debounceSec > stricter.debounceSec { return "debounceSec" }
        if looser.cooldownSec > stricter.cooldownSec { return "cooldownSec" }
        return nil
    }

    public func profile(named name: String) -> SensitivityProfile? { profiles.first { $0.name == name } }

    public var profileNames: [String] { profiles.map(\.name) }
}
