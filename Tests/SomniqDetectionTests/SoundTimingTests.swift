import Foundation
import SomniqFeatures
import Testing
@testable import SomniqDetection

/// Timing a sound in a room that is not one level: rain, a rattling fan or a recorded bedroom flickers by several dB
/// from one 10 ms block to the next.
@Suite struct SoundTimingTests {
    /// A room whose 10 ms blocks run through -60…-42 dBFS in a fixed, irregular order (median about -51), with
    /// `sounds` (start, end, level) laid on it.
    func flickeringRoom(seconds: Double, sounds: [(Double, Double, Float)]) -> LevelEnvelope {
        let flicker: [Float] = [-56, -47, -60, -44, -51, -53, -42, -58, -49, -46, -55, -50, -59, -45, -52, -48, -57, -43]
        var envelope = LevelEnvelope()
        for index in 0..<Int(seconds * 100) {
            let time = Double(index) / 100
            let sound = sounds.first { time >= $0.0 && time < $0.1 }
            envelope.append(dbfs: sound?.2 ?? flicker[(index * 7) % flicker.count])
        }
        return envelope
    }

    /// The powers looked up for the envelope's codes are the ones `pow` gives, bit for bit (the timeline's levels and
    /// every stored episode's mean level rest on them), and a stretch's mean level is their power mean.
    @Test func levelsAreSummedAsThePowersTheyStandFor() {
        for code in 0...255 {
            let dbfs = LevelEnvelope.dbfs(code: UInt8(code))
            #expect(LevelEnvelope.powers[code].bitPattern == pow(10, Double(dbfs) / 10).bitPattern, "code \(code)")
        }
        var envelope = LevelEnvelope()
        for level: Float in [-60, -30, -30, -60] { envelope.append(dbfs: level) }
        let expected = Float(10 * log10((2 * pow(10, -6.0) + 2 * pow(10, -3.0)) / 4))
        let mean = SoundTiming(envelope: envelope).meanDbfs(in: 0...0.04)
        #expect(mean.map { abs($0 - expected) < 1e-4 } == true, "\(String(describing: mean)) against \(expected)")
    }

    @Test func theRoomsFlickerIsMeasured() {
        let background = BackgroundLevel(envelope: flickeringRoom(seconds: 60, sounds: [(20, 21, -25)]))
        // The quietest tenth of the blocks reach -58 or below; their median is -51, so the flicker's top is about
        // 8 dB over that (-51 + (-51 - -59)), near its loudest blocks (-42 to -44).
        #expect(background.at(seconds: 10) <= -58)
        #expect(background.ceiling(seconds: 10) >= -45 && background.ceiling(seconds: 10) <= -41, "\(background.ceiling(seconds: 10))")
        #expect(background.ceiling(seconds: 20.5) == background.ceiling(seconds: 10), "a one-second sound does not lift it")
    }

    /// The room's level per second is the lower quartile, over the minute around it, of each second's quiet tenth, and
    /// the top of its flicker is read the same way from each second's median. Read from a count of the envelope's level
    /// codes and a minute kept sorted as it slides, both are exactly what sorting each second's blocks and each minute
    /// afresh gives: over a room that drifts, jumps and repeats levels (the envelope holds them quantised, so many are
    /// equal), and over one shorter than a minute.
    @Test(arguments: [45, 600])
    func theSlidingMinuteGivesWhatSortingEachMinuteGives(seconds: Int) {
        var state: UInt32 = 7
        var envelope = LevelEnvelope()
        for index in 0..<(seconds * 100 - 37) {
            state = state &* 1_664_525 &+ 1_013_904_223
            let drift = Float((index / 500) % 40) - 70, jump: Float = (index / 1_700) % 3 == 1 ? 25 : 0
            envelope.append(dbfs: drift + jump + Float(state >> 28))
        }
        func perSecond(_ share: Double) -> [Float] {
            (0..<seconds).map { second -> Float in
                let levels = (second * 100..<min(envelope.count, (second + 1) * 100)).map { envelope[$0] }.sorted()
                return levels[Int(Double(levels.count - 1) * share)]
            }
        }
        func lowerQuartileAround(_ values: [Float]) -> [Float] {
            values.indices.map { second -> Float in
                let span = BackgroundLevel.spanSeconds
                let minute = values[max(0, second - span)..<min(values.count, second + span + 1)].sorted()
                return minute[(minute.count - 1) / 4]
            }
        }
        let floor = lowerQuartileAround(perSecond(BackgroundLevel.quietShare))
        let typical = lowerQuartileAround(perSecond(BackgroundLevel.typicalShare))
        let background = BackgroundLevel(envelope: envelope)
        #expect(background.perSecond == floor)
        #expect(background.ceilingPerSecond == zip(typical, floor).map { $1 + 2 * max(0, $0 - $1) })
        #expect(Set(floor).count >= 5, "the room's level moves")
    }

