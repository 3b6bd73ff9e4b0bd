import Foundation
@testable import SomniqAudio
import SomniqSynth
import Testing

/// Following a recording another program is still writing (#48): every sample as it was written, and the end where
/// the writer finalises its header, stops writing, or the follow is stopped.
@Suite struct GrowingFileTests {
    static let rate = 16_000

    /// A 16-bit tone, one sample per frame, as the writer writes it (value / 32768 is what the reader gives).
    static func tone(seconds: Double) -> [Int16] {
        (0..<Int(seconds * Double(rate))).map { Int16(8_000 * sin(Double($0) * 0.05)) }
    }

    static func wavHeader(dataBytes: UInt32) -> Data { UnfinishedWAV.header(sampleRate: rate, dataBytes: dataBytes) }

    /// Writes `samples` to `path` after an open header, a tenth of a second every `pause` (10x real time at 10 ms),
    /// then, when `finalise`, the header's final sizes. Returns when the writer is done.
    static func writeGrowing(_ path: String, samples: [Int16], openSize: UInt32, finalise: Bool,
                             pause: TimeInterval = 0.01) throws -> Thread {
        try wavHeader(dataBytes: openSize).write(to: URL(fileURLWithPath: path))
        let thread = Thread {
            let handle = FileHandle(forWritingAtPath: path)!
            handle.seekToEndOfFile()
            let block = rate / 10
            for start in stride(from: 0, to: samples.count, by: block) {
                let piece = samples[start..<min(samples.count, start + block)]
                handle.write(piece.withUnsafeBytes { Data($0) })
                Thread.sleep(forTimeInterval: pause)
            }
            if finalise {
                handle.seek(toFileOffset: 0)
                handle.write(wavHeader(dataBytes: UInt32(samples.count * 2)))
            }
            try? handle.close()
        }
        thread.start()
        return thread
    }

