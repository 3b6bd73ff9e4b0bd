import Foundation
import SomniqFeatures

/// How `fit` hears a training clip as it would sound in other bedrooms, through other recorders: each copy is
/// the clip in a reverberant room, over a background at some signal-to-noise ratio, at another level, recorded at
/// another rate (or through a telephone-band filter), and clipped at full scale as a recorder would.
///
/// Deterministic: a copy's every choice comes from a `SeededGenerator` seeded by the recipe's seed, the clip's
/// name and the copy's number, so the same data and recipe give the same copies, byte for byte.
public struct AugmentationRecipe: Sendable, Equatable {
    /// Augmented copies per training clip (0: none).
    public var copies = 4
    public var seed: UInt64 = 20_261_123
    /// Level change, dB.
    public var gainDecibels: ClosedRange<Double> = -20...10
    /// Share of copies mixed over a background, and the signal-to-noise ratio, dB (clip's active power over the
    /// background's mean power).
    public var backgroundShare = 0.75
    public var snrDecibels: ClosedRange<Double> = 0...30
    /// A copy over a background begins with this much of the background alone, seconds (a whole number of
    /// half-seconds), so that the room is learnt before the sound as it is in a night; the windows within it do not
    /// train (`ClipAugmentation.leadWindows`).
    public var leadSeconds = 4.0
    /// Share of the copies over a background that begin with the lead; the others mix it in from the clip's first
    /// sample, as a clip cut around its sound is heard. All of them: with half, the clip card gained a little and the
    /// development nights lost (docs/classifier-history.md, "More capacity learns the sources").
    public var leadShare = 1.0
    /// How a recorded background shorter than a copy fills it. Read round (`.wrapped`) by default, as every shipped
    /// model was fitted: stitched (`fit --stitch-backgrounds`) is what the development nights lie on, measured as a
    /// recipe (docs/classifier.md) and not yet taken.
    public var backgroundExtension: Background.Extension = .wrapped
    /// Share of copies given mild reverberation, its reverberation time (s) and wet level.
    public var reverbShare = 0.5
    public var reverbSeconds: ClosedRange<Double> = 0.2...0.6
    public var reverbWet: ClosedRange<Double> = 0.1...0.4
    /// Share of copies heard through another microphone (`MicrophoneResponse`: a low roll-off, a resonance, a shelf).
    /// A quarter: more costs the room (the invariance table's room at 10 dB SNR 86% -> 84% with half, 81% with all).
    public var microphoneShare = 0.25
    /// Recorder rates a copy is resampled to, each equally likely; `telephone` is 8 kHz through a 3.4 kHz low-pass.
    public var rates: [RecorderRate] = [.native, .hertz(4_000), .telephone, .hertz(16_000), .hertz(44_100)]
    /// Clips of each synthesised background alone, trained as none of the classes (a hum, a fan: not an event).
    public var steadyBackgrounds = 12
    /// Synthesised bedroom sounds over a synthesised room, trained as none of the classes: notification chimes (a
    /// phone's ding is neither a sob nor speech; `SoundSynthesizer.chime`). Teeth grinding and footsteps can be added
    /// (`fit --teeth-grinding N --footsteps N`) but are not by default: learnt from the synthesiser they hardly changed
    /// what recorded grinding and footsteps raise, and footsteps cost held-out snoring (docs/classifier-history.md).
    public var chimes = 48
    public var teethGrinding = 0
    public var footsteps = 0
    /// Passing cars (`SoundSynthesizer.passingCar`): a steady background's clips are 3 s, shorter than the swell of a
    /// car, and without them a car passing a quiet room at night came near the snoring threshold.
    public var passingCars = 24

    /// How many of `sound` train as none of the classes.
    public func count(of sound: BedroomSound) -> Int {
        switch sound {
        case .chime: chimes
        case .teethGrinding: teethGrinding
        case .footsteps: footsteps
        case .passingCar: passingCars
        }
    }

    public enum RecorderRate: Sendable, Equatable, CustomStringConvertible {
        case native, telephone
        case hertz(Int)

