import SomniqDetection
import SomniqModel
import Testing

/// A rule at 2 windows per second with no smoothing unless asked.
func rule(uncertainty: Double = 0, on: Double = 0.7, off: Double = 0.5, debounce: Double = 0, cooldown: Double = 60,
          windowMean: Bool = false, windowSec: Double = 0.5, windowThresh: Double? = nil) -> AlertRule {
    AlertRule(soundClass: "x", tier: .high, uncertainty: uncertainty, on: on, off: off, debounceSec: debounce,
              cooldownSec: cooldown, frameHz: 2, useWindowMean: windowMean, windowSec: windowSec,
              windowThresh: windowThresh ?? on)
}

/// Feeds `confidences` and returns every event with its frame, closing with `finish`.
func run(_ rule: AlertRule, _ confidences: [Float]) -> (alerts: [Alert], suppressed: [Int], activations: [Activation]) {
    var processor = AlertProcessor(rule: rule, classIndex: 0)
    var alerts: [Alert] = [], suppressed: [Int] = [], activations: [Activation] = []
    for (frame, confidence) in confidences.enumerated() {
        switch processor.step(frame: frame, confidence: confidence) {
        case .alert(let alert): alerts.append(alert)
        case .suppressed(let frame, _): suppressed.append(frame)
        case .ended(let activation): activations.append(activation)
        case nil: break
        }
    }
    if let open = processor.finish() { activations.append(open) }
    return (alerts, suppressed, activations)
}

@Suite struct AlertProcessorTests {
    @Test func hysteresisHoldsBetweenOffAndOn() {
        // Crosses on (0.7) once, then wanders between off (0.5) and on: one activation until it drops below 0.5.
        let result = run(rule(), [0.1, 0.8, 0.6, 0.55, 0.65, 0.51, 0.4, 0.6, 0.1])
        #expect(result.alerts.map(\.frame) == [1])
        #expect(result.activations.count == 1)
        #expect(result.activations[0].onsetFrame == 1)
        #expect(result.activations[0].endFrame == 5)
        #expect(result.activations[0].peakConfidence == 0.8)
    }

    @Test func debounceWaitsAndReportsTheOnset() {
        // 1 s of debounce is two windows after the first one above `on`.
        let result = run(rule(debounce: 1), [0, 0.9, 0.9, 0.9, 0.9, 0])
        #expect(result.alerts.map(\.frame) == [3])
        #expect(result.alerts[0].kind == .onset)
        #expect(result.activations[0].onsetFrame == 1)
    }

    @Test func debounceCutShortRaisesNothing() {
        let result = run(rule(debounce: 1), [0, 0.9, 0.9, 0.3, 0.9, 0.9, 0.2])
        #expect(result.alerts.isEmpty)
        #expect(result.activations.isEmpty)
    }

    @Test func cooldownSuppressesARetriggerThenAlertsIfItPersists() {
        // Cooldown 5 s = 10 windows. Alert at 1; new activation at 4 is suppressed; it lasts until the cooldown
        // ends at 11 and alerts then as "continuing".
        var confidences: [Float] = [0, 0.9, 0.9, 0.1, 0.9]
        confidences += [Float](repeating: 0.9, count: 10) + [0]
        let result = run(rule(cooldown: 5), confidences)
        #expect(result.alerts.map(\.frame) == [1, 11])
        #expect(result.alerts.map(\.kind) == [.onset, .continuing])
        #expect(result.suppressed == [4])
        #expect(result.activations.count == 2)
        #expect(result.activations[1].suppressedCount == 1)
        #expect(result.activations[1].alertCount == 1)
    }

    @Test func aSustainedSoundRealertsEveryCooldown() {
        let result = run(rule(cooldown: 2), [Float](repeating: 0.95, count: 13))
        #expect(result.alerts.map(\.frame) == [0, 4, 8, 12])
        #expect(result.activations.count == 1)
        #expect(result.activations[0].endFrame == 12)
    }

    @Test func uncertaintyFilterZeroesDoubtfulWindows() {
        // Window mean over 2 windows: 0.65 and 0.75 average 0.7 ≥ on; but under an uncertainty threshold
        // of 0.7 the doubtful 0.65 counts as 0 and the mean never gets past 0.375.
        let input: [Float] = [0.65, 0.75, 0.65, 0.75]
        let doubting = rule(uncertainty: 0.7, on: 0.7, off: 0.5, windowMean: true, windowSec: 1, windowThresh: 0.7)
        #expect(run(doubting, input).alerts.isEmpty)
        let trusting = rule(uncertainty: 0.6, on: 0.7, off: 0.5, windowMean: true, windowSec: 1, windowThresh: 0.7)
        #expect(run(trusting, input).alerts.map(\.frame) == [1])
    }

    @Test func emaAndWindowMeanSmoothDifferently() {
        var ema = Smoother(method: .exponential, span: 3)  // α = 0.5
        #expect([1, 0, 0, 1].map { ema.push($0) } == [1, 0.5, 0.25, 0.625])
        var mean = Smoother(method: .windowMean, span: 3)
        #expect([1, 0, 0, 1].map { mean.push($0) } == [1, 0.5, Float(1) / 3, Float(1) / 3])
        // The same input alerts later under a 1.5 s window mean than under a 1.5 s EMA.
        let input: [Float] = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0]
        let emaAlert = run(rule(windowSec: 1.5), input).alerts.first?.frame
        let meanAlert = run(rule(windowMean: true, windowSec: 1.5, windowThresh: 0.7), input).alerts.first?.frame
        #expect(emaAlert == 3)
        #expect(meanAlert == 4)
    }

    @Test func withoutCooldownASustainedSoundAlertsEveryWindow() {
        #expect(run(rule(cooldown: 0), [0, 0.9, 0.9, 0.9, 0]).alerts.map(\.frame) == [1, 2, 3])
    }

    @Test func anActivationStillOpenAtTheEndIsClosed() {
        let result = run(rule(), [0, 0.9, 0.9])
        #expect(result.activations.count == 1)
        #expect(result.activations[0].endFrame == 2)
    }
}