    static func readAll(_ reader: AudioFileReader) throws -> [Float] {
        var result: [Float] = []
        var buffer = [Float](repeating: 0, count: 1_600)
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            if got == 0 { break }
            result += buffer[0..<got]
        }
        return result
    }

    /// 0 and all bits set, and a size the file does not hold yet (arecord writes its largest until it stops).
    @Test(arguments: [UInt32(0), UInt32.max, UInt32(0x7FFF_FFF0)])
    func aWAVWrittenAtTenTimesRealTimeIsReadWholeAndEndsWhenFinalised(openSize: UInt32) throws {
        let folder = TemporaryFolder()
        let path = folder.file("growing.wav")
        let samples = Self.tone(seconds: 3)
        _ = try Self.writeGrowing(path, samples: samples, openSize: openSize, finalise: true)
        let source = try GrowingAudioSource(path: path, idleSeconds: 20)
        #expect(source.headerWasOpen)
        let reader = try AudioFileReader(following: source)
        let started = Date()
        let read = try Self.readAll(reader)
        #expect(Date().timeIntervalSince(started) < 10, "ended by the finalised header, not the 20 s idle time")
        #expect(read == samples.map { Float($0) / 32_768 })
        #expect(source.finalised)
        #expect(reader.format.frameCount == Int64(samples.count))
        #expect(reader.declaredFrameCount == nil)
        // A followed file's audio identity is taken from the finished file (its frame count leads the hash).
        #expect(reader.contentHash == nil)
        #expect(try AudioFileReader(path: path).contentHashAfterReading() != nil)
    }

    @Test func aWriterThatStopsWithoutFinalisingEndsAfterTheIdleTime() throws {
        let folder = TemporaryFolder()
        let path = folder.file("killed.wav")
        let samples = Self.tone(seconds: 2)
        let writer = try Self.writeGrowing(path, samples: samples, openSize: 0, finalise: false)
        let source = try GrowingAudioSource(path: path, idleSeconds: 0.5, pollSeconds: 0.02)
        let read = try Self.readAll(try AudioFileReader(following: source))
        #expect(read == samples.map { Float($0) / 32_768 })
        #expect(!source.finalised, "the header was never finalised: the night is flagged cut short")
        #expect(source.ended)
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// A recording whose recorder died before it finished the file (its header's sizes still placeholders), read later
    /// as any file: the audio it holds is read whole, it is taken as cut short with a header promising nothing, and its
    /// content hash is the finished file's (the same audio). Refused as empty under --strict's reading.
    @Test(arguments: [UInt32(0), .max])
    func aRecordingWhoseHeaderWasNeverFinishedIsReadAsCutShort(openSize: UInt32) throws {
        let folder = TemporaryFolder()
        let samples = Self.tone(seconds: 2)
        let audio = samples.withUnsafeBytes { Data($0) }
        let unfinished = folder.file("unfinished.wav"), finished = folder.file("finished.wav")
        try (Self.wavHeader(dataBytes: openSize) + audio).write(to: URL(fileURLWithPath: unfinished))
        try (Self.wavHeader(dataBytes: UInt32(audio.count)) + audio).write(to: URL(fileURLWithPath: finished))
        let reader = try AudioFileReader(path: unfinished, acceptCutShort: true)
        #expect(reader.format.frameCount == Int64(samples.count))
        #expect(try Self.readAll(reader) == samples.map { Float($0) / 32_768 })
        #expect(reader.declaredFrameCount == 0)
        let whole = try AudioFileReader(path: finished)
        _ = try Self.readAll(whole)
        #expect(whole.declaredFrameCount == nil)
        #expect(reader.contentHash != nil && reader.contentHash == whole.contentHash)
        if openSize == 0 { #expect(throws: AudioFileError.empty(path: unfinished)) { try AudioFileReader(path: unfinished) } }
    }

    @Test func stoppingEndsTheFollowAtWhatWasWritten() throws {
        let folder = TemporaryFolder()
        let path = folder.file("stopped.wav")
        let samples = Self.tone(seconds: 5)
        // Real time: 5 s of audio take 5 s to arrive; the follow is stopped after 1.
        let writer = try Self.writeGrowing(path, samples: samples, openSize: .max, finalise: true, pause: 0.1)
        let source = try GrowingAudioSource(path: path, idleSeconds: 30)
        let opening = Date()
        let reader = try AudioFileReader(following: source)
        #expect(Date().timeIntervalSince(opening) < 1, "opening waits for nothing")
        Thread {
            Thread.sleep(forTimeInterval: 1)
            source.stop()
        }.start()
        let started = Date()
        let read = try Self.readAll(reader)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(read.count > 0 && read.count < samples.count, "\(read.count) frames")
        #expect(read == samples.prefix(read.count).map { Float($0) / 32_768 })
        #expect(!source.finalised)
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.05) }
    }

    @Test func aFinishedFileIsReadToItsAudiosEndWhenIdle() throws {
        let folder = TemporaryFolder()
        let path = folder.file("done.wav")
        let samples = Self.tone(seconds: 1)
        // A chunk after the audio (metadata a recorder adds at the end) is not audio.
        var trailing = Data("LIST".utf8)
        withUnsafeBytes(of: UInt32(8).littleEndian) { trailing.append(contentsOf: $0) }
        trailing.append(contentsOf: Array("INFOISFT".utf8))
        try (Self.wavHeader(dataBytes: UInt32(samples.count * 2)) + samples.withUnsafeBytes { Data($0) } + trailing)
            .write(to: URL(fileURLWithPath: path))
        let source = try GrowingAudioSource(path: path, idleSeconds: 0.5, pollSeconds: 0.02)
        #expect(!source.headerWasOpen)
        let read = try Self.readAll(try AudioFileReader(following: source))
        #expect(read == samples.map { Float($0) / 32_768 })
        #expect(source.endReason == .idle)
    }

    /// Where the file followed is once read: in place, renamed in its folder (found by its identity, not its name),
    /// its name taken by another file, gone, or shorter than what was read of it (cut and written anew).
    @Test func theFileFollowedIsFoundWhereverItWent() throws {
        let folder = TemporaryFolder()
        let samples = Self.tone(seconds: 1)
        let audio = Self.wavHeader(dataBytes: UInt32(samples.count * 2)) + samples.withUnsafeBytes { Data($0) }
        func followed(_ name: String) throws -> (GrowingAudioSource, AudioFileReader) {
            try audio.write(to: URL(fileURLWithPath: folder.file(name)))
            let source = try GrowingAudioSource(path: folder.file(name), idleSeconds: 0.2, pollSeconds: 0.02)
            let reader = try AudioFileReader(following: source)
            #expect(try Self.readAll(reader).count == samples.count)
            return (source, reader)
        }
        let (kept, keptReader) = try followed("kept.wav")
        #expect(kept.whereabouts() == .inPlace)

        let (renamed, renamedReader) = try followed("recording.wav.part")
        try audio.write(to: URL(fileURLWithPath: folder.file("another.wav")))
        try FileManager.default.moveItem(atPath: folder.file("recording.wav.part"), toPath: folder.file("night.wav"))
        #expect(renamed.whereabouts() == .renamed(to: folder.file("night.wav")), "the same audio in another.wav is not the file")

        let (replaced, replacedReader) = try followed("saved.wav")
        try audio.write(to: URL(fileURLWithPath: folder.file("saved.wav.tmp")))
        #expect(rename(folder.file("saved.wav.tmp"), folder.file("saved.wav")) == 0)
        #expect(replaced.whereabouts() == .replaced)

        let (gone, goneReader) = try followed("gone.wav")
        try FileManager.default.removeItem(atPath: folder.file("gone.wav"))
        #expect(gone.whereabouts() == .gone)

        let (cut, cutReader) = try followed("cut.wav")
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("cut.wav")))
        try handle.truncate(atOffset: 44)
        try handle.write(contentsOf: Data(count: 1_000))
        try handle.close()
        #expect(cut.whereabouts() == .shrunk(bytes: 1_044, heardBytes: Int64(audio.count)))
        withExtendedLifetime((keptReader, renamedReader, replacedReader, goneReader, cutReader)) {}
    }

    @Test func aFinishedCAFIsFollowedToItsEnd() throws {
        let folder = TemporaryFolder()
        let path = folder.file("done.caf")
        let samples = Self.tone(seconds: 1).map { Float($0) / 32_768 }
        let writer = try AudioFileWriter(path: path, sampleRate: Self.rate, container: .caf, encoding: .pcm16)
        try writer.write(interleaved: samples)
        try writer.close()
        let source = try GrowingAudioSource(path: path, idleSeconds: 0.3, pollSeconds: 0.02)
        #expect(try Self.readAll(try AudioFileReader(following: source)) == samples)
    }

    @Test func aFileWhoseHeaderIsKeptCurrentIsFollowedUntilIdle() throws {
        let folder = TemporaryFolder()
        let path = folder.file("current.wav")
        let samples = Self.tone(seconds: 2)
        try Self.wavHeader(dataBytes: 0).write(to: URL(fileURLWithPath: path))
        // After each block the header says what the file holds.
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: path)!
            var written = 0
            for start in stride(from: 0, to: samples.count, by: Self.rate / 10) {
                let piece = samples[start..<min(samples.count, start + Self.rate / 10)]
                handle.seekToEndOfFile()
                handle.write(piece.withUnsafeBytes { Data($0) })
                written += piece.count
                handle.seek(toFileOffset: 0)
                handle.write(Self.wavHeader(dataBytes: UInt32(written * 2)))
                Thread.sleep(forTimeInterval: 0.01)
            }
            try? handle.close()
        }
        Thread.sleep(forTimeInterval: 0.05)
        writer.start()
        let source = try GrowingAudioSource(path: path, idleSeconds: 0.5, pollSeconds: 0.02)
        let read = try Self.readAll(try AudioFileReader(following: source))
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(read == samples.map { Float($0) / 32_768 })
    }

    @Test func aFLACBeingEncodedIsFollowed() throws {
        let folder = TemporaryFolder()
        let path = folder.file("growing.flac")
        let samples = Self.tone(seconds: 4)
        let writer = try AudioFileWriter(path: path, sampleRate: Self.rate, container: .flac, encoding: .pcm16)
        let floats = samples.map { Float($0) / 32_768 }
        // The first second is there when the follow starts; the rest comes while it reads, and the encoder is never
        // closed (its header keeps "length unknown").
        try writer.write(interleaved: Array(floats[0..<Self.rate]))
        // Only the feeder writes until it is done.
        nonisolated(unsafe) let encoder = writer
        let feeder = Thread {
            for second in 1..<4 {
                Thread.sleep(forTimeInterval: 0.1)
                try? encoder.write(interleaved: Array(floats[(second * Self.rate)..<((second + 1) * Self.rate)]))
            }
        }
        feeder.start()
        let source = try GrowingAudioSource(path: path, idleSeconds: 1, pollSeconds: 0.02)
        let read = try Self.readAll(try AudioFileReader(following: source))
        while !feeder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        // The encoder holds back its last partial block until it is closed: what it wrote is read, exactly.
        #expect(read.count >= 3 * Self.rate, "\(read.count) frames")
        #expect(read == Array(floats.prefix(read.count)))
        try writer.close()
    }
}

