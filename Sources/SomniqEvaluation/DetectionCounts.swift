/// Counts behind precision, recall, F1 and error rate, as `sed_eval` keeps them.
public struct DetectionCounts: Equatable, Sendable, Encodable {
    public var nRef = 0
    public var nSys = 0
    public var truePositives = 0
    public var falsePositives = 0
    public var falseNegatives = 0
    public var substitutions = 0
    public var deletions = 0
    public var insertions = 0

    public init() {}

    /// Scores with `sed_eval`'s conventions: a ratio over 0 is undefined (`nil`, sed_eval's NaN); F1 is 0 when
    /// precision and recall are both 0.
    public var precision: Double? { nSys == 0 ? nil : Double(truePositives) / Double(nSys) }
    public var recall: Double? { nRef == 0 ? nil : Double(truePositives) / Double(nRef) }
    public var f1: Double? {
        guard let precision, let recall else { return nil }
        if precision == 0, recall == 0 { return 0 }
        return 2 * precision * recall / (precision + recall)
    }
    public var substitutionRate: Double? { nRef == 0 ? nil : Double(substitutions) / Double(nRef) }
    public var deletionRate: Double? { nRef == 0 ? nil : Double(deletions) / Double(nRef) }
    public var insertionRate: Double? { nRef == 0 ? nil : Double(insertions) / Double(nRef) }
    /// `(S + D + I) / N_ref`. sed_eval divides by `N_ref + ε`, which for a class absent from the reference gives
    /// about 10¹⁵; here that case is undefined instead.
    public var errorRate: Double? {
        nRef == 0 ? nil : Double(substitutions + deletions + insertions) / Double(nRef)
    }

    enum CodingKeys: String, CodingKey {
        case f1, precision, recall, errorRate, substitutionRate, deletionRate, insertionRate
        case nRef, nSys, truePositives, falsePositives, falseNegatives, substitutions, deletions, insertions
    }

    /// The counts and the scores derived from them (an undefined score is `null`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for (key, value) in [(CodingKeys.f1, f1), (.precision, precision), (.recall, recall), (.errorRate, errorRate),
                             (.substitutionRate, substitutionRate), (.deletionRate, deletionRate), (.insertionRate, insertionRate)] {
            try container.encode(value, forKey: key)
        }
        for (key, value) in [(CodingKeys.nRef, nRef), (.nSys, nSys), (.truePositives, truePositives), (.falsePositives, falsePositives),
                             (.falseNegatives, falseNegatives), (.substitutions, substitutions), (.deletions, deletions),
                             (.insertions, insertions)] {
            try container.encode(value, forKey: key)
        }
    }

    static func += (lhs: inout DetectionCounts, rhs: DetectionCounts) {
        lhs.nRef += rhs.nRef
        lhs.nSys += rhs.nSys
        lhs.truePositives += rhs.truePositives
        lhs.falsePositives += rhs.falsePositives
        lhs.falseNegatives += rhs.falseNegatives
        lhs.substitutions += rhs.substitutions
        lhs.deletions += rhs.deletions
        lhs.insertions += rhs.insertions
    }
}

/// Overall (micro), class-wise and class-averaged (macro) results of one metric.
public struct DetectionScores: Equatable, Sendable {
    public var overall = DetectionCounts()
    public var classWise: [String: DetectionCounts] = [:]

    public init() {}

    /// Labels scored: every label of the reference or the system output, sorted.
    public var labels: [String] { classWise.keys.sorted() }

    /// Mean over classes of a class-wise score, skipping undefined ones (sed_eval's `nanmean`).
    /// The classes a class average of `score` is taken over: those where it is defined (F1 and precision need a
    /// detection or a reference, as sed_eval leaves the others out).
    public func macroClasses(_ score: (DetectionCounts) -> Double?) -> [String] {
        labels.filter { score(classWise[$0]!) != nil }
    }

    public func macro(_ score: (DetectionCounts) -> Double?) -> Double? {
        let values = labels.compactMap { score(classWise[$0]!) }
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