        /// Whether a recorder at this rate hears a sound whose band reaches `hertz` (the clip's own rate is assumed to).
        public func hears(hertz: Float) -> Bool {
            switch self {
            case .native: true
            case .telephone: FeatureStream.hears(hertz: hertz, sampleRate: 6_800)  // a 3.4 kHz band
            case .hertz(let rate): FeatureStream.hears(hertz: hertz, sampleRate: rate)
            }
        }

        public var description: String {
            switch self {
            case .native: "the clip's own"
            case .telephone: "8 kHz telephone band (3.4 kHz low-pass)"
            case .hertz(let rate): "\(rate) Hz"
            }
        }
    }

    public init() {}

    /// No augmented copies.
    public static let none: AugmentationRecipe = {
        var recipe = AugmentationRecipe()
        recipe.copies = 0
        return recipe
    }()

    /// The recipe in words, for the model's README.
    public var summary: String {
        guard copies > 0 else { return "no augmentation" }
        return "\(copies) copies per clip, seed \(seed): level \(Int(gainDecibels.lowerBound)) to +\(Int(gainDecibels.upperBound)) dB; "
            + "\(Int(backgroundShare * 100))% over a background (recorded backgrounds and synthesised brown and pink noise, "
            + "a fan with road noise, a mains hum) at \(Int(snrDecibels.lowerBound))–\(Int(snrDecibels.upperBound)) dB SNR, "
            + (leadShare >= 1 ? "after \(String(format: "%g", leadSeconds)) s of the background alone; "
                : leadShare > 0 ? "\(Int((leadShare * 100).rounded()))% of them after \(String(format: "%g", leadSeconds)) s of the "
                    + "background alone, the others from the clip's first sample; "
                : "from the clip's first sample; ")
            + (backgroundExtension == .stitched ? "a recorded background shorter than the copy stitched from stretches of it; " : "")
            + "\(Int(reverbShare * 100))% with reverberation (\(reverbSeconds.lowerBound)–\(reverbSeconds.upperBound) s, "
            + "wet \(reverbWet.lowerBound)–\(reverbWet.upperBound)); "
            + (microphoneShare > 0 ? "\(Int(microphoneShare * 100))% through \(MicrophoneResponse.summary); " : "")
            + "recorder rate one of "
            + rates.map(\.description).joined(separator: ", ") + " (the clip's own where that rate cannot hear its class); "
            + "clipped at full scale; and, as examples of none of the classes, \(steadyBackgrounds) clips of each synthesised "
            + "background alone (−65 to −25 dBFS) and, each over a synthesised background, "
            + BedroomSound.allCases.filter { count(of: $0) > 0 }.map { sound in
                let (what, how) = sound.described
                let levels = [sound.trainingLevels.lowerBound, sound.trainingLevels.upperBound].map {
                    String(format: "%g", $0).replacingOccurrences(of: "-", with: "−")
                }
                let snr = "\(Int(sound.trainingSNR.lowerBound))–\(Int(sound.trainingSNR.upperBound)) dB SNR"
                return "\(count(of: sound)) synthesised \(what) (\(how); \(levels[0]) to \(levels[1]) dBFS at \(snr))"
            }.joined(separator: ", ")
    }
}

/// A background to mix under clips: a recorded one (mono samples at its rate) or one the synthesiser makes.
public struct Background: Sendable {
    public enum Kind: Sendable, Equatable {
        case recorded(samples: [Float], sampleRate: Int)
        case brownNoise, pinkNoise, fanAndRoad, mainsHum
        /// White noise: a recorder's own hiss, or its dither in a silent room.
        case hiss
    }

    public var name: String
    /// The cross-validation group and source of a recorded background (nil for synthesised ones): a clip mixed
    /// over it must not train a model scored on that group or source.
    public var group: String?
    public var source: String?
    public var kind: Kind
    /// Classes a recorded background holds (its label's): a clip mixed over it is no example, either way, of those
    /// classes but its own (a cough over rain is not "not rain").
    public var heldClasses: Set<String>

