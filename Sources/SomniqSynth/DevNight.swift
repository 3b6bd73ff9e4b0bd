import Foundation
import SomniqFeatures

/// A development night: real recorded clips laid over a bedroom's background at realistic levels and paces, with
/// its ground truth. What whole-night scoring (event-based and segment-based F1, snore counts, bout coverage) runs
/// on, built only from clips the scored model never trained on.
public struct DevNight: Sendable {
    /// A labelled stretch: one sound, a cough fit, a whole snoring bout.
    public struct Event: Sendable, Equatable {
        public var label: String
        public var onsetSeconds: Double
        public var offsetSeconds: Double
    }

    /// A bout built from single-snore clips at breathing pace: its exact snore count is known.
    public struct SnoreBout: Sendable, Equatable {
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var snores: Int
    }

    public var samples: [Float]
    public var sampleRate: Int
    /// Labelled events, in time order; unlabelled distractors (sounds of none of our classes) are not listed.
    public var events: [Event]
    public var snoreBouts: [SnoreBout]
    /// Whole real snoring recordings placed in the night (their snores are not counted, only covered).
    public var snoringRecordings: [Event]
    public var background: String
    /// Every clip placed in the night, labelled with its file name, in the order placed: what sounded when, the
    /// distractors included (what a false event was made of).
    public var placed: [Event] = []
}

/// One clip the nights are built from: its class (`nil`: a sound of none of our classes, used as a distractor) and
/// its samples at the nights' rate, trimmed to the sound.
public struct DevNightClip: Sendable {
    public var path: String
    public var classID: String?
    public var samples: [Float]

    /// `samples` at `sampleRate`, resampled to `nightRate`, without the clip's own DC offset, and trimmed to where the
    /// clip is within 25 dB of its loudest 10 ms (the sound, not the silence a clip is cut with).
    ///
    /// The offset is the clip's recorder's, not the night's: pasted in as it is, it would switch on and off with the
    /// sound, a step at the event's very onset and offset that no real night has (a recorder's offset lasts the whole
    /// night) and that would mark the event's edges for any model that hears offsets.
    public init(path: String, classID: String?, samples: [Float], sampleRate: Int, nightRate: Int) {
        self.path = path
        self.classID = classID
        var resampled = sampleRate == nightRate ? samples : Resampler.convert(samples, from: sampleRate, to: nightRate)
        let mean = Float(resampled.reduce(0.0) { $0 + Double($1) } / Double(max(1, resampled.count)))
        for index in resampled.indices { resampled[index] -= mean }
        let block = max(1, nightRate / 100)
        let levels = Background.blockLevelsDb(resampled, block: block, partialLast: true)
        let loudest = levels.max() ?? -120
        let first = levels.firstIndex { $0 >= loudest - 25 } ?? 0
        let last = levels.lastIndex { $0 >= loudest - 25 } ?? 0
        self.samples = Array(resampled[(first * block)..<min(resampled.count, (last + 1) * block)])
    }
}

/// Builds development nights from a pool of clips. Deterministic: the same clips, seed and index give the same night.
public struct DevNightBuilder {
    public var sampleRate: Int
    public var minutes: ClosedRange<Double> = 5...15
    /// Single snores (short snoring clips) make bouts at breathing pace; long snoring recordings go in whole.
    public static let singleSnoreSeconds = 2.5
    public static let recordingSeconds = 6.0

    /// Loudness of each kind of sound, RMS over the sound, dBFS: a phone on the bedside table.
    public static let levels: [String: ClosedRange<Double>] = [
        "snoring": -34 ... -22, "cough": -28 ... -16, "speech": -36 ... -24, "smoke_detector": -24 ... -12,
        "crying_sobbing": -32 ... -20, "door_slam": -26 ... -14, "laughter": -32 ... -22, "rain": -42 ... -32,
        "breathing": -44 ... -34, "sneeze": -28 ... -16, "screaming": -26 ... -14, "dog_bark": -30 ... -18,
        "glass_breaking": -26 ... -14, "siren": -36 ... -24, "alarm_clock": -30 ... -18, "thunder": -34 ... -22,
        "wind": -40 ... -30, "": -38 ... -26,
    ]
    static let backgroundLevels: ClosedRange<Double> = -60 ... -46
    /// A speech clip this long or shorter is a word, followed by more words of the utterance; a longer one is a whole utterance.
    static let wordSeconds = 1.2
    /// The cross-fade between the clips of a rain shower.
    static let showerFadeSeconds = 0.05

    /// A recorded room whose level spreads more than this (`Background.levelSpreadDb`) is a sound, not a room: stretched
    /// over minutes it would rise and fall at no pace, and the analysis hears sounds in it.
    public static let steadyRoomSpreadDb = 6.0

