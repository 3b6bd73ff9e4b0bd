import Foundation
import SomniqAudio
import SomniqSynth
import Testing

/// Decoding on a thread of its own hands over exactly what a plain read loop reads: the same chunks in the same
/// order, the same error at the same place, and the same content hash; and so does reading on the caller's thread
/// (`aside: false`, a batch whose jobs fill the cores).
@Suite struct ReadAheadTests {
    let folder = TemporaryFolder()

    func write(seconds: Double, name: String, channels: Int = 2) throws -> String {
        let path = folder.file(name)
        var synthesizer = SoundSynthesizer(sampleRate: 16_000, seed: 7)
        let samples = synthesizer.whiteNoise(seconds: seconds, levelDbfs: -20).map(Float.init)
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: channels, container: .wav, encoding: .pcm16)
            try writer.write(interleaved: samples.flatMap { Array(repeating: $0, count: channels) })
        }
        return path
    }

    struct Read: Equatable {
        var chunks: [[Float]] = []
        var positions: [Int64] = []
        var failure: String?
        var hash: String?
        /// The ending's product: once after the chunks of a file read to its end, never after an error.
        var endings = 0
    }

    /// What the loop `RecordingAnalyzer` ran before decoding ahead reads: chunks until an empty or short one.
    func plainLoop(_ path: String, chunkLength: Int, acceptCutShort: Bool = true) throws -> Read {
        let reader = try AudioFileReader(path: path, acceptCutShort: acceptCutShort)
        var read = Read()
        var buffer = [Float](repeating: 0, count: chunkLength)
        do {
            while true {
                let got = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
                guard got > 0 else { break }
                read.chunks.append(Array(buffer[0..<got]))
                read.positions.append(reader.position)
                if got < chunkLength { break }
            }
        } catch {
            read.failure = "\(error)"
        }
        read.hash = reader.contentHash
        read.endings = read.failure == nil ? 1 : 0
        return read
    }

    func readAhead(_ path: String, chunkLength: Int, depth: Int, aside: Bool = true, acceptCutShort: Bool = true) throws -> Read {
        let ahead = ReadAhead(reader: try AudioFileReader(path: path, acceptCutShort: acceptCutShort), chunkLength: chunkLength,
                              depth: depth, aside: aside, transform: { Array($0) }, ending: { [] })
        var read = Read()
        do {
            while let chunk = try ahead.next() {
                if chunk.count == 0 {
                    #expect(chunk.product.isEmpty, "the ending comes last, after the chunks")
                    read.endings += 1
                    continue
                }
                #expect(read.endings == 0, "no chunk after the ending")
                read.chunks.append(chunk.product)
                read.positions.append(chunk.position)
            }
        } catch {
            read.failure = "\(error)"
        }
        ahead.finish()
        read.hash = ahead.reader.contentHash
        return read
    }

    @Test(arguments: [1, 2, 8])
    func handsOverWhatAPlainLoopReads(depth: Int) throws {
        // 10.3 s in 4,000-frame chunks: the last one short.
        let path = try write(seconds: 10.3, name: "noise.wav")
        let plain = try plainLoop(path, chunkLength: 4_000)
        #expect(plain.chunks.count == 42)
        #expect(plain.hash != nil)
        #expect(try readAhead(path, chunkLength: 4_000, depth: depth) == plain)
        #expect(try readAhead(path, chunkLength: 4_000, depth: depth, aside: false) == plain)
    }

    @Test func aFileOfWholeChunksEndsOnTheEmptyRead() throws {
        let path = try write(seconds: 2, name: "whole.wav", channels: 1)
        let plain = try plainLoop(path, chunkLength: 8_000)
        #expect(plain.chunks.count == 4)
        #expect(try readAhead(path, chunkLength: 8_000, depth: 3) == plain)
        #expect(try readAhead(path, chunkLength: 8_000, depth: 3, aside: false) == plain)
    }

    /// A float file with a NaN 2.5 s in (corruption the reader refuses where it meets it): the error comes after
    /// the chunks read before it, as in the loop.
    @Test func theReadersErrorComesWhereItCame() throws {
        let path = folder.file("nan.wav")
        var samples = [Float](repeating: 0.25, count: 48_000)
        samples[40_000] = .nan
        do {
            let writer = try AudioFileWriter(path: path, sampleRate: 16_000, channelCount: 1, container: .wav, encoding: .float32)
            try writer.write(interleaved: samples)
        }
        let plain = try plainLoop(path, chunkLength: 4_000)
        #expect(plain.failure?.contains("2.5") == true)
        #expect(plain.chunks.count == 10)
        #expect(try readAhead(path, chunkLength: 4_000, depth: 2) == plain)
        #expect(try readAhead(path, chunkLength: 4_000, depth: 2, aside: false) == plain)
    }

    /// Stopping early (an interrupted analysis) returns, and the decoding thread lets go of the reader.
    @Test func finishingEarlyStopsTheDecodingThread() throws {
        let path = try write(seconds: 20, name: "long.wav", channels: 1)
        let ahead = ReadAhead(reader: try AudioFileReader(path: path), chunkLength: 1_000, depth: 2, transform: { $0.count },
                              ending: { 0 })
        let first = try #require(try ahead.next())
        #expect(first.count == 1_000 && first.product == 1_000)
        ahead.finish()
        // The thread stopped with at most its two chunks made ahead and one in hand: nowhere near the end of the file.
        #expect(ahead.reader.position <= 4_000)
        #expect(ahead.reader.contentHash == nil)
    }

    /// Errands run in the order handed over, one at a time, on whichever thread is free (the decoding thread between
    /// its chunks, or the caller while it would wait); the chunks are those of a plain loop still; finishing lets
    /// every errand run; an errand handed over after runs at once.
    @Test(arguments: [true, false])
    func errandsRunInOrderBesideTheChunks(aside: Bool) throws {
        let path = try write(seconds: 12, name: "errands.wav", channels: 1)
        let plain = try plainLoop(path, chunkLength: 1_000)
        let ahead = ReadAhead(reader: try AudioFileReader(path: path), chunkLength: 1_000, depth: 4, aside: aside,
                              transform: { Array($0) }, ending: { [] })
        let log = ErrandLog()
        let caller = Thread.current
        var read = Read()
        while let chunk = try ahead.next() {
            if chunk.count == 0 { read.endings += 1; continue }
            read.chunks.append(chunk.product)
            read.positions.append(chunk.position)
            // More errands than may wait at once: handing them over waits for room rather than failing or dropping.
            for _ in 0..<3 {
                let number = log.count
                log.expect(number)
                ahead.runAside { log.ran(number, onCaller: Thread.current == caller, busy: aside) }
            }
            if read.chunks.count == 100 { ahead.waitForErrands(); #expect(log.ranCount == 300) }
        }
        ahead.finish()
        read.hash = ahead.reader.contentHash
        #expect(read == plain)
        #expect(log.ranCount == 3 * plain.chunks.count && log.inOrder)
        #expect(log.mostAtOnce == 1, "never two errands at once")
        if !aside { #expect(log.onCaller == log.ranCount, "without a decoding thread, all run on the caller's") }
        let number = log.count
        log.expect(number)
        ahead.runAside { log.ran(number, onCaller: Thread.current == caller) }
        #expect(log.ranCount == 3 * plain.chunks.count + 1, "after finishing, at once")
    }

    /// The caller, waiting for a chunk the decoding thread is still making, runs the errand waiting itself rather
    /// than waiting on the thread that is behind. Here the decoding thread is held inside its first chunk until that
    /// errand has run: only the caller can run it (within ten seconds, or the chunk goes ahead and the test fails).
    @Test func theCallerRunsAnErrandWhileTheDecodingThreadIsBehind() throws {
        let path = try write(seconds: 2, name: "held.wav", channels: 1)
        let entered = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        let heldOnce = ErrandLog()
        let ahead = ReadAhead(reader: try AudioFileReader(path: path), chunkLength: 4_000, depth: 2, transform: { samples -> Int in
            if heldOnce.count == 0 {
                heldOnce.expect(0)
                entered.signal()
                _ = released.wait(timeout: .now() + 10)
            }
            return samples.count
        }, ending: { 0 })
        defer { ahead.finish() }
        entered.wait()
        let caller = Thread.current
        let log = ErrandLog()
        ahead.runAside {
            log.ran(0, onCaller: Thread.current == caller)
            released.signal()
        }
        let first = try #require(try ahead.next())
        #expect(first.count == 4_000)
        #expect(log.ranCount == 1 && log.onCaller == 1, "the errand ran on the caller's thread")
        var chunks = 1
        while let chunk = try ahead.next(), chunk.count > 0 { chunks += 1 }
        #expect(chunks == 8)
    }
}

/// What errands did, as they record it.
private final class ErrandLog: @unchecked Sendable {
    private let lock = NSLock()
    private var expected = 0
    private var order: [Int] = []
    private var callerRuns = 0
    private var running = 0
    private var most = 0
    var count: Int { lock.withLock { expected } }
    var ranCount: Int { lock.withLock { order.count } }
    var inOrder: Bool { lock.withLock { order == Array(0..<order.count) } }
    var onCaller: Int { lock.withLock { callerRuns } }
    /// The most errands running at one time.
    var mostAtOnce: Int { lock.withLock { most } }
    func expect(_ number: Int) { lock.withLock { expected = number + 1 } }
    /// Records errand `number`; `busy`, it first takes a little time, so that two errands running at once would overlap.
    func ran(_ number: Int, onCaller: Bool, busy: Bool = false) {
        lock.withLock {
            running += 1
            most = max(most, running)
        }
        if busy { usleep(20) }
        lock.withLock {
            running -= 1
            order.append(number)
            if onCaller { callerRuns += 1 }
        }
    }
}