    public init(name: String, group: String? = nil, source: String? = nil, kind: Kind, heldClasses: Set<String> = []) {
        self.name = name
        self.group = group
        self.source = source
        self.kind = kind
        self.heldClasses = heldClasses
    }

    /// The pool in words, for the model's README: how many backgrounds, and how many of them hold a class.
    public static func poolSummary(_ pool: [Background]) -> String {
        var held: [String: Int] = [:]
        for background in pool { for id in background.heldClasses { held[id, default: 0] += 1 } }
        guard !held.isEmpty else { return "\(pool.count) backgrounds in the pool" }
        let counts = held.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(pool.count) backgrounds in the pool, some of them recordings of a class, over which a copy of another "
            + "class is no counter-example of it (\(counts))"
    }

    public static let synthesised: [Background] = [
        Background(name: "brown noise", kind: .brownNoise), Background(name: "pink noise", kind: .pinkNoise),
        Background(name: "fan and road", kind: .fanAndRoad), Background(name: "mains hum", kind: .mainsHum),
        Background(name: "recorder hiss", kind: .hiss),
    ]

    /// The synthesised kinds by the names the command lines use.
    public static let synthesisedKinds: [String: Kind] = [
        "brown": .brownNoise, "pink": .pinkNoise, "hum": .mainsHum, "fan": .fanAndRoad, "hiss": .hiss,
    ]

    /// How a recorded background fills more time than it holds.
    public enum Extension: Sendable {
        /// Read round and round from a place `random` picks: the fitting recipe's copies, a few seconds each (what
        /// the shipped models were fitted with).
        case wrapped
        /// Stretches of it from places `random` picks, each faded into the next (`stitched(_:count:sampleRate:random:)`):
        /// a room for minutes, with no period and no seam.
        case stitched
    }

