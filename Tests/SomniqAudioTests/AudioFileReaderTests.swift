import Foundation
import SomniqAudio
import SomniqSynth
import Testing

@Suite struct AudioFileReaderTests {
    let folder = TemporaryFolder()

    /// Writes `samples` (mono, copied to every channel) and returns the path.
    func write(_ samples: [Float], name: String, sampleRate: Int = 16_000, channels: Int = 1,
               container: AudioFileWriter.Container = .wav, encoding: AudioFileWriter.Encoding = .pcm16) throws -> String {
        let path = folder.file(name)
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, channelCount: channels,
                                             container: container, encoding: encoding)
            try writer.write(interleaved: samples.flatMap { Array(repeating: $0, count: channels) })
        }
        return path
    }

    func readAll(_ path: String, block: Int = 1000) throws -> [Float] {
        let reader = try AudioFileReader(path: path)
        var buffer = [Float](repeating: 0, count: block)
        var samples: [Float] = []
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            if got == 0 { break }
            samples.append(contentsOf: buffer[0..<got])
        }
        return samples
    }

    static let formats: [(AudioFileWriter.Container, AudioFileWriter.Encoding, Float)] = [
        (.wav, .pcm16, 1.0 / 32768), (.wav, .pcm24, 1.0 / 8_388_608), (.wav, .pcm32, 1.0 / 2_147_483_648),
        (.wav, .float32, 0), (.wav, .float64, 0), (.caf, .pcm32, 1.0 / 2_147_483_648),
        (.caf, .pcm16, 1.0 / 32768), (.caf, .pcm24, 1.0 / 8_388_608), (.caf, .float32, 0), (.caf, .alac16, 1.0 / 32768),
        (.flac, .pcm16, 1.0 / 32768), (.aiff, .pcm16, 1.0 / 32768),
    ]

    @Test(arguments: 0..<formats.count)
    func readsEveryPromisedFormatBackToTheSamples(index: Int) throws {
        let (container, encoding, step) = Self.formats[index]
        let original = SoundSynthesizer(sampleRate: 44_100, seed: 1).sine(frequency: 440, seconds: 0.75, amplitude: 0.5).map(Float.init)
        let path = try write(original, name: "sine.\(container.rawValue)", sampleRate: 44_100, container: container, encoding: encoding)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format.sampleRate == 44_100)
        #expect(reader.format.channelCount == 1)
        #expect(reader.format.frameCount == Int64(original.count))
        let decoded = try readAll(path, block: 777)
        #expect(decoded.count == original.count)
        let worst = zip(original, decoded).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= step + 1e-7, "largest error \(worst) for \(container) \(encoding)")
    }

    /// libsndfile adds a PEAK chunk to float files by default, stamped with the time of writing: the same samples
    /// written a second apart would differ (and `scripts/make-fixtures` would not reproduce its files). The writer
    /// leaves it out, in both containers that have one.
    @Test(arguments: [AudioFileWriter.Container.wav, .caf])
    func floatFilesCarryNoTimeStampedPeakChunk(container: AudioFileWriter.Container) throws {
        let path = try write([0.5, -0.25, 0.125], name: "float.\(container.rawValue)", container: container, encoding: .float32)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for id in ["PEAK", "peak"] {
            #expect(bytes.range(of: Data(id.utf8)) == nil, "\(container): a \(id) chunk")
        }
        #expect(try readAll(path) == [0.5, -0.25, 0.125])
    }

    /// libsndfile 1.2 writes a CAF of Apple Lossless longer than its header can hold the packet table of with a broken
    /// header (an hour of 44.1 kHz room noise came out unreadable, without an error). The writer stops at the limit,
    /// with an error that says what to write instead, and what it wrote up to there reads back whole.
    @Test func appleLosslessStopsBeforeLibsndfileWouldWriteAnUnreadableFile() throws {
        let limit = AudioFileWriter.appleLosslessFrameLimit(channelCount: 1)
        let path = folder.file("long.caf")
        let writer = try AudioFileWriter(path: path, sampleRate: 8_000, container: .caf, encoding: .alac16)
        let chunk = [Float](repeating: 0, count: 1 << 20)
        var written: Int64 = 0
        while written < limit {
            let count = Int(min(Int64(chunk.count), limit - written))
            try writer.write(interleaved: count == chunk.count ? chunk : Array(chunk[0..<count]))
            written += Int64(count)
        }
        #expect(throws: AudioFileError.longerThanEncodingAllows(path: path, encoding: "Apple Lossless", maximumFrames: limit,
                                                                sampleRate: 8_000)) {
            try writer.write(interleaved: [0])
        }
        try writer.close()
        let reader = try AudioFileReader(path: path)
        #expect(reader.format.frameCount == limit)
        #expect(AudioFileError.longerThanEncodingAllows(path: path, encoding: "Apple Lossless", maximumFrames: limit, sampleRate: 8_000)
            .description.contains("write a longer recording as FLAC"))
    }

    /// How far the mono mix lies below the channels: 0 dB for copies, 3 dB for one channel silent, far below for a
    /// channel that is the other's negative (the mix all but silent), nothing for mono or silent channels; read as
    /// integers (16-bit) and as floats alike.
    @Test(arguments: [AudioFileWriter.Encoding.pcm16, .float32])
    func theMixIsMeasuredAgainstItsChannels(encoding: AudioFileWriter.Encoding) throws {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 3)
        let noise = synth.whiteNoise(seconds: 2, levelDbfs: -30).map(Float.init)
        func below(_ pairs: [(Float, Float)], name: String) throws -> Double? {
            let path = folder.file(name)
            do {
                let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: 2, container: .wav, encoding: encoding)
                try writer.write(interleaved: pairs.flatMap { [$0.0, $0.1] })
            }
            let reader = try AudioFileReader(path: path)
            var buffer = [Float](repeating: 0, count: 4_000)
            while try buffer.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }) > 0 {}
            return reader.mixBelowChannelsDecibels
        }
        let copied = try #require(try below(noise.map { ($0, $0) }, name: "copied.wav"))
        let oneSilent = try #require(try below(noise.map { ($0, 0) }, name: "one-silent.wav"))
        let inverted = try #require(try below(noise.map { ($0, -$0) }, name: "inverted.wav"))
        #expect(abs(copied) < 0.01, "\(copied)")
        #expect(abs(oneSilent + 3.01) < 0.05, "\(oneSilent)")
        #expect(inverted < -60, "\(inverted)")
        #expect(try below(noise.map { _ in (0, 0) }, name: "silent.wav") == nil)
        let mono = try AudioFileReader(path: try write(noise, name: "mono.wav", encoding: encoding))
        var buffer = [Float](repeating: 0, count: 4_000)
        while try buffer.withUnsafeMutableBufferPointer({ try mono.read(into: $0) }) > 0 {}
        #expect(mono.mixBelowChannelsDecibels == nil)
    }

    /// One channel read alone gives that channel's samples, exactly as written (16-bit, read as integers, and float
    /// alike), not the mix; its content hash names the channel (the mix's and each channel's differ, so the analyses
    /// are told apart), while a mono file's one channel reads and hashes as the file does. A channel the file lacks is
    /// refused, naming the channels it has.
    @Test(arguments: [AudioFileWriter.Encoding.pcm16, .float32])
    func oneChannelIsReadAlone(encoding: AudioFileWriter.Encoding) throws {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 5)
        // Values a 16-bit file holds exactly.
        let left = synth.whiteNoise(seconds: 1, levelDbfs: -20).map { (Float($0) * 32_768).rounded() / 32_768 }
        let right = left.map { -($0 * 16_384).rounded() / 32_768 }
        let path = folder.file("stereo-\(encoding).wav")
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: 2, container: .wav, encoding: encoding)
            try writer.write(interleaved: zip(left, right).flatMap { [$0, $1] })
        }
        func read(_ path: String, channel: Int?) throws -> (samples: [Float], hash: String?, reader: AudioFileReader) {
            let reader = try AudioFileReader(path: path)
            if let channel { try reader.readOnly(channel: channel) }
            var buffer = [Float](repeating: 0, count: 999)
            var samples: [Float] = []
            while case let got = try buffer.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }), got > 0 {
                samples.append(contentsOf: buffer[0..<got])
            }
            return (samples, reader.contentHash, reader)
        }
        let mix = try read(path, channel: nil), first = try read(path, channel: 1), second = try read(path, channel: 2)
        #expect(first.samples == left && second.samples == right)
        #expect(mix.samples.enumerated().allSatisfy { abs($1 - (left[$0] + right[$0]) / 2) < 1e-6 }, "the mix is the channels' mean")
        #expect(Set([mix.hash, first.hash, second.hash]).count == 3 && mix.hash != nil)
        #expect(try read(path, channel: 1).hash == first.hash, "the same channel, the same identity")
        #expect(first.reader.channel == 0 && first.reader.mixBelowChannelsDecibels == nil && mix.reader.channel == nil)

        let mono = try write(left, name: "mono-\(encoding).wav", encoding: encoding)
        let whole = try read(mono, channel: nil), only = try read(mono, channel: 1)
        #expect(only.samples == whole.samples && only.hash == whole.hash && only.reader.channel == nil)
        #expect(throws: AudioFileError.noSuchChannel(path: path, channel: 3, channelCount: 2)) {
            try AudioFileReader(path: path).readOnly(channel: 3)
        }
        #expect(AudioFileError.noSuchChannel(path: mono, channel: 2, channelCount: 1).description
                    == "\(mono): error: it has 1 channel, so there is no channel 2 to analyse; leave out --channel")
    }

    /// The share of samples at full scale, over one read in sixteen of every channel: a sine twice full scale, clipped,
    /// lies there for 1 - (2/π) asin(0.99/2) of its time (0.670); one at half scale never; a clipped channel beside a
    /// quiet one, half as often; mono and stereo, 16-bit (read as integers), 24-bit and float alike.
    @Test(arguments: [(1, AudioFileWriter.Encoding.pcm16), (1, .pcm24), (1, .float32), (2, .pcm16), (2, .float32)])
    func samplesAtFullScaleAreCounted(channels: Int, encoding: AudioFileWriter.Encoding) throws {
        func measured(_ amplitude: Float, name: String) throws -> (share: Double, reads: Int) {
            let samples = (0..<160_000).map { min(1, max(-1, amplitude * sin(2 * Float.pi * 441 * Float($0) / 16_000))) }
            let path = folder.file(name)
            do {
                let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: channels, container: .wav, encoding: encoding)
                try writer.write(interleaved: channels == 1 ? samples : samples.flatMap { [$0, $0 * 0.1] })
            }
            let reader = try AudioFileReader(path: path)
            // Reads of a length no multiple of the lanes: the ends are counted one by one.
            var buffer = [Float](repeating: 0, count: 3_999)
            while try buffer.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }) > 0 {}
            return (try #require(reader.fullScaleShare), reader.readsReachingFullScale)
        }
        let clipped = try measured(2, name: "clipped-\(channels).wav")
        let expected = (1 - 2 / Double.pi * asin(0.99 / 2)) / Double(channels)
        #expect(abs(clipped.share - expected) < 0.01, "\(clipped.share) against \(expected)")
        #expect(clipped.reads == 3, "reads 0, 16 and 32 of 41 are measured")
        let quiet = try measured(0.5, name: "quiet-\(channels).wav")
        #expect(quiet.share == 0 && quiet.reads == 0)
    }

    /// An encoding the container cannot hold is refused before anything is written, with the encodings it can.
    @Test func anEncodingTheContainerCannotHoldNamesTheOnesItCan() throws {
        let path = folder.file("lossless.wav")
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: path, sampleRate: 16_000, container: .wav, encoding: .alac16)
        }
        #expect(error?.description.contains("wav cannot hold alac16; it holds pcm16, pcm24, pcm32, float32, float64") == true,
                "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: [8_000, 16_000, 22_050, 44_100, 48_000, 96_000, 192_000])
    func acceptsSampleRatesFrom8To192Kilohertz(rate: Int) throws {
        let path = try write([Float](repeating: 0.25, count: rate / 10), name: "rate.wav", sampleRate: rate)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format.sampleRate == rate)
        #expect(abs(reader.format.durationSeconds - 0.1) < 1e-9)
    }

    @Test func mixesChannelsToTheirMean() throws {
        let path = folder.file("stereo.wav")
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 8000, channelCount: 2, encoding: .float32)
            try writer.write(interleaved: [Float](repeating: 0, count: 200).enumerated().map { $0.offset % 2 == 0 ? 0.5 : -0.1 })
        }
        let samples = try readAll(path)
        #expect(samples.count == 100)
        #expect(samples.allSatisfy { abs($0 - 0.2) < 1e-6 })
        let eight = folder.file("eight.caf")
        do {
            let octo = try AudioFileWriter(path: eight, sampleRate: 16_000, channelCount: 8, container: .caf, encoding: .pcm24)
            try octo.write(interleaved: (0..<800).map { Float($0 % 8) / 10 })
        }
        let mixed = try readAll(eight)
        #expect(mixed.count == 100)
        #expect(mixed.allSatisfy { abs($0 - 0.35) < 1e-5 })
    }

    /// Two channels of different audio (negative zeros among them) are mixed as any number of channels is, bit for bit:
    /// the stereo path is spelt out for speed, not changed.
    @Test(arguments: [AudioFileWriter.Encoding.pcm16, .float32])
    func stereoMixesAsEveryOtherChannelCount(encoding: AudioFileWriter.Encoding) throws {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 8)
        let left = synth.whiteNoise(seconds: 0.5, levelDbfs: -12).map { Float(max(-0.9, min(0.9, $0))) }
        let right = synth.whiteNoise(seconds: 0.5, levelDbfs: -30).map { Float(max(-0.9, min(0.9, $0))) }
        var interleaved = zip(left, right).flatMap { [$0, $1] }
        for index in stride(from: 0, to: 400, by: 4) { interleaved[index] = -0.0; interleaved[index + 1] = -0.0 }
        let path = folder.file("stereo-\(encoding.rawValue).wav")
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: 2, encoding: encoding)
            try writer.write(interleaved: interleaved)
        }
        let reference = try AudioFileReader(path: path)
        var stored: [Float] = []
        let frames = try reference.readInterleaved(frameCount: left.count, into: &stored)
        let expected = (0..<frames).map { frame in
            var sum: Float = 0
            for channel in 0..<2 { sum += stored[frame * 2 + channel] }
            return sum * (1 / Float(2))
        }
        #expect(try readAll(path, block: 777).map(\.bitPattern) == expected.map(\.bitPattern))
    }

    func contentHash(_ path: String) throws -> String? {
        let reader = try AudioFileReader(path: path)
        var buffer = [Float](repeating: 0, count: 1000)
        while try buffer.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }) > 0 {}
        return reader.contentHash
    }

    /// 8- and 16-bit files (16-bit Apple Lossless too) are read as integers and scaled here: the samples must be
    /// libsndfile's own float decoding, bit for bit, mono or mixed down; the identity must not depend on the container.
    @Test func sixteenBitAudioReadsAsLibsndfilesFloatsAndHashesAlikeInEveryContainer() throws {
        var synth = SoundSynthesizer(sampleRate: 16_000, seed: 21)
        // Whole 16-bit steps below half scale, which every container's writer stores exactly (libsndfile scales
        // floats by 32,768 for WAV, CAF and AIFF but by 32,767 for FLAC).
        let noise = synth.whiteNoise(seconds: 0.6, levelDbfs: -20).map { Float(min(0.45, max(-0.45, $0)) * 32_768).rounded() / 32_768 }
        var hashes: Set<String> = []
        let files: [(AudioFileWriter.Container, AudioFileWriter.Encoding, Int)] = [
            (.wav, .pcm16, 1), (.caf, .pcm16, 1), (.caf, .alac16, 1), (.flac, .pcm16, 1), (.aiff, .pcm16, 1), (.wav, .pcm16, 2),
            (.caf, .pcm16, 3), (.caf, .alac16, 2),
        ]
        for (container, encoding, channels) in files {
            let path = try write(noise, name: "noise-\(encoding)-\(channels).\(container.rawValue)", channels: channels,
                                 container: container, encoding: encoding)
            let decoded = try readAll(path, block: 333)
            let reference = try AudioFileReader(path: path)  // readInterleaved is libsndfile's float read
            var interleaved: [Float] = []
            let got = try reference.readInterleaved(frameCount: noise.count, into: &interleaved)
            #expect(got == noise.count)
            let mixed = (0..<got).map { frame in
                var sum: Float = 0
                for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
                return sum * (1 / Float(channels))
            }
            #expect(decoded == mixed, "\(container) \(encoding) \(channels) channels")
            if channels == 1 { hashes.insert(try #require(try contentHash(path))) }
        }
        #expect(hashes.count == 1, "one identity for the same 16-bit audio in WAV, CAF, Apple Lossless, FLAC and AIFF")

        var changed = noise
        changed[4_321] += 1.0 / 32_768  // one sample one step up
        let other = try contentHash(try write(changed, name: "changed.wav"))
        #expect(other != nil && !hashes.contains(other!))
        let wider = try contentHash(try write(noise, name: "noise-24.wav", encoding: .pcm24))
        #expect(wider != nil && !hashes.contains(wider!), "24-bit audio is hashed as floats")
    }

    @Test func seeksWithoutDecodingWhatLiesBefore() throws {
        let ramp = (0..<16_000).map { Float($0) / 16_000 }
        let path = try write(ramp, name: "ramp.wav", encoding: .float32)
        let reader = try AudioFileReader(path: path)
        try reader.seek(toFrame: 12_000)
        var buffer = [Float](repeating: 0, count: 4)
        _ = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        #expect(buffer == Array(ramp[12_000..<12_004]))
        #expect(reader.position == 12_004)
    }

    /// An MP3 frame takes bits from the frames before it, which a plain seek has not decoded: its first frames came
    /// out wrong (and libmpg123 complained on stderr). After a seek, what is read is what a read from the start gives,
    /// to the last bit or so.
    @Test func anMP3SoughtReadsAsFromTheStart() throws {
        // The sample night's snores, gasp, cough, speech and alarm: frames of unequal need, which the encoder balances
        // through the reservoir.
        let rate = 16_000
        let samples = SyntheticNight.sample(sampleRate: rate).samples.map { Float($0) }
        let path = folder.file("night.mp3")
        try MP3Copy.write(samples, sampleRate: rate, to: path)
        let whole = try readAll(path)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format.container == "MPEG")
        var buffer = [Float](repeating: 0, count: 2_000)
        var wrong: [Int64] = []
        for target in stride(from: Int64(0), to: Int64(whole.count - 2_000), by: 31_337) {
            try reader.seek(toFrame: target)
            let got = try reader.readInterleaved(frameCount: 2_000, into: &buffer)
            // libmpg123's synthesis after a seek rounds a few samples differently in the last bit (1.2e-7 at most
            // here); a frame decoded without its reservoir is off by 1e-3 and more.
            let difference = zip(buffer[0..<got], whole[Int(target)...]).map { abs($0 - $1) }.max() ?? 1
            if got != 2_000 || difference > 1e-6 { wrong.append(target) }
            #expect(reader.position == target + 2_000)
        }
        #expect(wrong.isEmpty, "sought to \(wrong.count) frames that read otherwise than from the start: \(wrong.prefix(5))")
    }

    // MARK: - Bad input

    func expectError(_ path: String, code: String, mentioning phrase: String) {
        do {
            _ = try readAll(path)
            Issue.record("\(path) was read without error")
        } catch let error as AudioFileError {
            #expect(error.code == code)
            #expect(error.description.hasPrefix("\(path): error: "))
            #expect(error.description.contains(phrase), "\(error.description)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func missingFileAndDirectory() throws {
        expectError(folder.file("nothing.wav"), code: "not-found", mentioning: "no such file")
        let directory = folder.file("x.wav")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        expectError(directory, code: "is-directory", mentioning: "directory")
    }

    @Test func emptyHeaderOnlyAndTextFiles() throws {
        let empty = folder.file("empty.wav")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        expectError(empty, code: "empty", mentioning: "zero length")

        let full = try write([Float](repeating: 0.1, count: 1000), name: "full.wav")
        let headerOnly = folder.file("header.wav")
        try Data(try Data(contentsOf: URL(fileURLWithPath: full)).prefix(44)).write(to: URL(fileURLWithPath: headerOnly))
        expectError(headerOnly, code: "empty", mentioning: "zero length")

        let text = folder.file("notes.wav")
        try "these are my sleep notes, not audio\n".write(toFile: text, atomically: true, encoding: .utf8)
        expectError(text, code: "not-audio", mentioning: "libsndfile")
    }

    @Test func truncatedAndLyingHeaders() throws {
        let full = try write([Float](repeating: 0.1, count: 16_000), name: "full.wav")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        let truncated = folder.file("truncated.wav")
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: truncated))
        expectError(truncated, code: "truncated", mentioning: "promises 16000 frames")

        var lying = bytes
        let dataChunk = lying.range(of: Data("data".utf8))!.upperBound
        let claimed = UInt32(bytes.count * 10).littleEndian
        withUnsafeBytes(of: claimed) { lying.replaceSubrange(dataChunk..<(dataChunk + 4), with: $0) }
        let liar = folder.file("liar.wav")
        try lying.write(to: URL(fileURLWithPath: liar))
        expectError(liar, code: "truncated", mentioning: "cut short")
    }

    @Test func absurdSampleRate() throws {
        let path = try write([Float](repeating: 0.1, count: 100), name: "slow.wav", sampleRate: 1)
        expectError(path, code: "unsupported-sample-rate", mentioning: "1 Hz")
        expectError(path, code: "unsupported-sample-rate", mentioning: "the header is likely wrong; re-export the recording")
        // Too fast is a rate a converter brings down, and the error says how.
        let fast = try write([Float](repeating: 0.1, count: 40_000), name: "fast.wav", sampleRate: 400_000)
        expectError(fast, code: "unsupported-sample-rate", mentioning: "400000 Hz is outside the supported 4000–384000 Hz")
        expectError(fast, code: "unsupported-sample-rate", mentioning: "ffmpeg -i 'fast.wav' -ar 48000 'fast-48k.flac'")
    }

    @Test func nanAndInfiniteSamples() throws {
        var samples = [Float](repeating: 0.1, count: 8000)
        samples[6000] = .nan
        expectError(try write(samples, name: "nan.wav", sampleRate: 8000, encoding: .float32),
                    code: "non-finite-samples", mentioning: "0.750 s")
        expectError(folder.file("nan.wav"), code: "non-finite-samples", mentioning: "re-export it from its source")
        samples[6000] = 0.1
        samples[100] = .infinity
        expectError(try write(samples, name: "inf.caf", sampleRate: 8000, container: .caf, encoding: .float32),
                    code: "non-finite-samples", mentioning: "0.013 s")
        // Finite but absurd (found by the fuzzer): 1e30 would overflow the features' sums of squares.
        samples[100] = 1e30
        expectError(try write(samples, name: "huge.wav", sampleRate: 8000, encoding: .float32),
                    code: "non-finite-samples", mentioning: "absurdly large")
        samples[100] = 1.5
        #expect(try readAll(try write(samples, name: "hot.wav", sampleRate: 8000, encoding: .float32)).count == 8000,
                "a float file a little over full scale is still audio")
    }
}

/// A failure to open a file is named by its cause: a limit on open files is not the file's fault (libsndfile alone
/// would have called it "not a readable audio file ... convert it to WAV").
@Suite struct OpenFailureTests {
    @Test func theCauseIsNamed() {
        #expect(AudioFileReader.openFailure(path: "/n.wav", errno: EMFILE) == .tooManyOpenFiles(path: "/n.wav"))
        #expect(AudioFileReader.openFailure(path: "/n.wav", errno: ENFILE) == .tooManyOpenFiles(path: "/n.wav"))
        #expect(AudioFileReader.openFailure(path: "/n.wav", errno: EACCES) == .permissionDenied(path: "/n.wav"))
        #expect(AudioFileReader.openFailure(path: "/n.wav", errno: ENOENT) == .notFound(path: "/n.wav"))
        let message = AudioFileError.tooManyOpenFiles(path: "/n.wav").description
        #expect(message.hasPrefix("/n.wav: error: too many open files"))
        #expect(message.contains("ulimit -n") && message.contains("--jobs") && !message.contains("convert"))
        #expect(AudioFileError.tooManyOpenFiles(path: "/n.wav").code == "too-many-open-files")
    }
}
