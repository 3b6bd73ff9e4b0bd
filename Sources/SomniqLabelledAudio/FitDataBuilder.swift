import SomniqPipeline
import Foundation
import SomniqAudio
import SomniqEvaluation
import SomniqFeatures
import SomniqFit
import SomniqModel
import SomniqStore
import SomniqSynth

/// Builds the fitter's training data by analysing labelled audio.
public struct FitDataBuilder {
    public let analyzer: RecordingAnalyzer
    public let map: LabelMap

    public init(analyzer: RecordingAnalyzer, map: LabelMap) {
        self.analyzer = analyzer
        self.map = map
    }

    func windows(_ data: RecordingData) -> [[Float]] {
        let count = data.featureIDs.count
        return (0..<data.windowCount).map { Array(data.features[($0 * count)..<(($0 + 1) * count)]) }
    }

    /// Clips with one label each; only their loud windows train. Clips the map excludes are skipped.
    ///
    /// With an `augmentation` recipe, each clip is also heard in `copies` other bedrooms (`ClipAugmentation`): the
    /// copies train beside it, in its cross-validation group, and are never scored. With `probes`, each clip also
    /// gets the perturbed versions `invarianceProbes` lists, scored only, to measure whether predictions survive
    /// another rate, level or background.
    public func fromClips(_ clips: [ClipSource.Clip], augmentation: AugmentationRecipe = AugmentationRecipe.none,
                          backgrounds: [Background] = [], probes: Bool = false, progress: (Int) -> Void = { _ in },
                          failure: (AudioFileError) -> Void = { _ in }) -> FitDataset {
        var result: [FitDataset.Clip] = []
        for (number, clip) in clips.enumerated() {
            progress(number)
            let classID: String?
            var uncertain: Set<String> = []
            switch map.target(for: clip.label, detail: clip.detail, path: clip.path) {
            case .excluded: continue
            case .none: classID = nil
            case .classes(let classes): classID = classes.first
            case .mixed(let classes):
                classID = nil
                uncertain = Set(classes)
            }
            do {
                let audio = try AudioFileReader.readMono(clip.path)
                let group = clip.resolvedGroup
                let rows = windows(of: audio.samples, sampleRate: audio.sampleRate)
                let used = TopClass.loudWindows(levels: rows.map { $0[FeatureID.rmsDbfs.index] })
                var original = FitDataset.Clip(path: clip.path, label: clip.label, classID: classID, group: group, windows: rows,
                                               windowClasses: rows.map { _ in classID }, used: used, source: clip.source)
                original.detail = clip.detail
                original.uncertainClasses = uncertain
                if probes {
                    original.probes = Self.invarianceProbes.map { name, change in
                        let changed = change.apply(to: audio.samples, sampleRate: audio.sampleRate, backgrounds: Background.synthesised)
                        let rows = windows(of: changed.samples, sampleRate: changed.sampleRate)
                        // The room alone before the clip is not the clip: its prediction is read from the clip's windows.
                        return .init(name: name, windows: Array(rows[min(change.leadWindows, rows.count)...]))
                    }
                }
                result.append(original)
                result += copies(of: audio.samples, sampleRate: audio.sampleRate, of: original, augmentation: augmentation,
                                 backgrounds: backgrounds)
            } catch {
                failure(error)
            }
        }
        if augmentation.copies > 0 { result += steadyBackgrounds(augmentation) + bedroomSounds(augmentation) }
        return FitDataset(clips: result)
    }

    /// `clip` (whose audio is `samples`) heard in `augmentation.copies` other bedrooms (`ClipAugmentation`): copies that
    /// train in its group and are never scored.
    func copies(of samples: [Float], sampleRate: Int, of clip: FitDataset.Clip, augmentation: AugmentationRecipe,
                backgrounds: [Background]) -> [FitDataset.Clip] {
        let name = (clip.path as NSString).lastPathComponent
        let classBand = analyzer.bundle.classifier.classes.first { $0.id == clip.classID }?.bandHz
        return (0..<augmentation.copies).map { copy in
            var change = ClipAugmentation(recipe: augmentation, clip: name, copy: copy, backgroundCount: backgrounds.count)
            // Never over a background from the clip's own recording, nor through a recorder that cannot hear the
            // class (a smoke alarm's tone at 4 kHz): such a copy would teach the class as what is left without it.
            if let index = change.background, backgrounds[index].group == clip.group { change.background = nil }
            if let band = classBand, !change.rate.hears(hertz: band) { change.rate = .native }
            let changed = change.apply(to: samples, sampleRate: sampleRate, backgrounds: backgrounds)
            let copyRows = windows(of: changed.samples, sampleRate: changed.sampleRate)
            // The background alone before the clip trains nothing; the clip's loud windows are found after it.
            let lead = min(change.leadWindows, copyRows.count)
            let sound = copyRows[lead...]
            let copyUsed = [Bool](repeating: false, count: lead)
                + (sound.count == clip.used.count
                    ? clip.used : TopClass.loudWindows(levels: sound.map { $0[FeatureID.rmsDbfs.index] }))
            var augmented = FitDataset.Clip(
                path: clip.path, label: clip.label, classID: clip.classID, group: clip.group, windows: copyRows,
                windowClasses: copyRows.indices.map { $0 < lead ? nil : clip.classID }, used: copyUsed, source: clip.source)
            augmented.detail = clip.detail
            augmented.augmented = true
            // A recorded background of one of our classes (rain) is that sound still, under the clip: over it, the copy
            // is its clip's class and no counter-example of the background's.
            let held = change.background.map { backgrounds[$0].heldClasses } ?? []
            augmented.uncertainClasses = clip.uncertainClasses.union(held.subtracting([clip.classID].compactMap { $0 }))
            augmented.backgroundGroup = change.background.flatMap { backgrounds[$0].group }
            augmented.backgroundSource = change.background.flatMap { backgrounds[$0].source }
            return augmented
        }
    }

