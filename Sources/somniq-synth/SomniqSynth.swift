import ArgumentParser
import Foundation
import SomniqAudio
import SomniqSynth

@main
struct SomniqSynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "somniq-synth",
        abstract: "Synthesise deterministic test audio: sample nights with ground truth, and analytic test signals.",
        subcommands: [NightCommand.self, DevNightsCommand.self, SignalCommand.self, RoomCommand.self, NoiseCommand.self,
                      BedroomSoundsCommand.self, MixCommand.self, BadInputsCommand.self])
}

/// Container and encoding options shared by the subcommands.
struct AudioFormatOptions: ParsableArguments {
    @Option(help: "Sample rate, Hz.") var sampleRate = 16_000
    @Option(help: "Container: wav, caf, flac or aiff.") var container: AudioFileWriter.Container = .wav
    @Option(help: "Encoding: pcm16, pcm24, pcm32, float32, float64, or alac16 (Apple Lossless, in a CAF only).")
    var encoding: AudioFileWriter.Encoding = .pcm16
    @Option(help: "Channels; the mono signal is copied to each.") var channels = 1
    @Option(help: "Seed of the random generator.") var seed: UInt64 = 20_261_122

    func write(_ samples: [Float], to path: String) throws {
        try Self.write(samples, to: path, sampleRate: sampleRate, channels: channels, container: container, encoding: encoding)
    }

    static func write(_ samples: [Float], to path: String, sampleRate: Int, channels: Int = 1,
                      container: AudioFileWriter.Container = .wav, encoding: AudioFileWriter.Encoding = .pcm16) throws {
        let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, channelCount: channels,
                                         container: container, encoding: encoding)
        let chunk = 65_536
        var start = 0
        while start < samples.count {
            let slice = samples[start..<min(samples.count, start + chunk)]
            var interleaved = [Float]()
            interleaved.reserveCapacity(slice.count * channels)
            for sample in slice { for _ in 0..<channels { interleaved.append(sample) } }
            try writer.write(interleaved: interleaved)
            start += chunk
        }
    }
}

extension AudioFileWriter.Container: ExpressibleByArgument {}
extension AudioFileWriter.Encoding: ExpressibleByArgument {}

struct NightCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "night",
        abstract: "A scripted night of scripted events over room noise, with DCASE ground truth.")

    enum Scene: String, ExpressibleByArgument, CaseIterable { case sample, apnea, rainy }

    @OptionGroup var format: AudioFormatOptions
    @Option(help: "sample (one of each event), apnea (snoring, pauses and gasps, an alarm) or rainy (rain throughout).")
    var scene: Scene = .sample
    @Option(help: "Audio file to write.") var output: String
    @Option(help: "Ground-truth TSV to write (DCASE: filename, onset, offset, event_label).") var labels: String

    func run() throws {
        let night: SyntheticNight = switch scene {
        case .sample: .sample(sampleRate: format.sampleRate, seed: format.seed)
        case .apnea: .apnea(sampleRate: format.sampleRate, seed: format.seed)
        case .rainy: .rainy(sampleRate: format.sampleRate, seed: format.seed)
        }
        try format.write(night.floatSamples, to: output)
        try writeText(night.dcaseLabels(fileName: (output as NSString).lastPathComponent), to: labels)
    }
}

