import Foundation
import SomniqFeatures
@testable import SomniqModel
import SomniqSynth
import Testing

/// The analysis classifies its windows eight at a time (`Classifier.classify(batch:into:)`), the trees walked for the
/// eight at once with AVX2 where the processor has it. Every confidence must be the one-window walk's, bit for bit:
/// features exactly at a test's threshold, -0 against a threshold of +0, missing (NaN) either way, infinities.
@Suite struct EightWindowsAtOnceTests {
    static let bundle = try! ModelBundle.load(path: defaultModelPath)

    /// Every threshold the model's trees test, by feature.
    static func thresholds(_ model: ClassifierModel) -> [Int: [Float]] {
        var found: [Int: [Float]] = [:]
        func visit(_ tree: ScoreTree) {
            guard case .test(let feature, let threshold, _, let below, let above) = tree else { return }
            found[feature.index, default: []].append(threshold)
            visit(below)
            visit(above)
        }
        for definition in model.classes { definition.score?.trees.forEach(visit) }
        return found
    }

    /// Feature vectors that sit on the model's thresholds, beside them, and on the values where comparisons differ.
    static func awkwardVectors(_ model: ClassifierModel, count: Int, seed: UInt64) -> [FeatureVector] {
        let tested = thresholds(model)
        let specials: [Float] = [0, -0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            FeatureVector(values: (0..<FeatureID.count).map { feature in
                let own = tested[feature] ?? [0]
                let threshold = own[Int(generator.next() % UInt64(own.count))]
                switch generator.next() % 6 {
                case 0: return threshold
                case 1: return threshold.nextDown
                case 2: return threshold.nextUp
                case 3: return specials[Int(generator.next() % UInt64(specials.count))]
                default: return Float(Int(generator.next() % 4_001) - 2_000) / 10
                }
            })
        }
    }

    static func expectSameAsOneAtATime(_ classifier: Classifier, _ vectors: [FeatureVector]) {
        var start = 0, size = 1
        while start < vectors.count {  // batches of every size from 1 to 8
            let batch = Array(vectors[start..<min(vectors.count, start + size)])
            var together = [Float](repeating: -1, count: batch.count * classifier.classCount)
            together.withUnsafeMutableBufferPointer { rows in batch.withUnsafeBufferPointer { classifier.classify(batch: $0, into: rows) } }
            for (offset, vector) in batch.enumerated() {
                let alone = classifier.classify(vector)
                let row = Array(together[(offset * classifier.classCount)..<((offset + 1) * classifier.classCount)])
                #expect(row.map(\.bitPattern) == alone.map(\.bitPattern), "window \(start + offset): \(row) against \(alone)")
            }
            start += batch.count
            size = size % Classifier.batchSize + 1
        }
    }

    @Test func theShippedModelGivesTheSameBitsEightAtATime() {
        let model = Self.bundle.classifier
        Self.expectSameAsOneAtATime(Classifier(model: model), Self.awkwardVectors(model, count: 400, seed: 11))
    }

    @Test func theFastWalkIsTheOneTakenWhereTheProcessorHasAVX2() throws {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let avx2 = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").contains("avx2") ?? false
        let score = try #require(Self.bundle.classifier.classes.compactMap(\.score).first)
        #expect(CompiledPointsScore(score).walksEightAtOnce == avx2)
    }

    /// Shallower trees (a bare leaf, one test, two) pad to their score's depth: one, two or four leaves a tree, of which
    /// the walk reads eight at once; trees deeper than 3 are walked one window at a time. Both give the same bits.
    @Test func shallowAndDeepTreesGiveTheSameBitsEightAtATime() throws {
        let fastHere = CompiledPointsScore(try #require(Self.bundle.classifier.classes.compactMap(\.score).first)).walksEightAtOnce
        for depth in [0, 1, 2, 5] {
            var model = Self.bundle.classifier
            for index in model.classes.indices where model.classes[index].score != nil {
                let feature = FeatureID.allCases[index % FeatureID.count]
                model.classes[index].score!.trees = (0..<11).map { tree in
                    switch tree % 3 {
                    case 0: .points(Float(tree) / 40)
                    case 1: Self.chain(depth: depth, feature: feature)
                    default: Self.chain(depth: min(depth, 1), feature: .snrDb, missingBelow: true)
                    }
                }
            }
            let score = try #require(model.classes.compactMap(\.score).first)
            #expect(CompiledPointsScore(score).walksEightAtOnce == (fastHere && depth <= 3))
            Self.expectSameAsOneAtATime(Classifier(model: model), Self.awkwardVectors(model, count: 120, seed: UInt64(depth)))
        }
    }

    /// A tree of `depth` tests in a row on `feature` (thresholds 0, 1, 2, ...), each with its own points.
    static func chain(depth: Int, feature: FeatureID, missingBelow: Bool = false, level: Int = 0) -> ScoreTree {
        guard level < depth else { return .points(Float(level) / 8 - 0.3) }
        return .test(feature: feature, threshold: Float(level), missingBelow: missingBelow,
                     below: .points(-Float(level) / 5), above: chain(depth: depth, feature: feature, missingBelow: missingBelow, level: level + 1))
    }
}
