import SomniqFeatures

/// The room's background level through a recording, from its 10 ms envelope: per second, the level its quietest
/// tenth of 10 ms blocks reaches; then, per second, the lower quartile of those over the minute around it. A sound
/// shorter than about three quarters of a minute never lifts it. Not causal: it serves timing after the fact.
public struct BackgroundLevel: Sendable {
    /// dBFS per whole second of the recording.
    public let perSecond: [Float]

    static let quietShare = 0.1
    static let spanSeconds = 30

    public init(envelope: LevelEnvelope) {
        let perSecondBlocks = LevelEnvelope.rateHz
        let seconds = (envelope.count + perSecondBlocks - 1) / perSecondBlocks
        var quiet = [Float](repeating: 0, count: seconds)
        var scratch: [Float] = []
        for second in 0..<seconds {
            scratch.removeAll(keepingCapacity: true)
            for index in (second * perSecondBlocks)..<min(envelope.count, (second + 1) * perSecondBlocks) {
                scratch.append(envelope[index])
            }
            scratch.sort()
            quiet[second] = scratch[Int(Double(scratch.count - 1) * Self.quietShare)]
        }
        var result = [Float](repeating: 0, count: seconds)
        for second in 0..<seconds {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: quiet[max(0, second - Self.spanSeconds)..<min(seconds, second + Self.spanSeconds + 1)])
            scratch.sort()
            result[second] = scratch[(scratch.count - 1) / 4]
        }
        perSecond = result
    }

    /// The background at time `seconds`, dBFS.
    public func at(seconds: Double) -> Float {
        guard !perSecond.isEmpty else { return FeatureExtractor.minimumDbfs }
        return perSecond[min(perSecond.count - 1, max(0, Int(seconds)))]
    }
}
