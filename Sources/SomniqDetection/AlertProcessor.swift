import SomniqModel

/// The causal, incremental alert state machine of one class under one rule. Pure: feed it one
/// window confidence at a time with `step`, as a live app would, and it says what happens.
///
/// Per window `i` (decided at the window's end):
/// 1. **Uncertainty filter**: `x = c` if `c ≥ uncertainty`, else 0.
/// 2. **Hold** (where the rule has one): `x` becomes the largest filtered value of the last `holdSec`, so that a
///    sound recurring at that pace (a snore once a breath) is one activity rather than a series of blips.
/// 3. **Smoothing**: `s` = EMA or window mean of `x` over `windowSec`.
/// 4. **Hysteresis**: the class goes *above* when `s ≥ on` (or `windowThresh` with the window mean)
///    and falls back only when `s < off`.
/// 5. **Debounce**: it becomes *active* once it has been above for `debounceSec` (measured between
///    window starts); falling back earlier cuts the debounce short and nothing happens.
/// 6. **Cooldown**: while active, it alerts whenever `cooldownSec` have passed since its last alert
///    (first at the activation's onset, then again if the sound persists). An activation that starts
///    inside the cooldown is *suppressed*: no alert, but it counts toward the episode, and it alerts
///    as soon as the cooldown ends if it is still active.
public struct AlertProcessor: Sendable {
    public let rule: AlertRule
    public let classIndex: Int
    private let debounceFrames: Int
    private let cooldownFrames: Int
    private let activationThreshold: Float
    private let offThreshold: Float
    private let uncertainty: Float
    private var smoother: Smoother
    private var hold: SlidingMaximum

    private var aboveSince: Int?
    private var peakSinceAbove: Float = 0
    private var current: Activation?
    private var lastAlertFrame: Int?
    private var activationCount = 0
    private var lastFrame = -1

    public init(rule: AlertRule, classIndex: Int) {
        self.rule = rule
        self.classIndex = classIndex
        debounceFrames = Self.frames(rule.debounceSec, frameHz: rule.frameHz)
        cooldownFrames = Self.frames(rule.cooldownSec, frameHz: rule.frameHz)
        activationThreshold = Float(rule.activationThreshold)
        offThreshold = Float(rule.off)
        uncertainty = Float(rule.uncertainty)
        hold = SlidingMaximum(span: Self.frames(rule.holdSec, frameHz: rule.frameHz) + 1)
        smoother = Smoother(method: rule.useWindowMean ? .windowMean : .exponential,
                            span: max(1, Self.frames(rule.windowSec, frameHz: rule.frameHz)))
    }

    /// Seconds to whole windows, rounding up: a 0.5 s debounce at 2 windows/s is one window.
    static func frames(_ seconds: Double, frameHz: Double) -> Int {
        Int((seconds * frameHz - 1e-9).rounded(.up))
    }

    public var isActive: Bool { current != nil }

    /// Feeds window `frame`'s raw confidence; frames must come in order, one each.
    public mutating func step(frame: Int, confidence: Float) -> AlertEvent? {
        precondition(frame == lastFrame + 1, "frames must be consecutive")
        lastFrame = frame
        let filtered = confidence >= uncertainty ? confidence : 0
        let smoothed = smoother.push(hold.push(filtered))

        if aboveSince != nil {
            if smoothed < offThreshold {
                aboveSince = nil
                if var ended = current {
                    ended.endFrame = frame - 1
                    current = nil
                    return .ended(ended)
                }
                return nil
            }
            peakSinceAbove = max(peakSinceAbove, confidence)
        } else if smoothed >= activationThreshold {
            aboveSince = frame
            peakSinceAbove = confidence
        }

        guard let since = aboveSince else { return nil }
        var isOnset = false
        if current == nil {
            guard frame - since >= debounceFrames else { return nil }
            current = Activation(classIndex: classIndex, index: activationCount, onsetFrame: since, endFrame: frame,
                                 peakConfidence: peakSinceAbove, alertCount: 0, suppressedCount: 0)
            activationCount += 1
            isOnset = true
        }
        current!.endFrame = frame
        current!.peakConfidence = max(current!.peakConfidence, confidence)
        if lastAlertFrame.map({ frame - $0 >= cooldownFrames }) ?? true {
            lastAlertFrame = frame
            current!.alertCount += 1
            return .alert(Alert(classIndex: classIndex, frame: frame, kind: isOnset ? .onset : .continuing,
                                confidence: smoothed, activation: current!.index))
        }
        if isOnset {
            current!.suppressedCount += 1
            return .suppressed(frame: frame, activation: current!.index)
        }
        return nil
    }

    /// Ends the recording: closes an open activation at the last window fed.
    public mutating func finish() -> Activation? {
        defer { current = nil; aboveSince = nil }
        return current
    }
}