extension AudioFileReader {
    /// The content hash once every frame has been read.
    func contentHashAfterReading() throws -> String? {
        _ = try GrowingFileTests.readAll(self)
        return contentHash
    }
}

/// `follow -`: raw PCM from a recorder's pipe, heard as it comes and recorded to a file (#48).
@Suite struct RawPCMStreamTests {
    @Test func eachEncodingReadsAsItsFullScale() {
        let cases: [(RawPCMFormat.Encoding, [UInt8], [Float])] = [
            (.s16le, [0x00, 0x80, 0xFF, 0x7F, 0x00, 0x40], [-1, 32_767 / 32_768, 0.5]),
            (.s24le, [0x00, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x40], [-1, -1 / 8_388_608, 0.5]),
            (.s32le, [0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0xC0], [-1, -0.5]),
            (.f32le, Array(withUnsafeBytes(of: Float(0.25).bitPattern.littleEndian) { Array($0) }), [0.25]),
        ]
        for (encoding, bytes, expected) in cases {
            let format = RawPCMFormat(sampleRate: 16_000, channelCount: 1, encoding: encoding)
            #expect(bytes.withUnsafeBytes { format.samples($0) } == expected, "\(encoding)")
        }
    }

    /// Feeds `bytes` into a new pipe in odd pieces (a frame may be cut between two reads), `pause` apart; returns the
    /// pipe's read end and the feeding thread (which closes the write end when done, unless `keepOpen`).
    static func feed(_ bytes: [UInt8], pause: TimeInterval = 0.005, keepOpen: Bool = false) -> (Int32, Thread) {
        var descriptors: [Int32] = [0, 0]
        precondition(pipe(&descriptors) == 0)
        let writeEnd = descriptors[1]
        let feeder = Thread {
            var offset = 0, piece = 1_001
            while offset < bytes.count {
                let end = min(bytes.count, offset + piece)
                _ = bytes[offset..<end].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                offset = end
                piece = piece == 1_001 ? 3_333 : 1_001
                Thread.sleep(forTimeInterval: pause)
            }
            if !keepOpen { close(writeEnd) }
        }
        feeder.start()
        return (descriptors[0], feeder)
    }

