/// A class's own adjustment, overriding its tier's field by field. Urgency comes from the tier;
/// how a sound unfolds in time is the class's nature: a cough lasts a second and must not be
/// averaged away over four, while snoring is judged over several breaths, between which it is quiet.
public struct ClassAdjustment: Codable, Equatable, Sendable {
    public var onDelta: Double?
    public var offDelta: Double?
    public var debounceScale: Double?
    public var cooldownScale: Double?
    public var useWindowMean: Bool?
    public var windowSec: Double?
    public var windowThreshDelta: Double?
    public var holdSec: Double?
    /// Where the class's activations stop joining one episode: a tier's gap is about urgency (a minute of coughs
    /// is one coughing episode), but two sleep-talk utterances half a minute apart are two things said.
    public var mergeGapSec: Double?

    public init(onDelta: Double? = nil, offDelta: Double? = nil, debounceScale: Double? = nil, cooldownScale: Double? = nil,
                useWindowMean: Bool? = nil, windowSec: Double? = nil, windowThreshDelta: Double? = nil, holdSec: Double? = nil,
                mergeGapSec: Double? = nil) {
        self.onDelta = onDelta
        self.offDelta = offDelta
        self.debounceScale = debounceScale
        self.cooldownScale = cooldownScale
        self.useWindowMean = useWindowMean
        self.windowSec = windowSec
        self.windowThreshDelta = windowThreshDelta
        self.holdSec = holdSec
        self.mergeGapSec = mergeGapSec
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case onDelta, offDelta, debounceScale, cooldownScale, useWindowMean, windowSec, windowThreshDelta, holdSec, mergeGapSec
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value(_ key: CodingKeys, in range: ClosedRange<Double>) throws -> Double? {
            guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard range.contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                    debugDescription: "must lie in [\(range.lowerBound), \(range.upperBound)], found \(value)")
            }
            return value
        }
        onDelta = try value(.onDelta, in: -0.5...0.5)
        offDelta = try value(.offDelta, in: -0.5...0.5)
        debounceScale = try value(.debounceScale, in: 0...10)
        cooldownScale = try value(.cooldownScale, in: 0...10)
        useWindowMean = try container.decodeIfPresent(Bool.self, forKey: .useWindowMean)
        windowSec = try value(.windowSec, in: 0.5...60)
        windowThreshDelta = try value(.windowThreshDelta, in: -0.5...0.5)
        holdSec = try value(.holdSec, in: 0...30)
        mergeGapSec = try value(.mergeGapSec, in: 0...3600)
    }

    /// `adjustment` with this class's fields put in.
    public func applied(to adjustment: TierAdjustment) -> TierAdjustment {
        var result = adjustment
        if let onDelta { result.onDelta = onDelta }
        if let offDelta { result.offDelta = offDelta }
        if let debounceScale { result.debounceScale = debounceScale }
        if let cooldownScale { result.cooldownScale = cooldownScale }
        if let useWindowMean { result.useWindowMean = useWindowMean }
        if let windowSec { result.windowSec = windowSec }
        if let windowThreshDelta { result.windowThreshDelta = windowThreshDelta }
        if let holdSec { result.holdSec = holdSec }
        if let mergeGapSec { result.mergeGapSec = mergeGapSec }
        return result
    }
}
