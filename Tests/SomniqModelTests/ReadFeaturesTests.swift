import Foundation
import SomniqFeatures
import SomniqModel
import Testing

/// `ClassifierModel.readFeatures` is every feature the model can read, wherever a class names it: an analysis leaves
/// the others unmeasured, so one left out would be read as missing.
@Suite struct ReadFeaturesTests {
    @Test func everyPlaceAClassNamesAFeatureCounts() {
        func test(_ feature: FeatureID) -> Condition { Condition(feature: feature, test: .above(0), softness: 1) }
        var first = SoundClassDefinition(id: "snoring", tier: .low, all: [test(.pitchHz)], any: [test(.mfcc1)],
                                         none: [test(.crestDb)], paths: [RulePath(weight: 1, all: [test(.snrDb)])])
        first.never = [test(.melShape3)]
        first.always = [test(.octaveFlatness2)]
        var second = SoundClassDefinition(id: "cough", tier: .medium, score: PointsScore(base: 0, trees: [
            .test(feature: .harmonicity, threshold: 0.5, missingBelow: false, below: .points(1),
                  above: .test(feature: .melShapeStd7, threshold: 1, missingBelow: true, below: .points(0), above: .points(2))),
        ]))
        second.backstop = .init(all: [test(.tonality)], any: [test(.zeroCrossingRate)], none: [test(.melShapeDelta1)])
        let model = ClassifierModel(name: "m", version: "1", classes: [first, second])
        #expect(model.readFeatures == [.pitchHz, .mfcc1, .crestDb, .snrDb, .melShape3, .octaveFlatness2, .harmonicity,
                                       .melShapeStd7, .tonality, .zeroCrossingRate, .melShapeDelta1])
        #expect(ClassifierModel(name: "m", version: "1", classes: [SoundClassDefinition(id: "rain", tier: .low)]).readFeatures == [])
    }

    /// The shipped default reads none of the spectrum's shape band by band (its recipe leaves them out), so its
    /// analyses need not measure them; the check also finds every feature its trees' notation names.
    @Test func theShippedDefaultReadsNoBandShape() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bundle = try ModelBundle.load(path: root.appendingPathComponent("models/default").path)
        let read = bundle.classifier.readFeatures
        #expect(read.isDisjoint(with: FeatureID.bandShapes))
        let named = Set(bundle.classifier.classes.flatMap { $0.score?.trees ?? [] }.flatMap { tree in
            tree.notation.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).compactMap { FeatureID(rawValue: String($0)) }
        })
        #expect(named.count > 20 && named.isSubset(of: read), "the fitted trees, not an empty stand-in")
    }
}
