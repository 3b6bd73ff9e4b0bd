/// The rule one class runs under one profile: the reference's `AlertRule` fields, expanded from a
/// profile and the class's tier adjustment.
public struct AlertRule: Codable, Equatable, Sendable {
    public var soundClass: String
    public var tier: AlertTier
    public var uncertainty: Double
    public var on: Double
    public var off: Double
    public var debounceSec: Double
    public var cooldownSec: Double
    /// Window decisions per second (2 for 0.5 s hops).
    public var frameHz: Double
    public var useWindowMean: Bool
    public var windowSec: Double
    public var windowThresh: Double
    /// Seconds each window's filtered confidence is held (the maximum over the last `holdSec`) before the
    /// smoothing: a sound that comes back at this pace, as snores do once a breath, is one activity.
    public var holdSec: Double

    public init(soundClass: String, tier: AlertTier, uncertainty: Double, on: Double, off: Double,
                debounceSec: Double, cooldownSec: Double, frameHz: Double, useWindowMean: Bool,
                windowSec: Double, windowThresh: Double, holdSec: Double = 0) {
        self.soundClass = soundClass
        self.tier = tier
        self.uncertainty = uncertainty
        self.on = on
        self.off = off
        self.debounceSec = debounceSec
        self.cooldownSec = cooldownSec
        self.frameHz = frameHz
        self.useWindowMean = useWindowMean
        self.windowSec = windowSec
        self.windowThresh = windowThresh
        self.holdSec = holdSec
    }

    /// Highest threshold a rule can have: 1.0 would never fire, so it is kept just below.
    public static let maximumThreshold = 0.99
    /// Smallest gap kept between `on` and `off`.
    public static let minimumHysteresis = 0.05
    /// Lowest `off`: a rule whose smoothed confidence can never drop below `off` would never end.
    public static let minimumOff = 0.05

    /// Expands `profile` for one class of tier `tier`. Every step is monotone in the profile's numbers,
    /// so a stricter profile always yields a stricter rule (the basis of the profile-ordering guarantee).
    public static func expand(profile: SensitivityProfile, soundClass: String, tier: AlertTier,
                              adjustment: TierAdjustment, frameHz: Double) -> AlertRule {
        let on = clamp(profile.on + adjustment.onDelta, minimumOff + minimumHysteresis, maximumThreshold)
        let off = clamp(min(profile.off + adjustment.offDelta, on - minimumHysteresis), minimumOff, maximumThreshold)
        let windowThresh = clamp(on + adjustment.windowThreshDelta, off, maximumThreshold)
        return AlertRule(
            soundClass: soundClass, tier: tier, uncertainty: profile.uncertainty, on: on, off: off,
            debounceSec: profile.debounceSec * adjustment.debounceScale,
            cooldownSec: profile.cooldownSec * adjustment.cooldownScale,
            frameHz: frameHz, useWindowMean: adjustment.useWindowMean, windowSec: adjustment.windowSec,
            windowThresh: windowThresh, holdSec: adjustment.holdSec)
    }

    /// The threshold the smoothed confidence must reach to switch on.
    public var activationThreshold: Double { useWindowMean ? windowThresh : on }

    private static func clamp(_ value: Double, _ lower: Double, _ upper: Double) -> Double {
        min(upper, max(lower, value))
    }
}
