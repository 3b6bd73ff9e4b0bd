import Foundation
import SomniqAudio
import SomniqEvaluation
import SomniqFeatures
@testable import SomniqLabelledAudio
import SomniqPipeline
import SomniqSynth
import Testing

@Suite struct AugmentationTests {
    let clip = SoundSynthesizer(sampleRate: 16_000, seed: 9).sine(frequency: 300, seconds: 3, amplitude: 0.3).enumerated()
        .map { Float($1) * Float($0 % 4_000 < 2_000 ? 1 : 0.1) }

    /// A copy over a recorded background shorter than itself: read round (the default, as every shipped model was
    /// fitted) the room repeats at the recording's length; stitched (`fit --stitch-backgrounds`) it does not. Over an 8 s
    /// lead of a one-second recording whose level swells, the lead's level against itself a second later.
    @Test func aShortRecordedBackgroundIsReadRoundOrStitched() {
        var random = SeededGenerator(seed: 21)
        let second = (0..<16_000).map { index in Float(random.gaussian() * (0.2 + sin(Double.pi * Double(index) / 16_000))) }
        let pool = [Background(name: "short room", kind: .recorded(samples: second, sampleRate: 16_000))]
        func correlationAtTheRecordingsLength(_ extending: Background.Extension) -> Double {
            var copy = ClipAugmentation(background: 0, snrDecibels: 0, leadSeconds: 8)
            copy.backgroundExtension = extending
            let lead = Array(copy.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples.prefix(8 * 16_000))
            let blocks = stride(from: 0, to: lead.count - 800 + 1, by: 800).map { start in
                lead[start..<(start + 800)].reduce(0.0) { $0 + Double($1) * Double($1) }
            }
            let mean = blocks.reduce(0, +) / Double(blocks.count)
            let centred = blocks.map { $0 - mean }
            let energy = centred.reduce(0) { $0 + $1 * $1 }
            return zip(centred, centred.dropFirst(20)).reduce(0) { $0 + $1.0 * $1.1 } / energy  // 20 blocks of 50 ms
        }
        #expect(AugmentationRecipe().backgroundExtension == .wrapped)
        let wrapped = correlationAtTheRecordingsLength(.wrapped), stitched = correlationAtTheRecordingsLength(.stitched)
        #expect(wrapped > 0.8, "read round: \(wrapped)")
        #expect(stitched < 0.5, "stitched: \(stitched)")
    }

