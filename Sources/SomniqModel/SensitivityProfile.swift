/// One of the sensitivity profiles: the base numbers of the SomniQ reference, before tier adjustments.
public struct SensitivityProfile: Codable, Equatable, Sendable {
    /// Name as the command line spells it, e.g. `very-conservative`.
    public var name: String
    public var description: String
    /// A window confidence below this is treated as 0 (the uncertainty filter).
    public var uncertainty: Double
    /// Activation threshold of the smoothed confidence.
    public var on: Double
    /// Deactivation threshold (hysteresis): an active class stays active until its smoothed confidence drops below this.
    public var off: Double
    /// Seconds the smoothed confidence must stay above `on`/`off` before the class counts as active.
    public var debounceSec: Double
    /// Minimum seconds between two alerts of the same class.
    public var cooldownSec: Double

    public init(name: String, description: String = "", uncertainty: Double, on: Double, off: Double,
                debounceSec: Double, cooldownSec: Double) {
        self.name = name
        self.description = description
        self.uncertainty = uncertainty
        self.on = on
        self.off = off
        self.debounceSec = debounceSec
        self.cooldownSec = cooldownSec
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, uncertainty, on, off, debounceSec, cooldownSec
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        uncertainty = try container.decode(Double.self, forKey: .uncertainty)
        on = try container.decode(Double.self, forKey: .on)
        off = try container.decode(Double.self, forKey: .off)
        debounceSec = try container.decode(Double.self, forKey: .debounceSec)
        cooldownSec = try container.decode(Double.self, forKey: .cooldownSec)
        for (key, value) in [(CodingKeys.uncertainty, uncertainty), (.on, on), (.off, off)] where !(0...1).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must lie in [0, 1], found \(value)")
        }
        guard off < on else {
            throw DecodingError.dataCorruptedError(forKey: .off, in: container,
                debugDescription: "off (\(off)) must be below on (\(on)) for hysteresis")
        }
        for (key, value) in [(CodingKeys.debounceSec, debounceSec), (.cooldownSec, cooldownSec)]
        where !(0...3600).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must lie in [0, 3600] s, found \(value)")
        }
        guard name.range(of: "^[a-z0-9][a-z0-9-]*$", options: .regularExpression) != nil else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: container,
                debugDescription: "profile names are lower-case letters, digits and hyphens, found \"\(name)\"")
        }
    }
}