    /// Steady backgrounds alone, as examples of none of our sounds (a fridge's hum is not a snore): `steadyBackgrounds`
    /// clips of each synthesised background, 3 s at 16 kHz, at −65 to −25 dBFS. They train, and are never scored.
    func steadyBackgrounds(_ recipe: AugmentationRecipe) -> [FitDataset.Clip] {
        var clips: [FitDataset.Clip] = []
        for background in Background.synthesised {
            for index in 0..<recipe.steadyBackgrounds {
                var random = SeededGenerator(seed: recipe.seed ^ ClipAugmentation.hash(background.name) ^ UInt64(index + 1))
                let level = Float(pow(10, random.uniform(-65 ... -25) / 20))
                let samples = background.samples(count: 48_000, sampleRate: 16_000, random: &random).map { $0 * level }
                let rows = windows(of: samples, sampleRate: 16_000)
                var clip = FitDataset.Clip(path: "synthesised \(background.name) \(index + 1)", label: "steady background",
                                           classID: nil, group: "synthesised \(background.name) \(index + 1)", windows: rows,
                                           windowClasses: rows.map { _ in nil }, used: rows.map { _ in true })
                clip.augmented = true
                clips.append(clip)
            }
        }
        return clips
    }

    /// Synthesised bedroom sounds, as examples of none of our sounds (a phone's ding is neither a sob nor speech, teeth
    /// grinding is not a cough, footsteps are not snoring, nor is a passing car): `recipe.count(of:)` clips of each
    /// `BedroomSound`, at its training levels and signal-to-noise ratios after 1 s of one of the synthesised backgrounds,
    /// 16 kHz. Their loud windows train; they are never scored.
    func bedroomSounds(_ recipe: AugmentationRecipe) -> [FitDataset.Clip] {
        BedroomSound.allCases.flatMap { sound in
            (0..<recipe.count(of: sound)).map { index in
                var random = SeededGenerator(seed: recipe.seed ^ ClipAugmentation.hash(sound.name) ^ UInt64(index + 1))
                var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: random.next())
                let level = random.uniform(sound.trainingLevels)
                let heard = sound.make(with: &synthesizer, levelDbfs: level)
                let background = Background.synthesised[index % Background.synthesised.count]
                let roomGain = Float(SoundSynthesizer.amplitude(dbfs: level - random.uniform(sound.trainingSNR)))
                var samples = background.samples(count: 16_000 + heard.count + 8_000, sampleRate: 16_000, random: &random)
                    .map { $0 * roomGain }
                for (offset, sample) in heard.enumerated() { samples[16_000 + offset] += Float(sample) }
                let rows = windows(of: samples, sampleRate: 16_000)
                let name = "synthesised \(sound.name) \(index + 1)"
                var clip = FitDataset.Clip(path: name, label: sound.name, classID: nil, group: name, windows: rows,
                                           windowClasses: rows.map { _ in nil },
                                           used: TopClass.loudWindows(levels: rows.map { $0[FeatureID.rmsDbfs.index] }))
                clip.augmented = true
                return clip
            }
        }
    }

    /// The perturbations of the invariance table: other recorder rates, ±10 dB, a synthesised room at 10 dB SNR,
    /// both from the clip's first sample (as the probe) and as a night hears it, after 4 s of the room alone
    /// (the clip's prediction read from its own windows), a phone's microphone (`MicrophoneResponse.phone`), and
    /// digital silence after or before the clip, as clip collections pad their clips and editors cut them, and a
    /// recorder's DC offset.
    public static let invarianceProbes: [(String, ClipAugmentation)] = [
        ("8 kHz", ClipAugmentation(rate: .hertz(8_000))), ("16 kHz", ClipAugmentation(rate: .hertz(16_000))),
        ("44.1 kHz", ClipAugmentation(rate: .hertz(44_100))), ("48 kHz", ClipAugmentation(rate: .hertz(48_000))),
        ("-10 dB", ClipAugmentation(gainDecibels: -10)), ("+10 dB", ClipAugmentation(gainDecibels: 10)),
        ("room at 10 dB SNR", ClipAugmentation(background: 2, snrDecibels: 10)),
        ("room at 10 dB SNR after 4 s of it", ClipAugmentation(background: 2, snrDecibels: 10, leadSeconds: 4)),
        ("another microphone", ClipAugmentation(microphone: .phone)),
        ("1 s of digital silence after it", ClipAugmentation(padding: (before: 0, after: 1))),
        ("1 s of digital silence before it", ClipAugmentation(padding: (before: 1, after: 0))),
        ("a DC offset of 1% of full scale", ClipAugmentation(dcOffset: 0.01)),
    ]

    /// The feature rows of audio held in memory.
    func windows(of samples: [Float], sampleRate: Int) -> [[Float]] {
        let analysis = analyzer.analyze(samples: samples, sampleRate: sampleRate)
        let count = FeatureID.count
        return (0..<analysis.windowCount).map { Array(analysis.features[($0 * count)..<(($0 + 1) * count)]) }
    }

    /// Recorded backgrounds to mix under training clips: each clip's samples (at most `seconds` of it), with its group,
    /// source and the classes its label holds (by `map`). A mixed bag's classes are not held: most of a bag is none of
    /// them, and copies over it that learnt nothing of them cost crying and speech their precision
    /// (docs/classifier-history.md, "Rain under a cough"). The synthesised ones (`Background.synthesised`) come first.
    public static func backgrounds(_ clips: [ClipSource.Clip], map: LabelMap, seconds: Double = 30,
                                   failure: (AudioFileError) -> Void = { _ in }) -> [Background] {
        Background.synthesised + clips.compactMap { clip -> Background? in
            let held: Set<String>
            switch map.target(for: clip.label, detail: clip.detail, path: clip.path) {
            case .classes(let classes): held = Set(classes).subtracting([TopClass.other])
            case .mixed, .none, .excluded: held = []
            }
            do throws(AudioFileError) {
                let audio = try AudioFileReader.readMono(clip.path)
                let limit = min(audio.samples.count, Int(seconds * Double(audio.sampleRate)))
                return Background(name: (clip.path as NSString).lastPathComponent, group: clip.resolvedGroup,
                                  source: clip.source, kind: .recorded(samples: Array(audio.samples[0..<limit]), sampleRate: audio.sampleRate),
                                  heldClasses: held)
            } catch {
                failure(error)
                return nil
            }
        }
    }

    /// Recordings with labelled events: a window takes the class of an event it holds (`windowHolds`), trains nothing
    /// where it only touches one, and is a negative otherwise. Each recording is its own group.
    public func fromEvents(files: [String], events: [SoundEvent], progress: (Int) -> Void = { _ in },
                           failure: (AudioFileError) -> Void = { _ in }) -> FitDataset {
        var result: [FitDataset.Clip] = []
        for (number, file) in files.enumerated() {
            progress(number)
            let name = (file as NSString).lastPathComponent
            let fileEvents = events.filter { $0.file == name }
            do {
                let data = try analyzer.analyze(path: file, explicitStart: Date(timeIntervalSince1970: 0))
                let rows = windows(data)
                var classes: [String?] = []
                var used: [Bool] = []
                var eventOfWindow: [Int] = []
                for window in rows.indices {
                    let start = AnalysisGrid.windowStartSeconds(window)
                    let end = min(data.durationSeconds, start + AnalysisGrid.windowSeconds)
                    let coveringIndex = fileEvents.firstIndex { Self.windowHolds($0, start: start, end: end) }
                    let covering = coveringIndex.map { fileEvents[$0] }
                    eventOfWindow.append(coveringIndex ?? -1)
                    if covering == nil, fileEvents.contains(where: { min(end, $0.offset) > max(start, $0.onset) }) {
                        // Part of a sound, too little to say it is the sound: neither an example of it nor of none.
                        classes.append(nil)
                        used.append(false)
                        continue
                    }
                    switch covering.map({ map.target(for: $0.label) }) {
                    // A window of a mixed bag's event trains nothing: which of the bag's classes it holds is not known,
                    // and a window carries one class or none.
                    case .excluded?, .mixed?:
                        classes.append(nil)
                        used.append(false)
                    case .classes(let mapped)?:
                        classes.append(mapped.first)
                        used.append(true)
                    case .none?, nil:
                        classes.append(nil)
                        used.append(true)
                    }
                }
                var clip = FitDataset.Clip(path: file, label: name, classID: nil, group: name, windows: rows,
                                           windowClasses: classes, used: used)
                clip.eventLabelled = true
                clip.windowEvents = eventOfWindow
                result.append(clip)
            } catch {
                failure(error)
            }
        }
        return FitDataset(clips: result)
    }

    /// Whether the window from `start` to `end` s holds `event`: the event fills at least half of the window, or at
    /// least half of the event lies within it. A cough of 0.35 s fills no second half, yet a window hears it whole;
    /// an event of no length counts where it falls.
    static func windowHolds(_ event: SoundEvent, start: Double, end: Double) -> Bool {
        let overlap = min(end, event.offset) - max(start, event.onset)
        let length = event.offset - event.onset
        guard overlap > 0 || (length <= 0 && overlap == 0) else { return false }
        return overlap >= 0.5 * min(end - start, length)
    }
}