struct SignalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "An analytic test signal: a sine, white noise, digital silence, or one synthetic sound.")

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case sine, noise, silence, snore, breath, cough, gasp, speech, alarm, door, rain, room
    }

    @OptionGroup var format: AudioFormatOptions
    @Argument(help: "One of: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).") var kind: Kind
    @Option(help: "Audio file to write.") var output: String
    @Option(help: "Length, seconds.") var seconds = 2.0
    @Option(help: "Sine frequency, Hz.") var frequency = 1000.0
    @Option(help: "Level, dBFS RMS (a sine's amplitude is set from it too).") var level = -20.0

    func run() throws {
        var synth = SoundSynthesizer(sampleRate: format.sampleRate, seed: format.seed)
        let samples: [Double] = switch kind {
        case .sine: synth.sine(frequency: frequency, seconds: seconds, amplitude: SoundSynthesizer.amplitude(dbfs: level + 3.0103))
        case .noise: synth.whiteNoise(seconds: seconds, levelDbfs: level)
        case .silence: [Double](repeating: 0, count: Int((seconds * Double(format.sampleRate)).rounded()))
        case .snore: synth.snore(seconds: seconds, flutterHz: 50, levelDbfs: level)
        case .breath: synth.breath(seconds: seconds, levelDbfs: level)
        case .cough: synth.cough(levelDbfs: level)
        case .gasp: synth.gasp(levelDbfs: level)
        case .speech: synth.speech(seconds: seconds, levelDbfs: level)
        case .alarm: synth.smokeAlarm(seconds: seconds, levelDbfs: level)
        case .door: synth.doorSlam(levelDbfs: level)
        case .rain: synth.rain(seconds: seconds, levelDbfs: level)
        case .room: synth.roomNoise(seconds: seconds, levelDbfs: level)
        }
        try format.write(samples.map { Float(max(-1, min(1, $0))) }, to: output)
    }
}

struct BadInputsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bad-inputs",
        abstract: "Write the bad-input fixtures: each file is broken in one documented way.")

    @Option(help: "Folder to write them to.") var outputDir: String

    func run() throws {
        try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        func path(_ name: String) -> String { (outputDir as NSString).appendingPathComponent(name) }
        func write(_ name: String, _ data: Data) throws { try data.write(to: URL(fileURLWithPath: path(name))) }
        let tone = SoundSynthesizer(sampleRate: 8000, seed: 1).sine(frequency: 440, seconds: 2, amplitude: 0.3).map(Float.init)

        // A sound file whose bytes are then cut or edited.
        let scratch = path(".scratch.wav")
        try AudioFileWriter(path: scratch, sampleRate: 8000).write(interleaved: tone)
        let wav = try Data(contentsOf: URL(fileURLWithPath: scratch))
        try FileManager.default.removeItem(atPath: scratch)

        try write("zero-length.wav", Data())
        try write("header-only.wav", wav.prefix(44))
        try write("truncated.wav", wav.prefix(44 + (wav.count - 44) / 3))
        try write("not-audio.wav", Data("These are my sleep notes, not a recording.\n".utf8))
        var lying = wav
        let sizeField = lying.range(of: Data("data".utf8))!.upperBound
        withUnsafeBytes(of: UInt32(wav.count * 8).littleEndian) { lying.replaceSubrange(sizeField..<(sizeField + 4), with: $0) }
        try write("lying-header.wav", lying)
        try AudioFileWriter(path: path("rate-1hz.wav"), sampleRate: 1).write(interleaved: Array(tone.prefix(64)))
        var poisoned = tone
        poisoned[12_000] = .nan
        try AudioFileWriter(path: path("nan-samples.wav"), sampleRate: 8000, encoding: .float32).write(interleaved: poisoned)
        poisoned[12_000] = tone[12_000]
        poisoned[4_000] = .infinity
        try AudioFileWriter(path: path("inf-samples.caf"), sampleRate: 8000, container: .caf, encoding: .float32)
            .write(interleaved: poisoned)
    }
}

struct RoomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "A long quiet room (fan and road noise), or a recorder's hiss alone, written in chunks: any length in constant memory.")

    enum Kind: String, ExpressibleByArgument, CaseIterable { case room, hiss }

    @OptionGroup var format: AudioFormatOptions
    @Option(help: "room (a fan and road noise, passing cars) or hiss (white noise: a recorder's dither at -94 dBFS, its hiss above).")
    var kind = Kind.room
    @Option(help: "Length, hours.") var hours = 8.0
    @Option(help: "Level, dBFS RMS.") var level = -55.0
    @Option(help: "Audio file to write.") var output: String

    func run() throws {
        var room = QuietRoom(sampleRate: format.sampleRate, seed: format.seed, levelDbfs: level)
        var synth = SoundSynthesizer(sampleRate: format.sampleRate, seed: format.seed)
        let writer = try AudioFileWriter(path: output, sampleRate: format.sampleRate, channelCount: format.channels,
                                         container: format.container, encoding: format.encoding)
        var remaining = Int(hours * 3600 * Double(format.sampleRate))
        while remaining > 0 {
            let length = min(remaining, 10 * format.sampleRate)
            let chunk = switch kind {
            case .room: room.next(length)
            case .hiss: synth.whiteNoise(seconds: Double(length) / Double(format.sampleRate), levelDbfs: level).map(Float.init)
            }
            try writer.write(interleaved: format.channels == 1 ? chunk : chunk.flatMap { Array(repeating: $0, count: format.channels) })
            remaining -= chunk.count
        }
    }
}