    /// A recording that is mostly one sound, a snore a breath for a minute (2 s of snore every 3 s over a steady room):
    /// every second holds some snore, two in three mostly snore, but the flicker is read from the room's lower half,
    /// so it stays the steady room's, and each snore is timed from its own edges.
    @Test func aMinuteOfSnoringIsNotTheRoomsFlicker() {
        let snores = stride(from: 2.5, to: 58, by: 3).map { ($0, $0 + 2, Float(-30)) }
        var envelope = LevelEnvelope()
        for index in 0..<6_000 {
            let time = Double(index) / 100
            envelope.append(dbfs: snores.first { time >= $0.0 && time < $0.1 }?.2 ?? -60)
        }
        let timing = SoundTiming(envelope: envelope)
        #expect(timing.background.ceiling(seconds: 30) <= -59, "\(timing.background.ceiling(seconds: 30))")
        let found = timing.sounds(in: 20...29, reach: 1, bridgeSeconds: 0.12, minimumSeconds: 0.1)
        let expected = snores.filter { $0.1 > 20 && $0.0 < 29 }
        #expect(found.count == expected.count, "\(found)")
        for (span, snore) in zip(found, expected) {
            #expect(abs(span.onsetSeconds - snore.0) <= 0.01 && abs(span.offsetSeconds - snore.1) <= 0.01, "\(span)")
        }
    }

    /// Measured from the room's quietest moments alone, the flicker's peaks (16-17 dB over them, within the 0.4 share of
    /// a 39 dB rise) were taken for the sound, and its start was followed back into the room.
    @Test func aSoundIsTimedFromWhereItLeavesTheFlicker() {
        let timing = SoundTiming(envelope: flickeringRoom(seconds: 60, sounds: [(30, 31, -20)]))
        let span = timing.span(peakIn: 29...32, within: 20...40)
        #expect(span.map { abs($0.onsetSeconds - 30) <= 0.01 && abs($0.offsetSeconds - 31) <= 0.01 } == true, "\(String(describing: span))")
        let sounds = timing.sounds(in: 28...33, reach: 1, bridgeSeconds: 0.12, minimumSeconds: 0.1)
        #expect(sounds.count == 1 && abs(sounds[0].onsetSeconds - 30) <= 0.01 && abs(sounds[0].offsetSeconds - 31) <= 0.01,
                "\(sounds)")
    }

    /// A sound barely out of the flicker (a second 0.5 dB over the flicker's loudest block, under the flicker's top and
    /// margin) is still a sound, covered whole (its edges cannot be told from the flicker's by level, so it may be
    /// followed into it), not cut down to the few blocks over the flicker's margin.
    @Test func aSoundBarelyOutOfTheFlickerIsStillFound() {
        let timing = SoundTiming(envelope: flickeringRoom(seconds: 60, sounds: [(30, 31, -41.5)]))
        let span = timing.span(peakIn: 29.5...31.5, within: 20...40)
        #expect(span != nil)
        #expect(span.map { $0.onsetSeconds <= 30.01 && $0.offsetSeconds >= 30.99 } == true, "\(String(describing: span))")
    }
}
