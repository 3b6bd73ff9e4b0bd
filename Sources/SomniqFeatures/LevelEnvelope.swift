import Foundation

/// A recording's level every 10 ms (the feature extractor's micro-blocks over the analysis band, 0–4 kHz), kept
/// for the whole recording so that events can be timed to the sound's own start and end rather than to the
/// half-second window grid. One byte a value (0.5 dB steps from −127.5 to 0 dBFS): 360 kB an hour.
public struct LevelEnvelope: Equatable, Sendable {
    /// Values per second.
    public static let rateHz = AnalysisGrid.microBlocksPerSecond
    public static let secondsPerValue = 1 / Double(rateHz)
    static let floorDbfs: Float = -127.5

    /// Quantised levels: `dBFS = code / 2 − 127.5`.
    public private(set) var codes: [UInt8]

    public init(codes: [UInt8] = []) { self.codes = codes }

    public var count: Int { codes.count }
    public var isEmpty: Bool { codes.isEmpty }

    /// Level of 10 ms block `index`, dBFS.
    public subscript(index: Int) -> Float { Self.dbfs(code: codes[index]) }

    /// The level a code stands for, dBFS (codes are in the order of their levels).
    public static func dbfs(code: UInt8) -> Float { Float(code) / 2 + floorDbfs }

    /// The power each code stands for, `10^(dBFS / 10)` as `pow` gives it: looked up where levels are summed as
    /// powers (a night's timeline sums millions of blocks), the same bits as computing it.
    public static let powers: [Double] = (0...255).map { pow(10, Double(dbfs(code: UInt8($0))) / 10) }

    /// Power of 10 ms block `index` (`10^(dBFS / 10)`).
    @inlinable public func power(_ index: Int) -> Double { Self.powers[Int(codes[index])] }

    /// Start of block `index`, seconds from the recording's start.
    public static func seconds(_ index: Int) -> Double { Double(index) * secondsPerValue }

    /// The block holding time `seconds` (clamped to the envelope).
    public func index(at seconds: Double) -> Int {
        min(max(0, Int((seconds * Double(Self.rateHz)).rounded(.down))), max(0, count - 1))
    }

    public mutating func append(dbfs: Float) {
        let code = ((dbfs - Self.floorDbfs) * 2).rounded()
        codes.append(UInt8(min(255, max(0, code.isNaN ? 0 : code))))
    }

    public mutating func reserveCapacity(_ capacity: Int) { codes.reserveCapacity(capacity) }
}
