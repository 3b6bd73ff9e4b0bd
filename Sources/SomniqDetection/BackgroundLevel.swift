import SomniqFeatures

/// The room's background level through a recording, from its 10 ms envelope: per second, the level its quietest
/// tenth of 10 ms blocks reaches; then, per second, the lower quartile of those over the minute around it. A sound
/// shorter than about three quarters of a minute never lifts it. Not causal: it serves timing after the fact.
///
/// A room is not one level: rain, a rattling fan or a recorded bedroom flickers by several dB from one 10 ms block to
/// the next. How high the room alone reaches (`ceilingPerSecond`) is its typical level (the median block, read the
/// same way) as far above that as its quiet tenth lies below it, so that a sound is timed from where it leaves the
/// room's flicker, not its quietest moments. It is read from the room's lower half only, so a recording that is
/// mostly one sound (a minute of snoring, a snore a breath) does not take that sound for the room's flicker.
public struct BackgroundLevel: Sendable {
    /// dBFS per whole second of the recording.
    public let perSecond: [Float]
    /// The top of the room's own flicker, dBFS per whole second: never below `perSecond`.
    public let ceilingPerSecond: [Float]

    static let quietShare = 0.1
    static let typicalShare = 0.5
    static let spanSeconds = 30

    public init(envelope: LevelEnvelope) {
        let perSecondBlocks = LevelEnvelope.rateHz
        let seconds = (envelope.count + perSecondBlocks - 1) / perSecondBlocks
        var quiet = [Float](repeating: 0, count: seconds)
        var typical = [Float](repeating: 0, count: seconds)
        // The envelope's levels are one-byte codes in the order of their levels: a second's quiet tenth and median are
        // read off a count of its codes, as sorting its blocks would give them.
        var counts = [Int](repeating: 0, count: 256)
        for second in 0..<seconds {
            let blocks = (second * perSecondBlocks)..<min(envelope.count, (second + 1) * perSecondBlocks)
            for index in blocks { counts[Int(envelope.codes[index])] += 1 }
            quiet[second] = Self.level(ofRank: Int(Double(blocks.count - 1) * Self.quietShare), counts: counts)
            typical[second] = Self.level(ofRank: Int(Double(blocks.count - 1) * Self.typicalShare), counts: counts)
            for index in blocks { counts[Int(envelope.codes[index])] = 0 }
        }
        var scratch: [Float] = []
        perSecond = Self.lowerQuartileAround(quiet, scratch: &scratch)
        ceilingPerSecond = zip(Self.lowerQuartileAround(typical, scratch: &scratch), perSecond).map { median, floor in
            floor + 2 * max(0, median - floor)
        }
    }

    /// The level of the code at `rank` (0 the lowest) among those `counts` holds, dBFS.
    private static func level(ofRank rank: Int, counts: [Int]) -> Float {
        var below = 0
        for code in counts.indices {
            below += counts[code]
            if below > rank { return LevelEnvelope.dbfs(code: UInt8(code)) }
        }
        preconditionFailure("rank \(rank) is beyond the \(below) levels counted")
    }

    /// Per second, the lower quartile of `values` over the minute around it: what the room holds to while sounds
    /// come and go (they fill fewer than three quarters of its seconds). The minute is kept sorted as it slides (one
    /// second leaves it, one comes in), rather than sorted afresh each second: the same values, a sixtieth of the work.
    private static func lowerQuartileAround(_ values: [Float], scratch window: inout [Float]) -> [Float] {
        var result = [Float](repeating: 0, count: values.count)
        window.removeAll(keepingCapacity: true)
        window.append(contentsOf: values.prefix(spanSeconds + 1))
        window.sort()
        for second in values.indices {
            if second > 0 {
                let leaving = second - spanSeconds - 1, coming = second + spanSeconds
                if leaving >= 0 { window.remove(at: firstIndex(notBelow: values[leaving], in: window)) }
                if coming < values.count { window.insert(values[coming], at: firstIndex(notBelow: values[coming], in: window)) }
            }
            result[second] = window[(window.count - 1) / 4]
        }
        return result
    }

    /// The first index of sorted `values` whose value is not below `value` (binary search).
    private static func firstIndex(notBelow value: Float, in values: [Float]) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The background at time `seconds`, dBFS.
    public func at(seconds: Double) -> Float {
        guard !perSecond.isEmpty else { return FeatureExtractor.minimumDbfs }
        return perSecond[min(perSecond.count - 1, max(0, Int(seconds)))]
    }

    /// The top of the room's flicker at time `seconds`, dBFS.
    public func ceiling(seconds: Double) -> Float {
        guard !ceilingPerSecond.isEmpty else { return FeatureExtractor.minimumDbfs }
        return ceilingPerSecond[min(ceilingPerSecond.count - 1, max(0, Int(seconds)))]
    }
}