    @Test func copiesAreDeterministicAndDiffer() {
        var recipe = AugmentationRecipe()
        recipe.copies = 6
        let pool = Background.synthesised
        let copies = (0..<recipe.copies).map { ClipAugmentation(recipe: recipe, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        let again = (0..<recipe.copies).map { ClipAugmentation(recipe: recipe, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        for (first, second) in zip(copies, again) {
            #expect(first.description == second.description)
            let a = first.apply(to: clip, sampleRate: 16_000, backgrounds: pool)
            let b = second.apply(to: clip, sampleRate: 16_000, backgrounds: pool)
            #expect(a.samples == b.samples && a.sampleRate == b.sampleRate, "the same copy twice is the same, sample for sample")
        }
        #expect(Set(copies.map(\.description)).count == copies.count, "each copy is another room")
        var reseeded = recipe
        reseeded.seed += 1
        #expect(ClipAugmentation(recipe: reseeded, clip: "snore.wav", copy: 0, backgroundCount: pool.count).description != copies[0].description)
        for copy in copies {
            #expect(recipe.gainDecibels.contains(copy.gainDecibels) && recipe.snrDecibels.contains(copy.snrDecibels))
        }
    }

    /// `fit --min-snr 10`: no copy over a background is mixed under 10 dB SNR, and the model's README says so.
    @Test func aHigherLowestSNRKeepsEveryCopyAboveIt() {
        var recipe = AugmentationRecipe()
        recipe.copies = 200
        recipe.snrDecibels = 10...recipe.snrDecibels.upperBound
        let snrs = (0..<recipe.copies).map { ClipAugmentation(recipe: recipe, clip: "snore.wav", copy: $0, backgroundCount: 3) }
            .filter { $0.background != nil }.map(\.snrDecibels)
        #expect(snrs.count > 100 && snrs.allSatisfy { (10...30).contains($0) } && snrs.contains { $0 < 12 })
        #expect(recipe.summary.contains("at 10–30 dB SNR") && AugmentationRecipe().summary.contains("at 0–30 dB SNR"))
    }

    @Test func aBackgroundIsMixedAtTheAskedSignalToNoiseRatio() {
        let pool = Background.synthesised
        for snr in [0.0, 10, 30] {
            let change = ClipAugmentation(background: 0, snrDecibels: snr)
            let mixed = change.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples
            let noise = zip(mixed, clip).map { $0 - $1 }
            let noisePower = noise.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(noise.count)
            let measured = 10 * log10(ClipAugmentation.activePower(clip) / noisePower)
            #expect(abs(measured - snr) < 0.5, "asked \(snr) dB, got \(measured) dB")
        }
    }

    @Test func aCopyOverABackgroundBeginsWithTheRoomAlone() {
        var recipe = AugmentationRecipe()
        recipe.backgroundShare = 1
        recipe.reverbShare = 0
        recipe.rates = [.native]
        recipe.gainDecibels = 0...0
        let pool = Background.synthesised
        let change = ClipAugmentation(recipe: recipe, clip: "snore.wav", copy: 0, backgroundCount: pool.count)
        #expect(change.background != nil && change.leadWindows == 7, "4 s of room hold the windows starting at 0-3 s")
        let copy = change.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples
        let lead = 4 * 16_000
        #expect(copy.count == lead + clip.count)
        func power<C: Collection>(_ values: C) -> Double where C.Element == Float {
            values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(values.count)
        }
        // The room alone first, then under the clip at the asked ratio, one room throughout.
        let under = zip(copy[lead...], clip).map { $0 - $1 }
        let measured = 10 * log10(ClipAugmentation.activePower(clip) / power(under))
        #expect(abs(measured - change.snrDecibels) < 0.5, "asked \(change.snrDecibels) dB, got \(measured) dB")
        #expect(abs(10 * log10(power(copy[..<lead]) / power(under))) < 1.5, "the lead is the room at the level it has under the clip")
        var dry = recipe
        dry.backgroundShare = 0
        let plain = ClipAugmentation(recipe: dry, clip: "snore.wav", copy: 0, backgroundCount: pool.count)
        #expect(plain.leadWindows == 0 && plain.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples.count == clip.count,
                "no room, no lead")
    }

    /// The invariance table's room probes read a clip's prediction from the clip's own windows: the one that lets
    /// the room play 4 s first drops those 4 s (it keeps one window more, the one that straddles the clip's start).
    @Test func theRoomProbeAfterALeadReadsTheClipsOwnWindows() throws {
        let path = NSTemporaryDirectory() + "somniq-probe-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {  // the writer closes the file when it goes
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, container: .wav, encoding: .float32)
            try writer.write(interleaved: clip)
        }
        let builder = FitDataBuilder(analyzer: RecordingAnalyzer(bundle: shippedBundle), map: LabelMap())
        let probes = try #require(builder.fromClips([ClipSource.Clip(path: path, label: "snoring")], probes: true).clips.first?.probes)
        let room = try #require(probes.first { $0.name == "room at 10 dB SNR" })
        let lead = try #require(probes.first { $0.name == "room at 10 dB SNR after 4 s of it" })
        let clipWindows = AnalysisGrid(sampleRate: 16_000).windowCount(frameCount: Int64(clip.count))
        #expect(room.windows.count == clipWindows && lead.windows.count == clipWindows + 1)
        let level = FeatureID.rmsDbfs.index
        for (afterLead, fromStart) in zip(lead.windows.dropFirst(), room.windows) {
            #expect(abs(afterLead[level] - fromStart[level]) < 1.5, "\(afterLead[level]) against \(fromStart[level]) dBFS")
        }
    }

    /// The padding probes: the clip as it was, between the asked seconds of digital silence, at the copy's rate.
    @Test func thePaddingProbesPutDigitalSilenceAroundTheClip() {
        let padded = ClipAugmentation(rate: .hertz(8_000), padding: (before: 1, after: 0.5))
            .apply(to: clip, sampleRate: 16_000, backgrounds: [])
        let plain = ClipAugmentation(rate: .hertz(8_000)).apply(to: clip, sampleRate: 16_000, backgrounds: [])
        #expect(padded.sampleRate == 8_000 && padded.samples.count == 8_000 + plain.samples.count + 4_000)
        #expect(padded.samples.prefix(8_000).allSatisfy { $0 == 0 } && padded.samples.suffix(4_000).allSatisfy { $0 == 0 })
        #expect(Array(padded.samples[8_000..<(8_000 + plain.samples.count)]) == plain.samples)
        let names = FitDataBuilder.invarianceProbes.map(\.0)
        #expect(names.contains("1 s of digital silence after it") && names.contains("1 s of digital silence before it"))
    }

    /// The DC probe: the clip as it was, every sample moved by the offset (clipped at full scale), and said so.
    @Test func theDCProbeAddsTheOffsetToEverySample() {
        let probe = ClipAugmentation(gainDecibels: 6, dcOffset: 0.01)
        let shifted = probe.apply(to: clip, sampleRate: 16_000, backgrounds: [])
        let plain = ClipAugmentation(gainDecibels: 6).apply(to: clip, sampleRate: 16_000, backgrounds: [])
        #expect(shifted.sampleRate == 16_000 && shifted.samples.count == plain.samples.count)
        #expect(zip(shifted.samples, plain.samples).allSatisfy { abs($0 - min(1, $1 + 0.01)) < 1e-6 })
        #expect(probe.description.contains("a DC offset of 0.01"))
        #expect(FitDataBuilder.invarianceProbes.map(\.0).contains("a DC offset of 1% of full scale"))
    }

    @Test func aRateChangeRecordsAtThatRate() {
        let telephone = ClipAugmentation(rate: .telephone).apply(to: clip, sampleRate: 16_000, backgrounds: [])
        #expect(telephone.sampleRate == 8_000 && telephone.samples.count == 24_000)
        let low = ClipAugmentation(rate: .hertz(4_000)).apply(to: clip, sampleRate: 16_000, backgrounds: [])
        #expect(low.sampleRate == 4_000 && low.samples.count == 12_000)
        let louder = ClipAugmentation(gainDecibels: 20).apply(to: clip, sampleRate: 16_000, backgrounds: [])
        #expect(louder.samples.max()! <= 1 && louder.samples.min()! >= -1, "clipped at full scale, as a recorder would")
    }

    /// `fit --microphones SHARE`: that share of the copies heard through a microphone, each copy's other choices drawn as
    /// without it (so `--microphones 0` refits a model fitted before microphones byte for byte), and said in the recipe's words.
    @Test func aShareOfCopiesIsHeardThroughAnotherMicrophone() {
        let pool = Background.synthesised
        var colouring = AugmentationRecipe()
        colouring.copies = 40
        #expect(colouring.microphoneShare == 0.25, "a quarter by default")
        colouring.microphoneShare = 0.5
        var recipe = colouring
        recipe.microphoneShare = 0
        let plain = (0..<recipe.copies).map { ClipAugmentation(recipe: recipe, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        let coloured = (0..<recipe.copies).map { ClipAugmentation(recipe: colouring, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        #expect(plain.allSatisfy { $0.microphone == nil } && !recipe.summary.contains("microphone"), "none with a share of 0")
        let heard = coloured.filter { $0.microphone != nil }.count
        #expect((12...28).contains(heard), "about half of 40 copies through a microphone, \(heard)")
        for (without, with) in zip(plain, coloured) {
            let others = with.description.replacingOccurrences(of: with.microphone.map { ", \($0)" } ?? "", with: "")
            #expect(others == without.description, "the copy's other choices unchanged: \(with)")
            let a = without.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples
            let b = with.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples
            #expect((a == b) == (with.microphone == nil), "a microphone changes the copy, and only then")
        }
        #expect(colouring.summary.contains("50% through a microphone's response"))
    }

    /// `fit --lead-share SHARE`: that share of the copies over a background hear it alone first, the others mix it in
    /// from the clip's first sample (a clip cut around its sound); every other choice is drawn as with a lead for all
    /// (so `--lead-share 1` refits a model fitted before the share byte for byte), and the recipe says so.
    @Test func aShareOfCopiesHearTheRoomFromTheClipsFirstSample() throws {
        let pool = Background.synthesised
        var always = AugmentationRecipe()
        always.copies = 40
        always.backgroundShare = 1
        always.leadShare = 1
        always.rates = [.native]
        var half = always
        half.leadShare = 0.5
        let led = (0..<always.copies).map { ClipAugmentation(recipe: always, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        let mixed = (0..<half.copies).map { ClipAugmentation(recipe: half, clip: "snore.wav", copy: $0, backgroundCount: pool.count) }
        #expect(led.allSatisfy { $0.leadSeconds == 4 && $0.leadWindows == 7 })
        let fromStart = mixed.filter { $0.leadSeconds == 0 }
        #expect((12...28).contains(fromStart.count), "about half of 40 copies without the lead, \(fromStart.count)")
        for (with, without) in zip(led, mixed) {
            #expect(with.description.replacingOccurrences(of: "after 4 s of it", with: "")
                        == without.description.replacingOccurrences(of: "after 4 s of it", with: "")
                            .replacingOccurrences(of: "from the first sample", with: ""),
                    "the copy's other choices unchanged: \(without)")
        }
        let copy = try #require(fromStart.first)
        #expect(copy.leadWindows == 0 && copy.apply(to: clip, sampleRate: 16_000, backgrounds: pool).samples.count == clip.count,
                "no lead: the copy is as long as the clip, and every window of it trains")
        #expect(!always.summary.contains("first sample") && always.summary.contains("after 4 s of the background alone"))
        #expect(half.summary.contains("50% of them after 4 s of the background alone, the others from the clip's first sample"))
    }

    /// A copy over a recorded background of one of our classes (rain) is no example, either way, of that class but its
    /// own: a cough over rain is a cough and is not "not rain". Over a background of nothing of ours, a synthesised one
    /// or a mixed bag (which only may hold a class, and mostly does not), it stays a counter-example of every other class.
    @Test func aCopyIsNoCounterExampleOfItsBackgroundsClass() throws {
        let folder = NSTemporaryDirectory() + "somniq-held-\(UUID().uuidString)/"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 3)
        let noise = synthesizer.whiteNoise(seconds: 3, levelDbfs: -25).map { Float($0) }
        for name in ["cough.wav", "rain.wav", "fan.wav", "bag__0_1.wav", "rain-2.wav"] {
            let writer = try AudioFileWriter(path: folder + name, sampleRate: 16_000, container: .wav, encoding: .float32)
            try writer.write(interleaved: name == "cough.wav" ? clip : noise)
        }
        let map = try LabelMap.parse("other\t\nother\t~crying_sobbing,speech\tbag__0_*\n")
        let pool = FitDataBuilder.backgrounds([ClipSource.Clip(path: folder + "rain.wav", label: "rain"),
                                               ClipSource.Clip(path: folder + "fan.wav", label: "other"),
                                               ClipSource.Clip(path: folder + "bag__0_1.wav", label: "other")], map: map)
        #expect(pool.map(\.heldClasses) == [[], [], [], [], [], ["rain"], [], []])
        #expect(Background.poolSummary(pool).hasPrefix("8 backgrounds in the pool") && Background.poolSummary(pool).hasSuffix("(rain 1)"))
        #expect(Background.poolSummary(Background.synthesised) == "5 backgrounds in the pool")
        var recipe = AugmentationRecipe()
        recipe.copies = 16
        recipe.backgroundShare = 1
        recipe.rates = [.native]
        let builder = FitDataBuilder(analyzer: RecordingAnalyzer(bundle: shippedBundle), map: map)
        for (path, label, own) in [("cough.wav", "cough", "cough"), ("rain-2.wav", "rain", "rain")] {
            let copies = builder.fromClips([ClipSource.Clip(path: folder + path, label: label)], augmentation: recipe, backgrounds: pool)
                .clips.filter { $0.augmented && $0.label == label }
            #expect(copies.count == recipe.copies)
            let over = Set(copies.compactMap(\.backgroundGroup))
            #expect(over.isSuperset(of: ["rain", "bag__0_1"]), "\(path): copies over rain and over the bag, \(over)")
            for copy in copies {
                let expected: Set<String> = copy.backgroundGroup == "rain" && own != "rain" ? ["rain"] : []
                #expect(copy.uncertainClasses == expected, "\(path) over \(copy.backgroundGroup ?? "a synthesised room")")
                #expect(copy.classID == own && !copy.uncertainClasses.contains(own))
            }
        }
    }

    /// `fit --teeth-grinding N --footsteps N --passing-cars N`: that many synthesised clips of each, trained as none of
    /// the classes, the same for the same recipe, each named for its sound, and listed in the recipe's words; no grinding
    /// and no footsteps by default, 24 passing cars (each at its own SNR).
    @Test func bedroomSoundsTrainAsNoneOfTheClasses() {
        let builder = FitDataBuilder(analyzer: RecordingAnalyzer(bundle: shippedBundle), map: LabelMap())
        var recipe = AugmentationRecipe()
        recipe.chimes = 1
        #expect(!recipe.summary.contains("teeth grinding") && !recipe.summary.contains("footsteps"), "none by default")
        #expect(recipe.summary.contains("24 synthesised passing cars (6–20 s of road rumble and tyre hiss swelling and fading; "
                                        + "−60 to −30 dBFS at 0–20 dB SNR)"), "\(recipe.summary)")
        recipe.teethGrinding = 2
        recipe.footsteps = 3
        recipe.passingCars = 1
        let clips = builder.bedroomSounds(recipe)
        #expect(clips.map(\.label)
                    == ["chime", "teeth grinding", "teeth grinding", "footsteps", "footsteps", "footsteps", "passing car"])
        for clip in clips {
            #expect(clip.augmented && clip.classID == nil && clip.windowClasses.allSatisfy { $0 == nil })
            #expect(clip.used.contains(true), "\(clip.path): its loud windows train")
        }
        #expect(builder.bedroomSounds(recipe).map(\.windows) == clips.map(\.windows), "the same recipe, the same clips")
        #expect(recipe.summary.contains("2 synthesised spells of teeth grinding") && recipe.summary.contains("3 synthesised walks of footsteps"))
        #expect(recipe.summary.contains("notification chimes (one to three struck notes at 400–2000 Hz; −45 to −15 dBFS at 10–40 dB SNR)"))
    }
}
