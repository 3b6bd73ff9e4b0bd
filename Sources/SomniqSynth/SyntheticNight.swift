import Foundation

/// A scripted night: a background and timed events, mixed into one signal, with its ground truth.
public struct SyntheticNight {
    /// One labelled event of the ground truth (DCASE: onset, offset, event_label).
    public struct Event: Equatable, Sendable {
        public var label: String
        public var onsetSeconds: Double
        public var offsetSeconds: Double
    }

    public let sampleRate: Int
    public private(set) var samples: [Double]
    public private(set) var events: [Event] = []
    private var synth: SoundSynthesizer

    public init(seconds: Double, sampleRate: Int, seed: UInt64, backgroundDbfs: Double = -62) {
        self.sampleRate = sampleRate
        synth = SoundSynthesizer(sampleRate: sampleRate, seed: seed)
        samples = synth.roomNoise(seconds: seconds, levelDbfs: backgroundDbfs)
    }

    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }

    /// Mixes `sound` in at `onsetSeconds`; labels it when `label` is given.
    public mutating func add(_ sound: [Double], at onsetSeconds: Double, label: String?) {
        let start = Int((onsetSeconds * Double(sampleRate)).rounded())
        for (offset, value) in sound.enumerated() where start + offset < samples.count { samples[start + offset] += value }
        if let label {
            let offset = min(durationSeconds, onsetSeconds + Double(sound.count) / Double(sampleRate))
            events.append(Event(label: label, onsetSeconds: onsetSeconds, offsetSeconds: offset))
        }
    }

    /// A snoring bout: a snore on each inhalation and a soft exhalation, one breath every 3.6–4.4 s.
    /// Labelled as one `snoring` event from the first snore's start to the last one's end.
    public mutating func addSnoringBout(from start: Double, to end: Double, levelDbfs: Double) {
        var time = start
        var lastSnoreEnd = start
        while time < end - 1.5 {
            let snoreSeconds = synth.random.uniform(1.0...1.4)
            let flutter = synth.random.uniform(35...70)
            let level = levelDbfs + synth.random.uniform(-2...2)
            add(synth.snore(seconds: snoreSeconds, flutterHz: flutter, levelDbfs: level), at: time, label: nil)
            lastSnoreEnd = time + snoreSeconds
            add(synth.breath(seconds: 1.4, levelDbfs: level - 24), at: lastSnoreEnd + 0.2, label: nil)
            time += synth.random.uniform(3.6...4.4)
        }
        events.append(Event(label: "snoring", onsetSeconds: start, offsetSeconds: lastSnoreEnd))
    }

    /// Audible breathing: inhale and exhale noise, one breath about every 4 s.
    public mutating func addBreathing(from start: Double, to end: Double, levelDbfs: Double) {
        var time = start
        var lastEnd = start
        while time < end - 3 {
            add(synth.breath(seconds: 1.5, levelDbfs: levelDbfs), at: time, label: nil)
            add(synth.breath(seconds: 1.8, levelDbfs: levelDbfs - 3), at: time + 1.7, label: nil)
            lastEnd = time + 3.5
            time += synth.random.uniform(3.8...4.3)
        }
        events.append(Event(label: "breathing", onsetSeconds: start, offsetSeconds: lastEnd))
    }

    public mutating func addCough(at time: Double, levelDbfs: Double) {
        add(synth.cough(levelDbfs: levelDbfs), at: time, label: "cough")
        add(synth.cough(levelDbfs: levelDbfs - 3), at: time + 0.45, label: "cough")
    }

    public mutating func addGasp(at time: Double, levelDbfs: Double) { add(synth.gasp(levelDbfs: levelDbfs), at: time, label: "gasp") }

    public mutating func addSpeech(at time: Double, seconds: Double, levelDbfs: Double) {
        add(synth.speech(seconds: seconds, levelDbfs: levelDbfs), at: time, label: "speech")
    }

    public mutating func addSmokeAlarm(at time: Double, seconds: Double, frequency: Double = 3150, levelDbfs: Double) {
        add(synth.smokeAlarm(seconds: seconds, frequency: frequency, levelDbfs: levelDbfs), at: time, label: "smoke_detector")
    }

    public mutating func addDoorSlam(at time: Double, levelDbfs: Double) {
        add(synth.doorSlam(levelDbfs: levelDbfs), at: time, label: "door_slam")
    }

    public mutating func addRain(at time: Double, seconds: Double, levelDbfs: Double) {
        add(synth.rain(seconds: seconds, levelDbfs: levelDbfs), at: time, label: "rain")
    }

    /// The bundled sample night: four minutes with one of each scripted event.
    public static func sample(sampleRate: Int = 16_000, seed: UInt64 = 20_261_122) -> SyntheticNight {
        var night = SyntheticNight(seconds: 240, sampleRate: sampleRate, seed: seed)
        night.addSnoringBout(from: 10, to: 70, levelDbfs: -24)
        // 70–88 s: a pause in breathing; then the gasp that ends it.
        night.addGasp(at: 88, levelDbfs: -20)
        night.addBreathing(from: 92, to: 118, levelDbfs: -40)
        night.addCough(at: 122, levelDbfs: -18)
        night.addSpeech(at: 132, seconds: 12, levelDbfs: -28)
        night.addSmokeAlarm(at: 150, seconds: 16, levelDbfs: -14)
        night.addDoorSlam(at: 172, levelDbfs: -14)
        night.addRain(at: 182, seconds: 50, levelDbfs: -34)
        return night
    }

    /// A night of obstructive snoring: bouts broken by pauses in breathing, each ended by a gasp, then a
    /// smoke alarm. Four minutes.
    public static func apnea(sampleRate: Int = 8_000, seed: UInt64 = 20_261_123) -> SyntheticNight {
        var night = SyntheticNight(seconds: 240, sampleRate: sampleRate, seed: seed)
        night.addSnoringBout(from: 5, to: 55, levelDbfs: -22)
        night.addGasp(at: 70, levelDbfs: -18)  // after a 15 s pause
        night.addSnoringBout(from: 73, to: 120, levelDbfs: -20)
        night.addGasp(at: 137, levelDbfs: -16)  // after another pause
        night.addBreathing(from: 141, to: 185, levelDbfs: -38)
        night.addSmokeAlarm(at: 200, seconds: 24, frequency: 3400, levelDbfs: -16)
        return night
    }

    /// A rainy night: rain throughout as the room's background, with snoring, a cough, a few words and a door
    /// over it. Three minutes.
    public static func rainy(sampleRate: Int = 16_000, seed: UInt64 = 20_261_124) -> SyntheticNight {
        var night = SyntheticNight(seconds: 180, sampleRate: sampleRate, seed: seed)
        night.addRain(at: 0, seconds: 180, levelDbfs: -42)
        night.addSnoringBout(from: 15, to: 80, levelDbfs: -20)
        night.addCough(at: 95, levelDbfs: -16)
        night.addSpeech(at: 110, seconds: 10, levelDbfs: -24)
        night.addDoorSlam(at: 140, levelDbfs: -12)
        return night
    }

    /// The ground truth as a DCASE table: `filename	onset	offset	event_label`, times in seconds, in onset order.
    public func dcaseLabels(fileName: String) -> String {
        var text = "filename\tonset\toffset\tevent_label\n"
        for event in events.sorted(by: { ($0.onsetSeconds, $0.label) < ($1.onsetSeconds, $1.label) }) {
            text += "\(fileName)\t\(String(format: "%.3f", event.onsetSeconds))\t\(String(format: "%.3f", event.offsetSeconds))\t\(event.label)\n"
        }
        return text
    }

    /// Samples as `Float`, clipped to [-1, 1].
    public var floatSamples: [Float] { samples.map { Float(max(-1, min(1, $0))) } }
}