    private var pools: [String: [DevNightClip]] = [:]
    private let backgrounds: [Background]
    /// The names of the recorded rooms left out as not steady (`steadyRoomSpreadDb`), with their spread, dB.
    public let unsteadyRooms: [(name: String, spreadDb: Double)]
    private let seed: UInt64

    /// - Parameters:
    ///   - clips: the held-out clips, at `sampleRate` (see `DevNightClip`).
    ///   - backgrounds: recorded room tones to choose from beside the synthesised ones; those that are not steady are
    ///     left out (`unsteadyRooms`).
    public init(clips: [DevNightClip], backgrounds: [Background], sampleRate: Int = 16_000, seed: UInt64) {
        self.sampleRate = sampleRate
        self.seed = seed
        var steady: [Background] = [], unsteady: [(name: String, spreadDb: Double)] = []
        for background in backgrounds {
            guard case .recorded(let samples, let rate) = background.kind else { steady.append(background); continue }
            let spread = Background.levelSpreadDb(samples, sampleRate: rate)
            if spread > Self.steadyRoomSpreadDb { unsteady.append((background.name, spread)) } else { steady.append(background) }
        }
        unsteadyRooms = unsteady
        self.backgrounds = Background.synthesised.filter { $0.kind != .mainsHum } + steady
        for clip in clips where !clip.samples.isEmpty {
            var key = clip.classID ?? ""
            if key == "snoring" {
                key = Double(clip.samples.count) / Double(sampleRate) <= Self.singleSnoreSeconds ? "snore" : "snoring recording"
                if Double(clip.samples.count) / Double(sampleRate) < Self.recordingSeconds, key != "snore" { continue }
            }
            pools[key, default: []].append(clip)
        }
    }

    /// What kinds of sound the pool can give, with how often each is drawn.
    static let kinds: [(String, Double)] = [
        ("snore", 3), ("snoring recording", 1.5), ("cough", 1.2), ("speech", 1.2), ("crying_sobbing", 1),
        ("smoke_detector", 0.7), ("door_slam", 0.7), ("laughter", 0.4), ("rain", 0.5), ("", 1),
        ("breathing", 0.4), ("sneeze", 0.4), ("screaming", 0.2), ("dog_bark", 0.3), ("glass_breaking", 0.2),
        ("siren", 0.2), ("alarm_clock", 0.3), ("thunder", 0.2), ("wind", 0.2),
    ]

    /// A household night: sounds of none of our classes alone (doors of cupboards, water, keys, engines, a street,
    /// non-verbal sounds that are not ours), one every 6-35 s over a room: what a night without an event raises.
    static let householdKinds: [(String, Double)] = [("", 1)]

