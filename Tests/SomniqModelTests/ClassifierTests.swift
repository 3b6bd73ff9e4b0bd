import Foundation
import SomniqFeatures
import SomniqModel
import Testing

@Suite struct ClassifierTests {
    @Test func membershipIsLogisticAroundTheThreshold() {
        let above = Condition(feature: .snrDb, test: .above(10), softness: 2)
        #expect(above.membership(10) == 0.5)
        #expect(abs(above.membership(14) - 0.8808) < 1e-4)
        #expect(abs(above.membership(6) - 0.1192) < 1e-4)
        let below = Condition(feature: .snrDb, test: .below(10), softness: 2)
        #expect(abs(below.membership(6) - 0.8808) < 1e-4)
        let between = Condition(feature: .pitchHz, test: .between(100, 300), softness: 10)
        #expect(between.membership(200) > 0.99)
        #expect(between.membership(50) < 0.01)
        #expect(between.membership(400) < 0.01)
    }

    @Test func aBackstopRuleTakesOverWhereItIsSurerThanTheScore() throws {
        // The score says 0.27 everywhere (σ(-1)); the backstop says ~1 for a strong tone and ~0 otherwise.
        let score = PointsScore(base: -1, trees: [])
        var definition = SoundClassDefinition(id: "smoke_detector", tier: .critical, score: score)
        definition.backstop = .init(all: [Condition(feature: .tonality, test: .above(0.5), softness: 0.01)])
        let model = ClassifierModel(name: "m", version: "1", classes: [definition])
        var tone = FeatureVector()
        tone[.tonality] = 0.9
        var noise = FeatureVector()
        noise[.tonality] = 0.1
        #expect(Classifier(model: model).classify(tone)[0] > 0.99)
        #expect(abs(Classifier(model: model).classify(noise)[0] - 1 / (1 + exp(1))) < 1e-5, "the score, where the rule is less sure")
        let json = try JSONEncoder().encode(model)
        #expect(try JSONDecoder().decode(ClassifierModel.self, from: json) == model)
    }

    /// `never` vetoes whatever gives the class its confidence (here a score that says 0.73 and a backstop that says
    /// ~1), and a missing feature vetoes nothing: a recording without the band is no evidence either way.
    @Test func neverVetoesTheScoreAndTheBackstopButAMissingFeatureDoesNot() throws {
        var definition = SoundClassDefinition(id: "crying_sobbing", tier: .high, score: PointsScore(base: 1, trees: []))
        definition.backstop = .init(all: [Condition(feature: .harmonicity, test: .above(0.5), softness: 0.01)])
        definition.never = [Condition(feature: .toneSteadiness, test: .above(0.5), softness: 0.05)]
        let model = ClassifierModel(name: "m", version: "1", classes: [definition])
        let classifier = Classifier(model: model)
        var voice = FeatureVector()
        voice[.harmonicity] = 0.2
        voice[.toneSteadiness] = 0.1
        let score = 1 / (1 + exp(Float(-1)))
        #expect(abs(classifier.classify(voice)[0] - score * (1 - 1 / (1 + exp(8)))) < 1e-5)
        var held = voice
        held[.toneSteadiness] = 0.9
        #expect(classifier.classify(held)[0] < 1e-3, "a held tone is never the class")
        held[.harmonicity] = 0.9
        #expect(classifier.classify(held)[0] < 1e-3, "nor does the backstop bring it back")
        var missing = voice
        missing[.toneSteadiness] = .nan
        #expect(abs(classifier.classify(missing)[0] - score) < 1e-5, "missing: no veto (a condition alone would give 0.5)")
        let json = try JSONEncoder().encode(model)
        #expect(String(decoding: json, as: UTF8.self).contains("\"never\""))
        #expect(try JSONDecoder().decode(ClassifierModel.self, from: json) == model)
    }

