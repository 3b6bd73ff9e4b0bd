import Foundation
import Testing
@testable import SomniqSynth

/// The bedroom sounds `fit` learns as none of the classes, beside the chimes (`ChimeTests`): teeth grinding is a train
/// of clicks, footsteps are heel strikes at walking pace, a passing car is one low swell; each the same for the same seed,
/// at its level.
@Suite struct BedroomSoundTests {
    /// RMS levels of consecutive 10 ms blocks, dBFS.
    static func blockLevels(_ samples: [Double], sampleRate: Double = 16_000) -> [Double] {
        let block = Int(sampleRate / 100)
        return stride(from: 0, to: samples.count - block + 1, by: block).map { start in
            let slice = samples[start..<(start + block)]
            return 10 * log10(max(1e-20, slice.reduce(0) { $0 + $1 * $1 } / Double(block)))
        }
    }

    @Test(arguments: BedroomSound.allCases)
    func aSoundIsTheSameForTheSameSeedAndAtItsLevel(sound: BedroomSound) {
        var first = SoundSynthesizer(sampleRate: 16_000, seed: 5), again = SoundSynthesizer(sampleRate: 16_000, seed: 5)
        var other = SoundSynthesizer(sampleRate: 16_000, seed: 6)
        let made = sound.make(with: &first, levelDbfs: -30)
        #expect(made == sound.make(with: &again, levelDbfs: -30))
        #expect(made != sound.make(with: &other, levelDbfs: -30))
        let level = 10 * log10(made.reduce(0) { $0 + $1 * $1 } / Double(made.count))
        #expect(abs(level - -30) < 0.01)
    }

    /// Grinding is clicks, not a burst with a body: over twenty spells (0.5-8 s each), every one's peak stands at least
    /// 19 dB over its RMS, where the synthesised cough's burst stands 16-18 dB over its own.
    @Test func teethGrindingIsATrainOfClicks() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 9)
        func crest(_ samples: [Double]) -> Double {
            20 * log10(samples.map(abs).max()! / (samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)).squareRoot())
        }
        for _ in 0..<20 {
            let grinding = synthesizer.teethGrinding(levelDbfs: -35)
            #expect(crest(grinding) >= 19, "peak over RMS: \(crest(grinding)) dB")
            #expect((0.5...8).contains(Double(grinding.count) / 16_000), "\(Double(grinding.count) / 16_000) s")
        }
        for _ in 0..<5 {
            let cough = synthesizer.cough(levelDbfs: -35)
            #expect(crest(cough) < 19, "a cough's burst: \(crest(cough)) dB")
        }
    }

    /// Footsteps are 4-10 strikes at walking pace: a strike is a 10 ms block within 20 dB of the loudest, counted once
    /// within 0.3 s (the quiet between steps lies further down), the strikes 0.4-0.85 s apart.
    @Test func footstepsAreStrikesAtWalkingPace() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 13)
        for _ in 0..<20 {
            let levels = Self.blockLevels(synthesizer.footsteps(levelDbfs: -35))
            let loudest = levels.max()!
            var strikes: [Int] = []
            for (index, level) in levels.enumerated() where level > loudest - 20 {
                if let last = strikes.last, index - last < 30 { continue }
                strikes.append(index)
            }
            #expect((4...10).contains(strikes.count), "\(strikes.count) strikes")
            let gaps = zip(strikes.dropFirst(), strikes).map { Double($0 - $1) / 100 }
            #expect(gaps.allSatisfy { (0.4...0.85).contains($0) }, "gaps \(gaps) s")
        }
    }

    /// A passing car is one swell of a low rumble, not snoring's bursts: over twenty cars (6-20 s each), the half-second
    /// levels climb to the loudest and fall from it without a dip or a rise of more than 2 dB on the way (a snore's breath
    /// between bursts drops 20 dB or more), the loudest half-second stands at least 8 dB over the first and the last, and
    /// at least three quarters of its power lies under 500 Hz (through a fourth-order low-pass).
    @Test func aPassingCarIsOneLowSwell() {
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 21)
        for _ in 0..<20 {
            let car = synthesizer.passingCar(levelDbfs: -40)
            #expect((6...20).contains(Double(car.count) / 16_000), "\(Double(car.count) / 16_000) s")
            let halves = stride(from: 0, to: car.count - 7_999, by: 8_000).map { start in
                10 * log10(car[start..<(start + 8_000)].reduce(0) { $0 + $1 * $1 } / 8_000)
            }
            let peak = halves.indices.max { halves[$0] < halves[$1] }!
            let climb = zip(halves[...peak].dropFirst(), halves[...peak]).map { $0 - $1 }
            let fall = zip(halves[peak...].dropFirst(), halves[peak...]).map { $0 - $1 }
            #expect(climb.allSatisfy { $0 > -2 } && fall.allSatisfy { $0 < 2 }, "half-second levels \(halves)")
            #expect(halves[peak] - halves.first! >= 8 && halves[peak] - halves.last! >= 8, "half-second levels \(halves)")
            var first = Biquad.lowPass(frequency: 500, sampleRate: 16_000), second = first
            let low = car.map { second.process(first.process($0)) }
            let share = low.reduce(0) { $0 + $1 * $1 } / car.reduce(0) { $0 + $1 * $1 }
            #expect(share >= 0.75, "\(Int(share * 100))% of its power under 500 Hz")
        }
    }
}
