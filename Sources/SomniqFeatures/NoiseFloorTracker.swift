/// A running estimate of the room's background level, in dBFS.
///
/// Each window offers a candidate (the 10th percentile of its 10 ms levels, i.e. its quiet
/// moments). The floor follows a lower candidate at once and a higher one at most
/// `riseDecibelsPerSecond`, so a 10-minute snoring bout barely moves it while a fan switched on
/// becomes "background" within a couple of minutes.
public struct NoiseFloorTracker: Equatable, Sendable {
    public static let riseDecibelsPerSecond: Float = 0.1

    public private(set) var floorDbfs: Float?

    public init() {}

    /// Takes one window's candidate, `hopSeconds` after the previous one.
    public mutating func update(candidateDbfs: Float, hopSeconds: Float = Float(AnalysisGrid.hopSeconds)) {
        guard let floor = floorDbfs else {
            floorDbfs = candidateDbfs
            return
        }
        if candidateDbfs <= floor {
            floorDbfs = candidateDbfs
        } else {
            floorDbfs = floor + min(candidateDbfs - floor, Self.riseDecibelsPerSecond * hopSeconds)
        }
    }
}
