import SomniqFeatures

/// Evaluates a `ClassifierModel` on one window's features: a confidence in [0, 1] per class,
/// in model order. Pure and allocation-free per window.
public struct Classifier: Sendable {
    public let model: ClassifierModel
    /// Each class's `score`, laid out for speed.
    private let scores: [CompiledPointsScore?]

    public init(model: ClassifierModel) {
        self.model = model
        scores = model.classes.map { $0.score.map(CompiledPointsScore.init) }
    }

    public var classCount: Int { model.classes.count }

    /// Writes each class's confidence into `confidences` (`classCount` values).
    public func classify(_ features: FeatureVector, into confidences: UnsafeMutableBufferPointer<Float>) {
        // Indexed through buffer pointers, not enumerated: enumerating copied each class's definition and score
        // (retaining and releasing their arrays) once a window.
        model.classes.withUnsafeBufferPointer { classes in
            scores.withUnsafeBufferPointer { scores in
                for index in classes.indices {
                    let definition = classes[index]
                    let points = definition.status == .unsupported ? nil : scores[index]?.confidence(features)
                    confidences[index] = Self.confidence(of: definition, points: points, features)
                }
            }
        }
    }

    /// Windows classified at once by `classify(batch:into:)`.
    public static let batchSize = 8

    /// Writes the confidences of up to `batchSize` windows into `confidences` (`vectors.count × classCount` values, row
    /// by row), bit for bit what `classify` writes for each: the fitted scores' trees are walked for all of them at
    /// once where the processor allows (`CompiledPointsScore.rawScores(ofEight:)`), the rest window by window.
    public func classify(batch vectors: UnsafeBufferPointer<FeatureVector>, into confidences: UnsafeMutableBufferPointer<Float>) {
        let count = vectors.count, classCount = classCount, lanes = Self.batchSize
        precondition(count >= 1 && count <= lanes && confidences.count == count * classCount)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: FeatureID.count * lanes) { sideBySide in
            // Feature f of window w at 8f + w; the lanes past the batch repeat its last window (their scores unused).
            for lane in 0..<lanes {
                vectors[min(lane, count - 1)].values.withUnsafeBufferPointer { values in
                    for feature in 0..<FeatureID.count { sideBySide[feature &* lanes &+ lane] = values[feature] }
                }
            }
            model.classes.withUnsafeBufferPointer { classes in
                scores.withUnsafeBufferPointer { scores in
                    for index in classes.indices {
                        let definition = classes[index]
                        let points = definition.status == .unsupported ? nil : scores[index]
                        // Eight lanes cost about what two or three windows walked alone do (a live follow classifies
                        // a window or two at a time).
                        let raw = points.flatMap { $0.walksEightAtOnce && count >= 3
                            ? $0.rawScores(ofEight: UnsafePointer(sideBySide.baseAddress!)) : nil }
                        for window in 0..<count {
                            let confidence: Float? = if let points {
                                if let raw { points.calibration.apply(raw[window]) } else { points.confidence(vectors[window]) }
                            } else { nil }
                            confidences[window &* classCount &+ index] = Self.confidence(of: definition, points: confidence, vectors[window])
                        }
                    }
                }
            }
        }
    }

    public func classify(_ features: FeatureVector) -> [Float] {
        var confidences = [Float](repeating: 0, count: classCount)
        confidences.withUnsafeMutableBufferPointer { classify(features, into: $0) }
        return confidences
    }

    /// A class's confidence in a window, given its fitted score's confidence there (`points`, nil without a score).
    @inline(__always)
    static func confidence(of definition: SoundClassDefinition, points: Float?, _ features: FeatureVector) -> Float {
        guard definition.status != .unsupported else { return 0 }
        var score = conditions(maxConfidence: definition.maxConfidence, all: definition.all, any: definition.any,
                               none: definition.none, features)
        if let points { score *= points }
        if !definition.paths.isEmpty {
            var best: Float = 0
            for path in definition.paths {
                var value = path.weight
                for condition in path.all { value *= condition.membership(features[condition.feature]) }
                best = max(best, value)
            }
            score *= best
        }
        if let backstop = definition.backstop {
            score = max(score, conditions(maxConfidence: backstop.maxConfidence, all: backstop.all, any: backstop.any,
                                          none: backstop.none, features))
        }
        if !definition.never.isEmpty { score *= 1 - strongest(definition.never, features) }
        if !definition.always.isEmpty { score = max(score, strongest(definition.always, features)) }
        return min(1, max(0, score))
    }

    /// The strongest of `conditions`' memberships, a missing feature counting 0: a recording without a feature's band
    /// vetoes nothing, and proves nothing.
    @inline(__always)
    static func strongest(_ conditions: [Condition], _ features: FeatureVector) -> Float {
        var strongest: Float = 0
        for condition in conditions {
            let value = features[condition.feature]
            if !value.isNaN { strongest = max(strongest, condition.membership(value)) }
        }
        return strongest
    }

    /// `maxConfidence × Π membership(all) × max membership(any) × (1 − max membership(none))`, an empty `any` counting 1.
    @inline(__always)
    static func conditions(maxConfidence: Float, all: [Condition], any: [Condition], none: [Condition],
                           _ features: FeatureVector) -> Float {
        var score = maxConfidence
        for condition in all { score *= condition.membership(features[condition.feature]) }
        if !any.isEmpty {
            var best: Float = 0
            for condition in any { best = max(best, condition.membership(features[condition.feature])) }
            score *= best
        }
        if !none.isEmpty {
            var veto: Float = 0
            for condition in none { veto = max(veto, condition.membership(features[condition.feature])) }
            score *= 1 - veto
        }
        return score
    }
}