    /// `count` samples of this background at `sampleRate`, at unit mean power, starting at a place `random` picks.
    public func samples(count: Int, sampleRate: Int, random: inout SeededGenerator,
                        extension extending: Extension = .wrapped) -> [Float] {
        var output: [Float]
        switch kind {
        case .recorded(let recorded, let rate):
            let resampled = rate == sampleRate ? recorded : Resampler.convert(recorded, from: rate, to: sampleRate)
            guard !resampled.isEmpty else { return [Float](repeating: 0, count: count) }
            switch extending {
            case .wrapped:
                let start = Int(random.unit() * Double(resampled.count))
                output = (0..<count).map { resampled[(start + $0) % resampled.count] }
            case .stitched:
                output = Self.stitched(resampled, count: count, sampleRate: sampleRate, random: &random)
            }
        case .brownNoise:
            var level = 0.0
            output = (0..<count).map { _ in
                level = 0.995 * level + 0.1 * random.gaussian()
                return Float(level)
            }
        case .pinkNoise:
            // Paul Kellet's economy filter: white noise through three one-pole low-passes.
            var b0 = 0.0, b1 = 0.0, b2 = 0.0
            output = (0..<count).map { _ in
                let white = random.gaussian()
                b0 = 0.99765 * b0 + white * 0.0990460
                b1 = 0.96300 * b1 + white * 0.2965164
                b2 = 0.57000 * b2 + white * 1.0526913
                return Float(b0 + b1 + b2 + white * 0.1848)
            }
        case .fanAndRoad:
            var room = QuietRoom(sampleRate: sampleRate, seed: random.next())
            output = room.next(count)
        case .hiss:
            output = (0..<count).map { _ in Float(random.gaussian()) }
        case .mainsHum:
            let mains = random.unit() < 0.5 ? 50.0 : 60.0
            let phase = random.unit() * 2 * Double.pi
            output = (0..<count).map { index in
                let time = Double(index) / Double(sampleRate)
                let hum = sin(2 * Double.pi * mains * time + phase) + 0.5 * sin(4 * Double.pi * mains * time)
                    + 0.25 * sin(6 * Double.pi * mains * time)
                return Float(hum + 0.05 * random.gaussian())
            }
        }
        let power = output.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, output.count))
        let scale = power > 0 ? Float(1 / power.squareRoot()) : 0
        return output.map { $0 * scale }
    }

    /// How far a recording's level spreads, dB: the 10th to the 90th percentile of its 100 ms blocks' RMS levels
    /// (0 for one shorter than two blocks). A room's tone barely moves; the devset's steady air conditioners and
    /// engines spread 0.5-5 dB, an engine starting up within its four seconds 14 dB.
    public static func levelSpreadDb(_ samples: [Float], sampleRate: Int) -> Double {
        let block = max(1, sampleRate / 10)
        guard samples.count >= 2 * block else { return 0 }
        let levels = blockLevelsDb(samples, block: block, partialLast: false).sorted()
        func percentile(_ share: Double) -> Double { Double(levels[Int((share * Double(levels.count - 1)).rounded())]) }
        return percentile(0.9) - percentile(0.1)
    }

    /// The RMS level of each `block` samples of `samples`, dB (floored at -120); with `partialLast`, of the shorter
    /// block at the end too.
    static func blockLevelsDb(_ samples: [Float], block: Int, partialLast: Bool) -> [Float] {
        let end = partialLast ? samples.count : samples.count - block + 1
        return stride(from: 0, to: max(0, end), by: block).map { start -> Float in
            let stop = min(samples.count, start + block)
            var sum: Float = 0
            for index in start..<stop { sum += samples[index] * samples[index] }
            return 10 * log10(max(sum / Float(stop - start), 1e-12))
        }
    }

    /// The longest fade between two stretches of a stitched room, seconds.
    static let stitchFadeSeconds = 0.25

    /// `count` samples made of stretches of `recording`: each from a place and of a length (two fades to half the
    /// recording) `random` picks, never running past its end, and faded into the one before over a quarter of a
    /// second (a quarter of the recording at most) with equal power, as two unrelated stretches of a room's noise add.
    /// A short recorded room read round and round instead repeats at its own length, with a step where its end meets
    /// its start: an idling engine's four-second swell every four seconds is a breathing pace, and the analysis
    /// rightly hears a rhythm there. Stretches up to the whole recording would still each hold about one swell, a
    /// rhythm at their mean length; up to half of it, the swell comes back at no pace (`StitchedRoomTests`).
    static func stitched(_ recording: [Float], count: Int, sampleRate: Int, random: inout SeededGenerator) -> [Float] {
        let length = recording.count
        let fade = max(1, min(Int(stitchFadeSeconds * Double(sampleRate)), length / 4))
        guard length >= 4 * fade, count > 0 else {
            return (0..<count).map { recording[$0 % length] }
        }
        var output: [Float] = []
        output.reserveCapacity(count + length)
        let shortest = 2 * fade, longest = max(2 * fade, length / 2)
        while output.count < count {
            let stretch = shortest + Int(random.unit() * Double(longest - shortest + 1))
            let start = Int(random.unit() * Double(length - stretch + 1))
            var index = start
            if !output.isEmpty {
                let overlap = output.count - fade
                for step in 0..<fade {
                    let angle = Double.pi / 2 * (Double(step) + 0.5) / Double(fade)
                    output[overlap + step] = output[overlap + step] * Float(cos(angle)) + recording[index] * Float(sin(angle))
                    index += 1
                }
            }
            output.append(contentsOf: recording[index..<(start + stretch)])
        }
        return Array(output.prefix(count))
    }
}

/// One augmented copy of a clip, drawn from a recipe.
public struct ClipAugmentation: Sendable, CustomStringConvertible {
    public var gainDecibels: Double
    /// Index into the background pool, and the SNR.
    public var background: Int?
    public var snrDecibels: Double
    public var reverb: (seconds: Double, wet: Double)?
    public var microphone: MicrophoneResponse?
    public var rate: AugmentationRecipe.RecorderRate
    /// Seeds the background's starting place and the synthesised backgrounds.
    public var noiseSeed: UInt64
    /// Seconds of the background alone before the clip, when it is mixed over one.
    public var leadSeconds: Double = 0
    /// Seconds of digital silence (zeros) before and after the copy, as clip collections pad and cut their clips
    /// (probes only).
    public var padding: (before: Double, after: Double) = (0, 0)
    /// A constant added to every sample, as a recorder's converter may (probes only).
    public var dcOffset: Float = 0
    /// How a recorded background shorter than the copy fills it (the recipe's `backgroundExtension`).
    public var backgroundExtension: Background.Extension = .wrapped

