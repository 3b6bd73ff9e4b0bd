import Foundation

/// A long quiet bedroom generated in chunks, for nights far too long to hold in memory: a fan (broadband,
/// low-passed, with a faint motor hum) and road noise (a low rumble, now and then a passing car swelling
/// for several seconds). Nothing in it should ever raise an alert.
public struct QuietRoom {
    public let sampleRate: Int
    private var random: SeededGenerator
    private var fan: Biquad
    private var rumble: Biquad
    private var position = 0
    private var nextCar: Double
    private var carStart = -1.0
    private var carLength = 0.0
    private let gain: Double

    public init(sampleRate: Int, seed: UInt64, levelDbfs: Double = -55) {
        self.sampleRate = sampleRate
        random = SeededGenerator(seed: seed)
        fan = Biquad.lowPass(frequency: 1200, sampleRate: Double(sampleRate))
        rumble = Biquad.lowPass(frequency: 150, sampleRate: Double(sampleRate))
        nextCar = 20
        // Both noise paths have roughly unit variance after filtering scaled below; this sets the overall level.
        gain = SoundSynthesizer.amplitude(dbfs: levelDbfs) * 2.2
    }

    /// The next `count` samples.
    public mutating func next(_ count: Int) -> [Float] {
        let rate = Double(sampleRate)
        var output = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let time = Double(position) / rate
            if time >= nextCar {
                carStart = time
                carLength = random.uniform(5...10)
                nextCar = time + random.uniform(30...120)
            }
            var car = 0.0
            if carStart >= 0, time < carStart + carLength {
                car = 2 * sin(Double.pi * (time - carStart) / carLength)
            }
            let hum = 0.05 * sin(2 * Double.pi * 100 * time)
            let sample = 0.6 * fan.process(random.gaussian()) + (1 + car) * 1.5 * rumble.process(random.gaussian()) + hum
            output[index] = Float(gain * sample)
            position += 1
        }
        return output
    }
}