    /// Night `index`; with `household`, of sounds of none of our classes only (`householdKinds`).
    public func night(_ index: Int, household: Bool = false) -> DevNight {
        var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        let seconds = random.uniform(minutes) * 60
        let count = Int(seconds * Double(sampleRate))
        let background = backgrounds[Int(random.unit() * Double(backgrounds.count)) % backgrounds.count]
        let gain = Float(SoundSynthesizer.amplitude(dbfs: random.uniform(Self.backgroundLevels)))
        var mix = background.samples(count: count, sampleRate: sampleRate, random: &random, extension: .stitched)
            .map { $0 * gain }
        var night = DevNight(samples: [], sampleRate: sampleRate, events: [], snoreBouts: [], snoringRecordings: [],
                             background: background.name)
        // Each pool is drawn from in a shuffled order, so a night uses a clip at most once until the pool runs out.
        // The pools are shuffled in the order of their names: a dictionary's own order changes from run to run, and
        // with it what every draw from `random` would be.
        var order: [String: [Int]] = [:]
        var next: [String: Int] = [:]
        for key in pools.keys.sorted() { order[key] = Array(pools[key]!.indices).shuffled(using: &random) }
        func draw(_ key: String) -> DevNightClip {
            let position = next[key, default: 0]
            next[key] = position + 1
            let pool = pools[key]!
            return pool[order[key]![position % pool.count]]
        }
        // Single snores may come round again in a long night, and a rain shower's clips within it; any other clip is
        // heard at most once a night.
        func exhausted(_ key: String) -> Bool { key != "snore" && next[key, default: 0] >= pools[key]!.count }
        /// Adds `clip` at `start`, at `levelDbfs` RMS over the clip, faded in and out over `fadeSeconds`; returns its end.
        func place(_ clip: DevNightClip, at start: Double, levelDbfs: Double, fadeSeconds: Double = 0) -> Double {
            let power = clip.samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, clip.samples.count))
            let scale = power > 0 ? Float(SoundSynthesizer.amplitude(dbfs: levelDbfs) / power.squareRoot()) : 0
            let offset = Int(start * Double(sampleRate))
            night.placed.append(.init(label: (clip.path as NSString).lastPathComponent, onsetSeconds: start,
                                      offsetSeconds: min(seconds, start + Double(clip.samples.count) / Double(sampleRate))))
            let fade = min(clip.samples.count / 2, Int(fadeSeconds * Double(sampleRate)))
            for (position, value) in clip.samples.enumerated() where offset + position < count {
                let edge = min(position, clip.samples.count - 1 - position)
                let ramp: Float = edge < fade ? Float(edge) / Float(fade) : 1
                mix[offset + position] = max(-1, min(1, mix[offset + position] + value * scale * ramp))
            }
            return start + Double(clip.samples.count) / Double(sampleRate)
        }
        var time = random.uniform(3...15)
        while time < seconds - 20 {
            let available = (household ? Self.householdKinds : Self.kinds).filter { pools[$0.0] != nil && !exhausted($0.0) }
            let totalWeight = available.reduce(0) { $0 + $1.1 }
            guard totalWeight > 0 else { break }
            var pick = random.unit() * totalWeight
            var kind = available[0].0
            for (name, weight) in available {
                pick -= weight
                if pick < 0 { kind = name; break }
            }
            let end: Double
            switch kind {
            case "snore":
                let period = random.uniform(3.0...5.0)
                let level = random.uniform(Self.levels["snoring"]!)
                let snores = min(Int(random.uniform(6...20)), Int((seconds - 10 - time) / period))
                guard snores >= 3 else { time = seconds; continue }
                var onset = time, last = time
                for snore in 0..<snores {
                    let start = time + Double(snore) * period + random.uniform(-0.25...0.25)
                    if snore == 0 { onset = start }
                    last = place(draw("snore"), at: max(0, start), levelDbfs: level + random.uniform(-2...2))
                }
                night.events.append(.init(label: "snoring", onsetSeconds: onset, offsetSeconds: last))
                night.snoreBouts.append(.init(onsetSeconds: onset, offsetSeconds: last, snores: snores))
                end = last
            case "cough":
                // A fit of one to three coughs, labelled as one coughing event.
                var last = time
                for _ in 0..<Int(random.uniform(1...3.99)) where !exhausted("cough") {
                    last = place(draw("cough"), at: last == time ? time : last + random.uniform(0.3...0.9),
                                 levelDbfs: random.uniform(Self.levels["cough"]!))
                }
                night.events.append(.init(label: "cough", onsetSeconds: time, offsetSeconds: last))
                end = last
            case "speech":
                // Talking in one's sleep: an utterance of one to four words (a clip of a second or less is a word or
                // a fragment), 0.1-0.4 s apart, labelled as one speech event. A longer clip is an utterance itself.
                let level = random.uniform(Self.levels["speech"]!)
                var words = Int(random.uniform(1...4.99))
                var clip = draw("speech")
                var last = place(clip, at: time, levelDbfs: level + random.uniform(-2...2))
                while words > 1, Double(clip.samples.count) <= Self.wordSeconds * Double(sampleRate), !exhausted("speech") {
                    clip = draw("speech")
                    last = place(clip, at: last + random.uniform(0.1...0.4), levelDbfs: level + random.uniform(-2...2))
                    words -= 1
                }
                night.events.append(.init(label: "speech", onsetSeconds: time, offsetSeconds: min(last, seconds)))
                end = last
            case "rain":
                // A shower of 20-90 s: the fold's rain clips back to back (again from the first when they run out),
                // each faded over 50 ms into the next, at one level; labelled as one rain event.
                let length = min(random.uniform(20...90), seconds - 10 - time)
                guard length >= 10 else { time = seconds; continue }
                let level = random.uniform(Self.levels["rain"]!)
                var last = time
                while last - time < length {
                    last = place(draw("rain"), at: last == time ? time : last - Self.showerFadeSeconds,
                                 levelDbfs: level + random.uniform(-1...1), fadeSeconds: Self.showerFadeSeconds)
                }
                night.events.append(.init(label: "rain", onsetSeconds: time, offsetSeconds: min(last, seconds)))
                end = last
            default:
                let clip = draw(kind)
                let label = kind == "snoring recording" ? "snoring" : kind
                end = place(clip, at: time, levelDbfs: random.uniform(Self.levels[label] ?? Self.levels[""]!))
                if !label.isEmpty { night.events.append(.init(label: label, onsetSeconds: time, offsetSeconds: min(end, seconds))) }
                if kind == "snoring recording" {
                    night.snoringRecordings.append(.init(label: (clip.path as NSString).lastPathComponent, onsetSeconds: time,
                                                         offsetSeconds: min(end, seconds)))
                }
            }
            time = end + random.uniform(6...35)
        }
        night.samples = mix
        return night
    }
}