    /// The `copy`-th augmentation of the clip named `name`.
    public init(recipe: AugmentationRecipe, clip name: String, copy: Int, backgroundCount: Int) {
        var random = SeededGenerator(seed: recipe.seed ^ Self.hash(name) ^ (UInt64(copy + 1) &* 0x9E37_79B9_7F4A_7C15))
        gainDecibels = random.uniform(recipe.gainDecibels)
        let mixes = random.unit() < recipe.backgroundShare && backgroundCount > 0
        let choice = Int(random.unit() * Double(backgroundCount))
        background = mixes ? min(choice, backgroundCount - 1) : nil
        snrDecibels = random.uniform(recipe.snrDecibels)
        let reverberates = random.unit() < recipe.reverbShare
        let seconds = random.uniform(recipe.reverbSeconds), wet = random.uniform(recipe.reverbWet)
        reverb = reverberates ? (seconds, wet) : nil
        rate = recipe.rates[min(recipe.rates.count - 1, Int(random.unit() * Double(recipe.rates.count)))]
        noiseSeed = random.next()
        leadSeconds = recipe.leadSeconds
        backgroundExtension = recipe.backgroundExtension
        // Drawn last, and always, so that a recipe without microphones draws every other choice as before.
        let colours = random.unit() < recipe.microphoneShare
        let response = MicrophoneResponse(random: &random)
        microphone = colours ? response : nil
        // Drawn after the microphone, so that a recipe where every copy has its lead draws every other choice as before.
        if random.unit() >= recipe.leadShare { leadSeconds = 0 }
    }

    /// Analysis windows (1 s, every 0.5 s) that lie wholly within the lead, from the start of the copy (none without
    /// a background).
    public var leadWindows: Int {
        background != nil && leadSeconds >= 1 ? Int(((leadSeconds - 1) / 0.5).rounded(.down)) + 1 : 0
    }

    /// A fixed perturbation (for invariance probes): only what is given changes.
    public init(gainDecibels: Double = 0, background: Int? = nil, snrDecibels: Double = 0, leadSeconds: Double = 0,
                microphone: MicrophoneResponse? = nil, rate: AugmentationRecipe.RecorderRate = .native,
                padding: (before: Double, after: Double) = (0, 0), dcOffset: Float = 0) {
        self.padding = padding
        self.dcOffset = dcOffset
        self.gainDecibels = gainDecibels
        self.background = background
        self.snrDecibels = snrDecibels
        self.leadSeconds = leadSeconds
        self.microphone = microphone
        reverb = nil
        self.rate = rate
        noiseSeed = 1
    }

    public var description: String {
        var parts = [String(format: "%+.1f dB", gainDecibels)]
        if let background {
            let lead = leadSeconds > 0 ? "after \(String(format: "%g", leadSeconds)) s of it" : "from the first sample"
            parts.append("background \(background) at \(String(format: "%.1f", snrDecibels)) dB SNR \(lead)")
        }
        if let reverb { parts.append(String(format: "reverb %.2f s wet %.2f", reverb.seconds, reverb.wet)) }
        if let microphone { parts.append(microphone.description) }
        parts.append("rate \(rate)")
        if dcOffset != 0 { parts.append(String(format: "a DC offset of %g", dcOffset)) }
        if padding.before > 0 || padding.after > 0 {
            parts.append(String(format: "%g s of digital silence before, %g s after", padding.before, padding.after))
        }
        return parts.joined(separator: ", ")
    }