struct NoiseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noise",
        abstract: "A steady background alone (brown or pink noise, a mains hum, a fan with road noise): nothing to alert on.")

    @OptionGroup var format: AudioFormatOptions
    @Option(help: "brown, pink, hum, fan or hiss.") var kind: String
    @Option(help: "Length, minutes.") var minutes = 10.0
    @Option(help: "Level, dBFS RMS.") var level = -55.0
    @Option(help: "Audio file to write.") var output: String

    func run() throws {
        guard let chosen = Background.synthesisedKinds[kind] else {
            throw ValidationError("--kind is one of \(Background.synthesisedKinds.keys.sorted().joined(separator: ", "))")
        }
        var random = SeededGenerator(seed: format.seed)
        let count = Int(minutes * 60 * Double(format.sampleRate))
        let amplitude = Float(SoundSynthesizer.amplitude(dbfs: level))
        let samples = Background(name: kind, kind: chosen).samples(count: count, sampleRate: format.sampleRate, random: &random)
            .map { $0 * amplitude }
        let writer = try AudioFileWriter(path: output, sampleRate: format.sampleRate, channelCount: format.channels,
                                         container: format.container, encoding: format.encoding)
        try writer.write(interleaved: format.channels == 1 ? samples : samples.flatMap { Array(repeating: $0, count: format.channels) })
    }
}

struct MixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mix",
        abstract: "A recording over a synthesised room at a given SNR, the room there alone for --lead seconds first (as a night hears a sound).",
        discussion: "The SNR is the recording's level over its loud part (windows within 10 dB of its loudest) against the room's. Written at the recording's own rate, as 32-bit float WAV.")

    @Argument(help: "The recording (any format libsndfile reads).") var input: String
    @Option(help: "brown, pink, hum, fan or hiss.") var room = "fan"
    @Option(help: "Signal-to-noise ratio, dB.") var snr = 10.0
    @Option(help: "Seconds of the room alone before the recording.") var lead = 4.0
    @Option(help: "Seed of the random generator.") var seed: UInt64 = 20_261_122
    @Option(help: "Audio file to write.") var output: String

    func run() throws {
        guard let chosen = Background.synthesisedKinds[room] else {
            throw ValidationError("--room is one of \(Background.synthesisedKinds.keys.sorted().joined(separator: ", "))")
        }
        let audio = try AudioFileReader.readMono(input)
        let leadCount = Int(lead * Double(audio.sampleRate))
        var random = SeededGenerator(seed: seed)
        let background = Background(name: room, kind: chosen).samples(count: leadCount + audio.samples.count, sampleRate: audio.sampleRate,
                                                                       random: &random)
        let loud = Self.loudPower(audio.samples, sampleRate: audio.sampleRate)
        let roomPower = background.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, background.count))
        let gain = roomPower > 0 ? Float((loud / pow(10, snr / 10) / roomPower).squareRoot()) : 0
        var mixed = background.map { $0 * gain }
        for (index, value) in audio.samples.enumerated() { mixed[leadCount + index] += value }
        try AudioFormatOptions.write(mixed.map { max(-1, min(1, $0)) }, to: output, sampleRate: audio.sampleRate, encoding: .float32)
    }

    /// Mean power of the half-second blocks within 10 dB of the loudest.
    static func loudPower(_ samples: [Float], sampleRate: Int) -> Double {
        let block = max(1, sampleRate / 2)
        let powers = stride(from: 0, to: samples.count, by: block).map { start -> Double in
            let slice = samples[start..<min(samples.count, start + block)]
            return slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)
        }
        guard let loudest = powers.max(), loudest > 0 else { return 0 }
        let loud = powers.filter { $0 >= loudest / 10 }
        return loud.reduce(0, +) / Double(loud.count)
    }
}

