/// How urgently a class deserves the sleeper's attention. `none` raises no alert (silence).
public enum AlertTier: String, Codable, CaseIterable, Sendable, Comparable {
    case critical, high, medium, low, none

    /// Tiers that raise alerts, most urgent first.
    public static let alerting: [AlertTier] = [.critical, .high, .medium, .low]

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    /// More urgent tiers sort first.
    public static func < (lhs: AlertTier, rhs: AlertTier) -> Bool { lhs.rank < rhs.rank }
}
