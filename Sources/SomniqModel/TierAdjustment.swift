/// How a tier shifts a profile's base numbers, and how it smooths. Documented in docs/pipeline.md.
public struct TierAdjustment: Codable, Equatable, Sendable {
    /// Added to the profile's `on` (negative: easier to raise).
    public var onDelta: Double
    /// Added to the profile's `off`.
    public var offDelta: Double
    public var debounceScale: Double
    public var cooldownScale: Double
    /// `true`: smooth by the mean of the last `windowSec`; `false`: an EMA with the same span.
    public var useWindowMean: Bool
    /// Smoothing span, seconds.
    public var windowSec: Double
    /// With the window mean, activation compares the mean with `on + windowThreshDelta`.
    public var windowThreshDelta: Double
    /// Seconds a window's filtered confidence is held before smoothing (0: none). The maximum over a sliding
    /// span is monotone, so a hold keeps the profile-ordering guarantee.
    public var holdSec: Double = 0
    /// Episodes of this tier merge alerts whose activations are at most this many seconds apart.
    public var mergeGapSec: Double
    /// Episode severity: the least severity of this tier, and the durations that raise it.
    public var severity: SeverityRule

    enum CodingKeys: String, CodingKey, CaseIterable {
        case onDelta, offDelta, debounceScale, cooldownScale, useWindowMean, windowSec, windowThreshDelta,
             holdSec, mergeGapSec, severity
    }

    public init(onDelta: Double, offDelta: Double, debounceScale: Double, cooldownScale: Double,
                useWindowMean: Bool, windowSec: Double, windowThreshDelta: Double, mergeGapSec: Double,
                severity: SeverityRule) {
        self.onDelta = onDelta
        self.offDelta = offDelta
        self.debounceScale = debounceScale
        self.cooldownScale = cooldownScale
        self.useWindowMean = useWindowMean
        self.windowSec = windowSec
        self.windowThreshDelta = windowThreshDelta
        self.mergeGapSec = mergeGapSec
        self.severity = severity
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        onDelta = try container.decode(Double.self, forKey: .onDelta)
        offDelta = try container.decode(Double.self, forKey: .offDelta)
        debounceScale = try container.decode(Double.self, forKey: .debounceScale)
        cooldownScale = try container.decode(Double.self, forKey: .cooldownScale)
        useWindowMean = try container.decode(Bool.self, forKey: .useWindowMean)
        windowSec = try container.decode(Double.self, forKey: .windowSec)
        windowThreshDelta = try container.decode(Double.self, forKey: .windowThreshDelta)
        holdSec = try container.decodeIfPresent(Double.self, forKey: .holdSec) ?? 0
        mergeGapSec = try container.decode(Double.self, forKey: .mergeGapSec)
        severity = try container.decode(SeverityRule.self, forKey: .severity)
        for (key, value) in [(CodingKeys.onDelta, onDelta), (.offDelta, offDelta), (.windowThreshDelta, windowThreshDelta)]
        where !(-0.5...0.5).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must lie in [-0.5, 0.5], found \(value)")
        }
        for (key, value) in [(CodingKeys.debounceScale, debounceScale), (.cooldownScale, cooldownScale)]
        where !(0...10).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must lie in [0, 10], found \(value)")
        }
        guard (0.5...60).contains(windowSec) else {
            throw DecodingError.dataCorruptedError(forKey: .windowSec, in: container, debugDescription: "must lie in [0.5, 60] s")
        }
        guard (0...30).contains(holdSec) else {
            throw DecodingError.dataCorruptedError(forKey: .holdSec, in: container, debugDescription: "must lie in [0, 30] s")
        }
        guard (0...3600).contains(mergeGapSec) else {
            throw DecodingError.dataCorruptedError(forKey: .mergeGapSec, in: container, debugDescription: "must lie in [0, 3600] s")
        }
    }
}

/// Episode severity by tier and duration: `max(base, moderate if duration ≥ moderateAfterSec,
/// severe if duration ≥ severeAfterSec)`; an absent duration never escalates.
public struct SeverityRule: Codable, Equatable, Sendable {
    public var base: EpisodeSeverity
    public var moderateAfterSec: Double?
    public var severeAfterSec: Double?

    public init(base: EpisodeSeverity, moderateAfterSec: Double?, severeAfterSec: Double?) {
        self.base = base
        self.moderateAfterSec = moderateAfterSec
        self.severeAfterSec = severeAfterSec
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case base, moderateAfterSec, severeAfterSec }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        base = try container.decode(EpisodeSeverity.self, forKey: .base)
        moderateAfterSec = try container.decodeIfPresent(Double.self, forKey: .moderateAfterSec)
        severeAfterSec = try container.decodeIfPresent(Double.self, forKey: .severeAfterSec)
        if let moderate = moderateAfterSec, let severe = severeAfterSec, severe < moderate {
            throw DecodingError.dataCorruptedError(forKey: .severeAfterSec, in: container,
                debugDescription: "severeAfterSec must not be below moderateAfterSec")
        }
    }

    public func severity(durationSeconds: Double) -> EpisodeSeverity {
        var result = base
        if let moderate = moderateAfterSec, durationSeconds >= moderate { result = max(result, .moderate) }
        if let severe = severeAfterSec, durationSeconds >= severe { result = max(result, .severe) }
        return result
    }
}

/// The SomniQ reference's episode severities.
public enum EpisodeSeverity: String, Codable, CaseIterable, Sendable, Comparable {
    case mild, moderate, severe

    public static func < (lhs: EpisodeSeverity, rhs: EpisodeSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