    @Test func combinesAllAnyAndNone() {
        var features = FeatureVector()
        features[.snrDb] = 10  // membership 0.5 in `all`
        features[.tonality] = 0.9  // any: 0.5 (below 0.9) or near 1 (above 0.5)
        features[.crestDb] = 3  // none: membership of above 3 = 0.5
        let definition = SoundClassDefinition(
            id: "x", tier: .low, maxConfidence: 0.8,
            all: [Condition(feature: .snrDb, test: .above(10), softness: 1)],
            any: [Condition(feature: .tonality, test: .below(0.9), softness: 0.1),
                  Condition(feature: .tonality, test: .above(0.5), softness: 0.01)],
            none: [Condition(feature: .crestDb, test: .above(3), softness: 1)])
        let unsupported = SoundClassDefinition(id: "y", tier: .low, status: .unsupported)
        let model = ClassifierModel(name: "t", version: "1", classes: [definition, unsupported])
        let confidences = Classifier(model: model).classify(features)
        #expect(abs(confidences[0] - 0.8 * 0.5 * 1.0 * 0.5) < 1e-4)
        #expect(confidences[1] == 0)
    }
}

@Suite struct AlertRuleTests {
    let balanced = SensitivityProfile(name: "balanced", uncertainty: 0.4, on: 0.7, off: 0.5, debounceSec: 2, cooldownSec: 15)
    let tier = TierAdjustment(onDelta: -0.1, offDelta: -0.1, debounceScale: 0.5, cooldownScale: 2, useWindowMean: true,
                              windowSec: 4, windowThreshDelta: -0.1, mergeGapSec: 30,
                              severity: SeverityRule(base: .mild, moderateAfterSec: 60, severeAfterSec: 600))

    @Test func expandsAProfileWithItsTiersAdjustment() {
        let rule = AlertRule.expand(profile: balanced, soundClass: "snoring", tier: .high, adjustment: tier, frameHz: 2)
        #expect(abs(rule.on - 0.6) < 1e-12)
        #expect(abs(rule.off - 0.4) < 1e-12)
        #expect(abs(rule.windowThresh - 0.5) < 1e-12)
        #expect(rule.debounceSec == 1)
        #expect(rule.cooldownSec == 30)
        #expect(rule.uncertainty == 0.4)
        #expect(rule.frameHz == 2)
        #expect(rule.activationThreshold == rule.windowThresh)
    }

    @Test func keepsThresholdsUsable() {
        let strict = SensitivityProfile(name: "s", uncertainty: 0.9, on: 0.98, off: 0.97, debounceSec: 0, cooldownSec: 0)
        var up = tier
        up.onDelta = 0.3
        up.offDelta = 0.3
        let rule = AlertRule.expand(profile: strict, soundClass: "x", tier: .low, adjustment: up, frameHz: 2)
        #expect(rule.on == AlertRule.maximumThreshold)
        #expect(rule.on - rule.off >= AlertRule.minimumHysteresis - 1e-12)
        let loose = SensitivityProfile(name: "l", uncertainty: 0, on: 0.1, off: 0.0, debounceSec: 0, cooldownSec: 0)
        let low = AlertRule.expand(profile: loose, soundClass: "x", tier: .low, adjustment: tier, frameHz: 2)
        #expect(low.off >= AlertRule.minimumOff, "an off threshold of 0 could never be crossed")
    }

    @Test func aClassAdjustmentOverridesItsTierFieldByField() throws {
        let speech = try JSONDecoder().decode(ClassAdjustment.self, from: Data(#"{"windowSec": 1, "mergeGapSec": 5}"#.utf8))
        let applied = speech.applied(to: tier)
        #expect(applied.windowSec == 1 && applied.mergeGapSec == 5)
        #expect(applied.onDelta == tier.onDelta && applied.useWindowMean == tier.useWindowMean, "what the class leaves is the tier's")
        #expect(ClassAdjustment().applied(to: tier) == tier)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ClassAdjustment.self, from: Data(#"{"mergeGapSec": -1}"#.utf8))
        }
    }

    @Test func severityFollowsDuration() {
        let rule = SeverityRule(base: .mild, moderateAfterSec: 60, severeAfterSec: 600)
        #expect(rule.severity(durationSeconds: 59) == .mild)
        #expect(rule.severity(durationSeconds: 60) == .moderate)
        #expect(rule.severity(durationSeconds: 840) == .severe)
        #expect(SeverityRule(base: .moderate, moderateAfterSec: nil, severeAfterSec: nil).severity(durationSeconds: 9999) == .moderate)
    }
}