struct BedroomSoundsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bedroom-sounds",
        abstract: "Bedroom sounds of none of the classes in a quiet room (a phone's ding, teeth grinding, footsteps, a passing car): "
            + "nothing to alert on.",
        discussion: "One --sound (SoundSynthesizer.chime: one to three struck notes at 400-2000 Hz; .teethGrinding: runs of "
            + "stick-slip clicks or chattering taps; .footsteps: 4-10 heel strikes; .passingCar: 6-20 s of road rumble "
            + "swelling and fading) every --every seconds, each a new one, "
            + "over a quiet room (fan and road noise) at --room-level. 'chimes' is the same command.",
        aliases: ["chimes"])

    @OptionGroup var format: AudioFormatOptions
    @Option(help: "Which sound.") var sound = BedroomSound.chime
    @Option(help: "Length, minutes.") var minutes = 3.0
    @Option(help: "Seconds from one sound to the next.") var every = 15.0
    @Option(help: "Level of each sound, dBFS RMS over the sound.") var level = -30.0
    @Option(help: "Level of the room, dBFS RMS.") var roomLevel = -55.0
    @Option(help: "Audio file to write.") var output: String

    func run() throws {
        guard every > 0, minutes > 0 else { throw ValidationError("--every and --minutes must be positive") }
        var room = SyntheticNight(seconds: minutes * 60, sampleRate: format.sampleRate, seed: format.seed,
                                  backgroundDbfs: roomLevel)
        var synthesizer = SoundSynthesizer(sampleRate: format.sampleRate, seed: format.seed &+ 1)
        for start in stride(from: every / 2, to: minutes * 60, by: every) {
            room.add(sound.make(with: &synthesizer, levelDbfs: level), at: start, label: nil)
        }
        try format.write(room.samples.map(Float.init), to: output)
    }
}

extension BedroomSound: ExpressibleByArgument {}

