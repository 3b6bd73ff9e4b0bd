import Foundation
import Testing
@testable import SomniqSynth

/// What the development nights hold, built from synthesised clips: sleep talk as utterances of words and rain as a
/// shower, each labelled as one event whose truth spans the sound that was laid down.
@Suite struct DevNightBuilderTests {
    static let rate = 8_000

    /// Clips of one class, each `seconds` long, synthesised at the nights' rate.
    static func clips(_ classID: String, count: Int, seconds: Double,
                      _ make: (inout SoundSynthesizer) -> [Double]) -> [DevNightClip] {
        var synthesizer = SoundSynthesizer(sampleRate: rate, seed: 11)
        return (0..<count).map { index in
            DevNightClip(path: "\(classID)-\(index).wav", classID: classID, samples: make(&synthesizer).map(Float.init),
                         sampleRate: rate, nightRate: rate)
        }
    }

    static func nights(_ clips: [DevNightClip], count: Int = 6) -> [DevNight] {
        let builder = DevNightBuilder(clips: clips, backgrounds: [], sampleRate: rate, seed: 3)
        return (0..<count).map { builder.night($0) }
    }

    /// Level of `samples[start..<end]` (seconds) in dBFS.
    static func level(_ night: DevNight, from start: Double, to end: Double) -> Double {
        let slice = night.samples[Int(start * Double(rate))..<Int(end * Double(rate))]
        let power = slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)
        return 10 * log10(max(power, 1e-12))
    }

    /// A recorded room that rises by 30 dB within its four seconds (an engine starting) is a sound, not a room: it is
    /// left out, named with its spread, and no night lies on it; a steady one (noise within a decibel) is kept.
    @Test func onlySteadyRecordingsBecomeRooms() {
        var random = SeededGenerator(seed: 7)
        let count = 4 * Self.rate
        let steady = (0..<count).map { _ in Float(0.01 * random.gaussian()) }
        let starting = (0..<count).map { index in Float(0.01 * random.gaussian() * pow(10, 1.5 * min(1, Double(index) / Double(count / 2)) - 1.5)) }
        #expect(Background.levelSpreadDb(steady, sampleRate: Self.rate) < 1)
        #expect(Background.levelSpreadDb(starting, sampleRate: Self.rate) > 20)
        let rooms = [Background(name: "steady.wav", kind: .recorded(samples: steady, sampleRate: Self.rate)),
                     Background(name: "engine-starting.wav", kind: .recorded(samples: starting, sampleRate: Self.rate))]
        let coughs = Self.clips("cough", count: 10, seconds: 0.5) { $0.cough(levelDbfs: -20) }
        var builder = DevNightBuilder(clips: coughs, backgrounds: rooms, sampleRate: Self.rate, seed: 3)
        builder.minutes = 0.2...0.3
        #expect(builder.unsteadyRooms.map(\.name) == ["engine-starting.wav"])
        let used = Set((0..<40).map { builder.night($0).background })
        #expect(used.contains("steady.wav"), "\(used)")
        #expect(!used.contains("engine-starting.wav"))
    }

    /// A clip's DC offset is its recorder's: it is taken off the clip, so that a night holds no step where the clip
    /// begins and ends; the sound itself is kept as it was.
    @Test func aClipComesWithoutItsRecordersOffset() {
        let tone = (0..<Self.rate).map { Float(0.1 * sin(2 * Double.pi * 440 * Double($0) / Double(Self.rate))) }
        let clip = DevNightClip(path: "offset.wav", classID: "cough", samples: tone.map { $0 + 0.02 }, sampleRate: Self.rate,
                                nightRate: Self.rate)
        #expect(clip.samples.count == tone.count)
        let mean = clip.samples.reduce(0.0) { $0 + Double($1) } / Double(clip.samples.count)
        #expect(abs(mean) < 1e-5, "the clip's mean after: \(mean)")
        let largestChange = zip(clip.samples, tone).map { abs($0 - $1) }.max() ?? 1
        #expect(largestChange < 1e-4, "the sound differs by up to \(largestChange)")
    }

    /// The placement list names every clip laid down, where the sound is: a labelled event begins with a clip of its
    /// class, a distractor (a sound of none of ours, no event) is listed all the same, and every listed span is loud.
    @Test func everyPlacedClipIsListedWhereItSounds() {
        let coughs = Self.clips("cough", count: 30, seconds: 0.5) { $0.cough(levelDbfs: -20) }
        let others = (0..<30).map { index in
            DevNightClip(path: "dir/other-\(index).wav", classID: nil,
                         samples: (0..<Self.rate).map { Float(0.2 * sin(2 * Double.pi * 300 * Double($0) / Double(Self.rate))) },
                         sampleRate: Self.rate, nightRate: Self.rate)
        }
        for night in Self.nights(coughs + others, count: 3) {
            #expect(night.placed.map(\.onsetSeconds) == night.placed.map(\.onsetSeconds).sorted())
            #expect(night.placed.contains { $0.label.hasPrefix("other-") }, "distractors are listed, by file name")
            for event in night.events {
                #expect(night.placed.contains { $0.onsetSeconds == event.onsetSeconds && $0.label.hasPrefix(event.label) })
            }
            for clip in night.placed {
                #expect(Self.level(night, from: clip.onsetSeconds, to: min(clip.offsetSeconds, clip.onsetSeconds + 0.3)) > -40,
                        "\(clip.label) at \(clip.onsetSeconds) s")
            }
        }
    }

    @Test func sleepTalkIsAnUtteranceOfWordsLabelledAsOneEvent() {
        // Words of 0.5 s: an utterance holds one to four of them, 0.1-0.4 s apart.
        let words = Self.clips("speech", count: 40, seconds: 0.5) { $0.speech(seconds: 0.5, levelDbfs: -20) }
        let events = Self.nights(words).flatMap(\.events)
        #expect(events.count >= 10 && events.allSatisfy { $0.label == "speech" })
        let lengths = events.map { $0.offsetSeconds - $0.onsetSeconds }
        // A one-word utterance lasts a word (the clip trimmed to its sound); four words and three pauses at most 3.2 s.
        #expect(lengths.allSatisfy { $0 > 0.2 && $0 <= 4 * 0.5 + 3 * 0.4 + 0.01 }, "\(lengths)")
        #expect(lengths.contains { $0 < 0.6 }, "some utterances are a single word")
        #expect(lengths.contains { $0 > 1.5 }, "some utterances are several words")
    }

    @Test func aLongSpeechClipIsAnUtteranceOfItsOwn() {
        let sentences = Self.clips("speech", count: 20, seconds: 3) { $0.speech(seconds: 3, levelDbfs: -20) }
        let lengths = Self.nights(sentences).flatMap(\.events).map { $0.offsetSeconds - $0.onsetSeconds }
        #expect(!lengths.isEmpty)
        #expect(lengths.allSatisfy { $0 <= 3.01 }, "\(lengths)")
    }

    @Test func rainIsAShowerOfItsClipsBackToBack() throws {
        // Three one-second clips of rain make showers of 10-90 s: the clips again and again, with no gap between them.
        let rain = Self.clips("rain", count: 3, seconds: 1) { $0.rain(seconds: 1, levelDbfs: -20) }
        let nights = Self.nights(rain)
        let showers = nights.flatMap { night in night.events.map { (night, $0) } }
        #expect(!showers.isEmpty)
        for (night, shower) in showers {
            #expect(shower.label == "rain")
            let length = shower.offsetSeconds - shower.onsetSeconds
            #expect(length >= 10 && length <= 91, "a shower lasts 10-90 s, found \(length)")
            // Every half second of the shower holds rain well over the room (the nights' rooms lie at -60 to -46 dBFS,
            // rain at -42 to -32): no gap where one clip ends and the next begins.
            var start = shower.onsetSeconds
            while start + 0.5 <= shower.offsetSeconds {
                #expect(Self.level(night, from: start, to: start + 0.5) > -45, "a gap at \(start) s")
                start += 0.5
            }
            // Before the shower and after it, only the room.
            if shower.onsetSeconds > 1 {
                #expect(Self.level(night, from: shower.onsetSeconds - 1, to: shower.onsetSeconds - 0.05) < -44)
            }
        }
    }
}
