import Foundation

/// How a recorder colours what it hears: the low roll-off of a small capsule, a resonance of its case or of the
/// nightstand it lies on, and a brighter or duller top. Two phones on two nightstands hear the same snore through
/// different responses, so a class learnt from one corpus's microphone must not depend on it; `fit` hears a share of
/// its training copies through a response drawn from these ranges (`AugmentationRecipe.microphoneShare`).
public struct MicrophoneResponse: Sendable, Equatable, CustomStringConvertible {
    /// Second-order high-pass corner, Hz: where the capsule stops hearing the lows.
    public var highPassHz: Double
    /// A bell: centre (Hz), gain (dB) and Q.
    public var resonanceHz: Double
    public var resonanceDecibels: Double
    public var resonanceQ: Double
    /// A high shelf: corner (Hz) and gain above it (dB).
    public var shelfHz: Double
    public var shelfDecibels: Double

    public static let highPassRange: ClosedRange<Double> = 50...250
    public static let resonanceRange: ClosedRange<Double> = 300...3_500
    public static let resonanceGainRange: ClosedRange<Double> = -8...8
    public static let resonanceQRange: ClosedRange<Double> = 0.7...3
    public static let shelfRange: ClosedRange<Double> = 1_000...3_000
    public static let shelfGainRange: ClosedRange<Double> = -8...8

    /// The invariance table's other microphone: a phone's small capsule, rolling off below 200 Hz (−12 dB at
    /// 100 Hz), with a presence peak of +6 dB at 2.5 kHz and a top 4 dB duller above 3 kHz.
    public static let phone = MicrophoneResponse(highPassHz: 200, resonanceHz: 2_500, resonanceDecibels: 6, resonanceQ: 1.5,
                                                 shelfHz: 3_000, shelfDecibels: -4)

    public init(highPassHz: Double, resonanceHz: Double, resonanceDecibels: Double, resonanceQ: Double,
                shelfHz: Double, shelfDecibels: Double) {
        self.highPassHz = highPassHz
        self.resonanceHz = resonanceHz
        self.resonanceDecibels = resonanceDecibels
        self.resonanceQ = resonanceQ
        self.shelfHz = shelfHz
        self.shelfDecibels = shelfDecibels
    }

    /// A response drawn from the ranges above (frequencies evenly on a log scale, gains evenly in dB).
    public init(random: inout SeededGenerator) {
        highPassHz = random.logUniform(Self.highPassRange)
        resonanceHz = random.logUniform(Self.resonanceRange)
        resonanceDecibels = random.uniform(Self.resonanceGainRange)
        resonanceQ = random.uniform(Self.resonanceQRange)
        shelfHz = random.logUniform(Self.shelfRange)
        shelfDecibels = random.uniform(Self.shelfGainRange)
    }

    /// `samples` heard through this response.
    public func apply(_ samples: [Float], sampleRate: Int) -> [Float] {
        let rate = Double(sampleRate)
        var sections = [
            Biquad.highPass(frequency: highPassHz, sampleRate: rate),
            Biquad.peaking(frequency: resonanceHz, q: resonanceQ, gainDecibels: resonanceDecibels, sampleRate: rate),
            Biquad.highShelf(frequency: shelfHz, gainDecibels: shelfDecibels, sampleRate: rate),
        ]
        return samples.map { sample in
            var value = Double(sample)
            for index in sections.indices { value = sections[index].process(value) }
            return Float(value)
        }
    }

    public var description: String {
        String(format: "microphone: high-pass %.0f Hz, %+.1f dB at %.0f Hz (Q %.1f), %+.1f dB above %.0f Hz",
               highPassHz, resonanceDecibels, resonanceHz, resonanceQ, shelfDecibels, shelfHz)
    }

    /// The ranges in words, for the model's README.
    public static var summary: String {
        func range(_ values: ClosedRange<Double>, _ unit: String) -> String {
            "\(String(format: "%g", values.lowerBound))–\(String(format: "%g", values.upperBound)) \(unit)"
        }
        return "a microphone's response (a high-pass at \(range(highPassRange, "Hz")), a resonance of "
            + "±\(String(format: "%g", resonanceGainRange.upperBound)) dB at \(range(resonanceRange, "Hz")), a shelf of "
            + "±\(String(format: "%g", shelfGainRange.upperBound)) dB above \(range(shelfRange, "Hz")))"
    }
}