struct DevNightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-nights",
        abstract: "Assemble development nights (5-15 min) from labelled clips, with DCASE ground truth and snore counts.",
        discussion: """
            Clips come from a TSV with 'path', 'label' and 'class' columns (what 'somniq-analyze fit --holdout-fold K/N \
            --holdout-list FILE' writes: the clips a model was fitted without; class '?', a mixed bag's clip, is left out). Short snoring clips become bouts of single \
            snores at breathing pace (3-5 s), long snoring recordings go in whole, coughs come in fits of one to three, and \
            speech, crying, alarms, doors, laughter, rain, the other classes and unlabelled other sounds (class empty) fall \
            between, 6-35 s apart, at bedside levels, over a synthesised room (fan and road, brown or pink noise) or a recorded one (the \
            clips with a --background-label). Writes <prefix>-<n>.wav, <prefix>-truth.tsv (filename, onset, offset, \
            event_label), <prefix>-snore-bouts.tsv (filename, onset, offset, snores), <prefix>-snoring-recordings.tsv and \
            <prefix>-placed.tsv (filename, onset, offset, clip: every clip placed, distractors included). \
            --household-nights adds nights of unlabelled sounds alone (<prefix>-household-<n>.wav, no events).
            """)

    @Option(help: ArgumentHelp("Clips: TSV with path, label and class columns.", valueName: "tsv")) var clips: String
    @Option(help: ArgumentHelp("Clips with this label are room tones to build on (repeatable).", valueName: "label"))
    var backgroundLabel: [String] = ["silence"]
    @Option(help: "Nights to build.") var nights = 3
    @Option(help: ArgumentHelp("Household nights to build besides: sounds of none of our classes only, written as <prefix>-household-<n>.wav.",
                               valueName: "N")) var householdNights = 0
    @Option(help: "Sample rate of the nights, Hz.") var sampleRate = 16_000
    @Option(help: "Seed.") var seed: UInt64 = 20_261_123
    @Option(help: ArgumentHelp("Folder to write to.", valueName: "folder")) var outputDir: String
    @Option(help: "File name prefix.") var prefix = "night"

    func run() throws {
        let text = try String(contentsOfFile: clips, encoding: .utf8)
        var rows = text.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = rows.first, let pathColumn = header.firstIndex(of: "path"), let labelColumn = header.firstIndex(of: "label"),
              let classColumn = header.firstIndex(of: "class") else {
            throw ValidationError("\(clips): needs a header with path, label and class columns")
        }
        rows.removeFirst()
        var pool: [DevNightClip] = []
        var rooms: [Background] = []
        // Class "?": a mixed bag's clip, which may hold one of our sounds; it can be neither an event nor a sound of none.
        for row in rows where row.count > max(pathColumn, labelColumn, classColumn) && row[classColumn] != "?" {
            let path = row[pathColumn]
            do {
                let audio = try AudioFileReader.readMono(path)
                if backgroundLabel.contains(row[labelColumn]) {
                    rooms.append(Background(name: (path as NSString).lastPathComponent, kind: .recorded(samples: audio.samples, sampleRate: audio.sampleRate)))
                } else {
                    pool.append(DevNightClip(path: path, classID: row[classColumn].isEmpty ? nil : row[classColumn], samples: audio.samples,
                                             sampleRate: audio.sampleRate, nightRate: sampleRate))
                }
            } catch {
                FileHandle.standardError.write(Data("\(error) (skipped)\n".utf8))
            }
        }
        try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        let builder = DevNightBuilder(clips: pool, backgrounds: rooms, sampleRate: sampleRate, seed: seed)
        for (name, spread) in builder.unsteadyRooms {
            let spreads = String(format: "%.1f dB, more than %g", spread, DevNightBuilder.steadyRoomSpreadDb)
            FileHandle.standardError.write(Data("\(name): not a steady room (its level spreads \(spreads)); left out of the rooms\n".utf8))
        }
        var truth = "filename\tonset\toffset\tevent_label\n"
        var bouts = "filename\tonset\toffset\tsnores\n"
        var recordings = "filename\tonset\toffset\trecording\n"
        var placed = "filename\tonset\toffset\tclip\n"
        func n(_ value: Double) -> String { String(format: "%.3f", value) }
        for index in 0..<(nights + householdNights) {
            let household = index >= nights
            let night = builder.night(index, household: household)
            let name = household ? "\(prefix)-household-\(index - nights).wav" : "\(prefix)-\(index).wav"
            try AudioFormatOptions.write(night.samples, to: (outputDir as NSString).appendingPathComponent(name), sampleRate: sampleRate)
            for event in night.events { truth += "\(name)\t\(n(event.onsetSeconds))\t\(n(event.offsetSeconds))\t\(event.label)\n" }
            for bout in night.snoreBouts { bouts += "\(name)\t\(n(bout.onsetSeconds))\t\(n(bout.offsetSeconds))\t\(bout.snores)\n" }
            for recording in night.snoringRecordings {
                recordings += "\(name)\t\(n(recording.onsetSeconds))\t\(n(recording.offsetSeconds))\t\(recording.label)\n"
            }
            for clip in night.placed { placed += "\(name)\t\(n(clip.onsetSeconds))\t\(n(clip.offsetSeconds))\t\(clip.label)\n" }
            FileHandle.standardError.write(Data("\(name): \(n(Double(night.samples.count) / Double(sampleRate))) s over \(night.background), \(night.events.count) events\n".utf8))
        }
        for (suffix, content) in [("truth", truth), ("snore-bouts", bouts), ("snoring-recordings", recordings), ("placed", placed)] {
            try content.write(toFile: (outputDir as NSString).appendingPathComponent("\(prefix)-\(suffix).tsv"), atomically: true, encoding: .utf8)
        }
    }
}

/// Writes `text` to `path`: a file appears whole (written beside it and renamed over it), while a device or named pipe
/// there (`--labels /dev/null`, `/dev/stdout`) is written in place; an atomic write would put a file in its place.
func writeText(_ text: String, to path: String) throws {
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR || status.st_mode & S_IFMT == S_IFIFO {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
        return
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}