    static func readAll(_ stream: RawPCMStream) throws -> [Float] {
        var result: [Float] = []
        var buffer = [Float](repeating: 0, count: 1_600)
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
            if got == 0 { return result }
            result += buffer[0..<got]
        }
    }

    /// What the pipe brings is heard as it comes and recorded: the recording, read back as `analyze` reads it, holds the
    /// very samples that were heard, stereo mixed to mono alike.
    @Test(arguments: [(1, AudioFileWriter.Container.flac), (2, .wav)])
    func aPipedRecordingIsHeardAsItComesAndRecordedSampleForSample(channels: Int, container: AudioFileWriter.Container) throws {
        let folder = TemporaryFolder()
        let path = folder.file("night.\(container.rawValue)")
        let tone = GrowingFileTests.tone(seconds: 3)
        // Stereo: the right channel a quieter, shifted copy, so that the mix is not either channel.
        let interleaved = channels == 1 ? tone : tone.indices.flatMap { [tone[$0], tone[($0 + 37) % tone.count] / 3] }
        let (readEnd, feeder) = Self.feed(interleaved.withUnsafeBytes { Array($0) })
        defer { close(readEnd) }
        let format = RawPCMFormat(sampleRate: GrowingFileTests.rate, channelCount: channels, encoding: .s16le)
        let writer = try AudioFileWriter(path: path, sampleRate: format.sampleRate, channelCount: channels,
                                         container: container, encoding: .pcm16)
        let stream = RawPCMStream(descriptor: readEnd, format: format, record: writer, pollSeconds: 0.02)
        let heard = try Self.readAll(stream)
        try stream.finish()
        while !feeder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(stream.endReason == .ended)
        #expect(stream.framesRead == Int64(tone.count))
        #expect(heard.count == tone.count)
        if channels == 1 { #expect(heard == tone.map { Float($0) / 32_768 }) }
        #expect(try AudioFileReader.readMono(path).samples == heard, "the recording holds what was heard")
    }

    /// A recorder that keeps its pipe open but sends nothing ends the stream after `idleSeconds`; `stop()` ends it at
    /// once, what came before kept.
    @Test func aSilentPipeEndsWhenIdleAndAStopEndsItAtOnce() throws {
        let format = RawPCMFormat(sampleRate: GrowingFileTests.rate, channelCount: 1, encoding: .s16le)
        let (idleEnd, idleFeeder) = Self.feed(Array(repeating: 0, count: 3_200), keepOpen: true)
        let idle = RawPCMStream(descriptor: idleEnd, format: format, idleSeconds: 0.3, pollSeconds: 0.02)
        let began = Date()
        #expect(try Self.readAll(idle).count == 1_600)
        #expect(idle.endReason == .idle)
        #expect(Date().timeIntervalSince(began) < 5)
        while !idleFeeder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        close(idleEnd)

        let (stoppedEnd, stoppedFeeder) = Self.feed(Array(repeating: 0, count: 3_200), keepOpen: true)
        let stopped = RawPCMStream(descriptor: stoppedEnd, format: format, pollSeconds: 0.02)
        let stopper = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            stopped.stop()
        }
        stopper.start()
        #expect(try Self.readAll(stopped).count == 1_600)
        #expect(stopped.endReason == .stopped)
        while !stoppedFeeder.isFinished || !stopper.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        close(stoppedEnd)
    }

    @Test func aSampleNoRecorderMakesIsAnErrorNamingTheInput() {
        let format = RawPCMFormat(sampleRate: GrowingFileTests.rate, channelCount: 1, encoding: .f32le)
        let bytes = [Float(0.1), .nan].flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        let (readEnd, feeder) = Self.feed(bytes)
        defer { close(readEnd) }
        let stream = RawPCMStream(descriptor: readEnd, format: format, pollSeconds: 0.02)
        #expect(throws: AudioFileError.nonFiniteSamples(path: "standard input", atSeconds: 1.0 / Double(GrowingFileTests.rate))) {
            _ = try Self.readAll(stream)
        }
        while !feeder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
    }
}