    /// FNV-1a of the clip's name: a seed that does not depend on the order clips are read in.
    public static func hash(_ name: String) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return value
    }

    /// The copy: room, background, level, recorder. Returns the samples and their rate.
    public func apply(to samples: [Float], sampleRate: Int, backgrounds: [Background]) -> (samples: [Float], sampleRate: Int) {
        var signal = samples
        if let reverb { signal = Self.reverberate(signal, sampleRate: sampleRate, seconds: reverb.seconds, wet: reverb.wet) }
        if let background, backgrounds.indices.contains(background) {
            var random = SeededGenerator(seed: noiseSeed)
            let scale = Float((Self.activePower(signal) / pow(10, snrDecibels / 10)).squareRoot())
            signal = [Float](repeating: 0, count: Int((leadSeconds * Double(sampleRate)).rounded())) + signal
            let noise = backgrounds[background].samples(count: signal.count, sampleRate: sampleRate, random: &random,
                                                          extension: backgroundExtension)
            for index in signal.indices { signal[index] += scale * noise[index] }
        }
        // The recorder's microphone hears the room and the sound together.
        if let microphone { signal = microphone.apply(signal, sampleRate: sampleRate) }
        let gain = Float(pow(10, gainDecibels / 20))
        let outputRate: Int
        switch rate {
        case .native:
            outputRate = sampleRate
        case .hertz(let hertz):
            outputRate = hertz
            if hertz != sampleRate { signal = Resampler.convert(signal, from: sampleRate, to: hertz) }
        case .telephone:
            outputRate = 8_000
            signal = Resampler.convert(signal, from: sampleRate, to: 8_000, cutoffHz: 3_400)
        }
        let offset = dcOffset  // added only where the probe asks: a copy without one stays bit for bit what it was
        signal = offset == 0 ? signal.map { max(-1, min(1, $0 * gain)) } : signal.map { max(-1, min(1, $0 * gain + offset)) }
        if padding.before > 0 || padding.after > 0 {
            func zeros(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int((seconds * Double(outputRate)).rounded())) }
            signal = zeros(padding.before) + signal + zeros(padding.after)
        }
        return (signal, outputRate)
    }

    /// Mean power of the loud half of the clip's 10 ms blocks: the level of the sound, not of its pauses.
    public static func activePower(_ samples: [Float]) -> Double {
        let block = 80
        var powers: [Double] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + block)
            var sum = 0.0
            for index in start..<end { sum += Double(samples[index]) * Double(samples[index]) }
            powers.append(sum / Double(end - start))
            start = end
        }
        let loud = powers.sorted(by: >).prefix(max(1, powers.count / 2))
        return loud.reduce(0, +) / Double(max(1, loud.count))
    }

    /// Schroeder's reverberator (four parallel feedback combs, then two all-passes), the combs' feedback set for
    /// a decay of 60 dB in `seconds`; the reverberant part added at `wet` times the clip's level.
    static func reverberate(_ samples: [Float], sampleRate: Int, seconds: Double, wet: Double) -> [Float] {
        let rate = Double(sampleRate)
        let combDelays = [0.0297, 0.0371, 0.0411, 0.0437].map { max(1, Int($0 * rate)) }
        var reverberant = [Double](repeating: 0, count: samples.count)
        for delay in combDelays {
            let feedback = pow(10, -3 * Double(delay) / rate / seconds)
            var line = [Double](repeating: 0, count: delay)
            var position = 0
            for index in samples.indices {
                let out = line[position]
                line[position] = Double(samples[index]) + feedback * out
                reverberant[index] += out / 4
                position = (position + 1) % delay
            }
        }
        for (delaySeconds, gain) in [(0.005, 0.7), (0.0017, 0.7)] {
            let delay = max(1, Int(delaySeconds * rate))
            var line = [Double](repeating: 0, count: delay)
            var position = 0
            for index in reverberant.indices {
                let delayed = line[position]
                let input = reverberant[index]
                let output = -gain * input + delayed
                line[position] = input + gain * output
                reverberant[index] = output
                position = (position + 1) % delay
            }
        }
        let dry = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        let wetPower = reverberant.reduce(0.0) { $0 + $1 * $1 }
        let scale = wetPower > 0 ? wet * (dry / wetPower).squareRoot() : 0
        return samples.indices.map { samples[$0] + Float(scale * reverberant[$0]) }
    }
}
