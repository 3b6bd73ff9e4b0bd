import Foundation
import Testing
@testable import SomniqSynth

/// A short recorded room made into minutes (`Background.Extension.stitched`, what the development nights lie on): no
/// period at the recording's length, no step or bump where two stretches meet; read round and round (`.wrapped`) it
/// repeats at its length, which is the pace of a breath for the devset's four-second rooms.
@Suite struct StitchedRoomTests {
    static let rate = 16_000

    /// Four seconds of white noise swelling from a third of its amplitude to all of it and back, as an idling engine's
    /// or an air conditioner's recording may.
    static func swellingRoom(seed: UInt64 = 3) -> [Float] {
        var random = SeededGenerator(seed: seed)
        let count = 4 * rate
        return (0..<count).map { index in
            let phase = Double(index) / Double(count)
            return Float(random.gaussian() * (0.33 + 0.67 * sin(Double.pi * phase)))
        }
    }

    static func extended(_ recording: [Float], seconds: Double, seed: UInt64, _ how: Background.Extension) -> [Float] {
        var random = SeededGenerator(seed: seed)
        return Background(name: "room", kind: .recorded(samples: recording, sampleRate: rate))
            .samples(count: Int(seconds * Double(rate)), sampleRate: rate, random: &random, extension: how)
    }

    /// Mean power of consecutive blocks of `seconds`.
    static func blockPowers(_ samples: [Float], seconds: Double) -> [Double] {
        let block = Int(seconds * Double(rate))
        return stride(from: 0, to: samples.count - block + 1, by: block).map { start in
            samples[start..<(start + block)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block)
        }
    }

    /// The normalised autocorrelation of `values` (their mean taken off) at `lag`.
    static func autocorrelation(_ values: [Double], lag: Int) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        let centred = values.map { $0 - mean }
        let energy = centred.reduce(0) { $0 + $1 * $1 }
        return zip(centred, centred.dropFirst(lag)).reduce(0) { $0 + $1.0 * $1.1 } / energy
    }

    @Test func aStitchedRoomHasNoPeriodWhereAWrappedOneRepeatsAtItsLength() {
        let room = Self.swellingRoom()
        let wrapped = Self.blockPowers(Self.extended(room, seconds: 300, seed: 8, .wrapped), seconds: 0.1)
        let stitched = Self.blockPowers(Self.extended(room, seconds: 300, seed: 8, .stitched), seconds: 0.1)
        // Lags of 2 to 8 s, in 100 ms blocks: the wrapped room peaks at 4 s (and 8 s); the stitched one nowhere.
        let wrappedAtLength = Self.autocorrelation(wrapped, lag: 40)
        let stitchedPeak = (20...80).map { Self.autocorrelation(stitched, lag: $0) }.max()!
        #expect(wrappedAtLength > 0.8, "\(wrappedAtLength)")
        #expect(stitchedPeak < 0.3, "\(stitchedPeak)")
    }

    /// Steady noise stays steady across the joins: every 50 ms of a minute made of a one-second recording (about a
    /// hundred joins, each a quarter of the recording long) within 1.5 dB of the whole's power, where a dip or a
    /// doubling at a join would be 3 dB; and no sample beyond what two faded stretches can add to.
    @Test func theJoinsNeitherDipNorBump() {
        var random = SeededGenerator(seed: 11)
        let second = (0..<Self.rate).map { _ in Float(random.gaussian()) }
        let minute = Self.extended(second, seconds: 60, seed: 2, .stitched)
        #expect(minute.count == 60 * Self.rate)
        let powers = Self.blockPowers(minute, seconds: 0.05)
        let mean = powers.reduce(0, +) / Double(powers.count)
        let worst = powers.map { abs(10 * log10($0 / mean)) }.max()!
        #expect(worst < 1.5, "the farthest 50 ms block from the mean: \(worst) dB")
        // Both the recording and the minute are near unit power (the minute exactly), so the bound holds to a few percent.
        let peak = second.map(abs).max()!
        #expect(minute.map(abs).max()! <= peak * Float(2).squareRoot() * 1.05)
    }

    @Test func theSameSeedStitchesTheSameRoom() {
        let room = Self.swellingRoom()
        let first = Self.extended(room, seconds: 30, seed: 4, .stitched)
        #expect(first == Self.extended(room, seconds: 30, seed: 4, .stitched))
        #expect(first != Self.extended(room, seconds: 30, seed: 5, .stitched))
        let power = first.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(first.count)
        #expect(abs(power - 1) < 1e-3)
    }

    /// A recording too short to fade (under four fades' worth) is read round, as before; an empty one is silence.
    @Test func veryShortRecordingsAreReadRound() {
        let tiny: [Float] = [1, -1, 0.5]
        let made = Self.extended(tiny, seconds: 0.001, seed: 1, .stitched)
        #expect(made.count == 16)
        #expect(Self.extended([], seconds: 1, seed: 1, .stitched) == [Float](repeating: 0, count: Self.rate))
    }
}
