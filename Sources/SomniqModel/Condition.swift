import Foundation
import SomniqFeatures

/// One soft test on one feature: `above`, `below` or `between` a threshold, with a `softness`
/// in the feature's own unit.
///
/// Its membership is logistic: `above t` gives `σ((x - t) / softness)`, 0.5 at the threshold and
/// 0.88 two softness units past it; `below t` is the mirror; `between [lo, hi]` is the product of
/// `above lo` and `below hi`. A soft edge makes confidences graded rather than all-or-nothing.
public struct Condition: Codable, Equatable, Sendable {
    public enum Test: Equatable, Sendable {
        case above(Float)
        case below(Float)
        case between(Float, Float)
    }

    public var feature: FeatureID
    public var test: Test
    public var softness: Float

    public init(feature: FeatureID, test: Test, softness: Float) {
        self.feature = feature
        self.test = test
        self.softness = softness
    }

    /// Membership of `value`, in [0, 1]. A missing feature (NaN: the recording lacks its band) is neither in nor
    /// out: 0.5.
    @inline(__always)
    public func membership(_ value: Float) -> Float {
        guard !value.isNaN else { return 0.5 }
        return switch test {
        case .above(let threshold): Self.logistic((value - threshold) / softness)
        case .below(let threshold): Self.logistic((threshold - value) / softness)
        case .between(let lower, let upper):
            Self.logistic((value - lower) / softness) * Self.logistic((upper - value) / softness)
        }
    }

    @inline(__always)
    static func logistic(_ z: Float) -> Float { 1 / (1 + exp(-z)) }

    enum CodingKeys: String, CodingKey, CaseIterable { case feature, above, below, between, softness }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .feature)
        guard let feature = FeatureID(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .feature, in: container, debugDescription:
                "unknown feature \"\(name)\" (known: \(FeatureID.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        self.feature = feature
        let above = try container.decodeIfPresent(Float.self, forKey: .above)
        let below = try container.decodeIfPresent(Float.self, forKey: .below)
        let between = try container.decodeIfPresent([Float].self, forKey: .between)
        switch (above, below, between) {
        case (let value?, nil, nil): test = .above(value)
        case (nil, let value?, nil): test = .below(value)
        case (nil, nil, let range?):
            guard range.count == 2, range[0] < range[1] else {
                throw DecodingError.dataCorruptedError(forKey: .between, in: container,
                    debugDescription: "between takes [lower, upper] with lower < upper")
            }
            test = .between(range[0], range[1])
        default:
            throw DecodingError.dataCorruptedError(forKey: .feature, in: container,
                debugDescription: "a condition has exactly one of above, below or between")
        }
        softness = try container.decode(Float.self, forKey: .softness)
        guard softness > 0, softness.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .softness, in: container,
                debugDescription: "softness must be a positive number in the feature's unit")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(feature.rawValue, forKey: .feature)
        switch test {
        case .above(let value): try container.encode(value, forKey: .above)
        case .below(let value): try container.encode(value, forKey: .below)
        case .between(let lower, let upper): try container.encode([lower, upper], forKey: .between)
        }
        try container.encode(softness, forKey: .softness)
    }
}
