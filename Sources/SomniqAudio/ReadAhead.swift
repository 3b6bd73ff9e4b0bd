import Foundation

/// Decodes a recording on a thread of its own, a few chunks ahead of the thread that analyses them, so that one long
/// night uses two cores: libsndfile's decoding, the content hash, the mix to mono and whatever `transform` does to each
/// chunk (the analysis's conditioning: DC offset, resampling) on one, the rest of the analysis on the other.
///
/// The chunks are exactly those a loop of `AudioFileReader.read(into:)` with buffers of `chunkLength` frames would
/// give, in the same order, ending at the first empty or short read, each handed to `transform` in turn on the decoding
/// thread; after the last, `ending` makes one more product (the conditioning's tail). The reader's error, if one comes,
/// comes after the chunks read before it, and then no ending. So whatever consumes the products computes the same
/// results, bit for bit, as it would reading the file itself. The reader, `transform` and `ending` belong to the
/// decoding thread until `finish()` returns; read the reader's format, hash and declared length only after that.
/// Call `finish()` in any case: after the last chunk the thread stays to run errands (`runAside`) until then. The errands
/// run one at a time, in order, on whichever of the two threads is free first.
///
/// Made with `aside: false`, it starts no thread: each `next()` reads and transforms the next chunk on the caller's
/// thread, the same chunks in the same order (a batch whose jobs already fill the cores: a second thread per night
/// would only add its hand-overs).
public final class ReadAhead<Product>: @unchecked Sendable {
    /// What `transform` made of a chunk of `count` frames (0 for the ending), and the reader's position after it.
    public struct Chunk {
        public let product: Product
        public let count: Int
        public let position: Int64
    }

    public let reader: AudioFileReader
    public let chunkLength: Int
    private let transform: (UnsafeBufferPointer<Float>) -> Product
    private let ending: () -> Product
    private let depth: Int
    private let condition = NSCondition()
    /// Made and not yet taken, oldest first.
    private var ready: [Chunk] = []
    private var failure: AudioFileError?
    private var ended = false
    private var stopping = false
    private var running: Bool
    private let aside: Bool
    /// Reading on the caller's thread (`aside: false`): the ending still to hand over after a short last chunk, and
    /// whether the chunks are over.
    private var endingDue: Chunk?
    private var over = false
    private var buffer: [Float] = []
    /// Closures handed over to run aside (`runAside`), oldest first; whether one is running, and how many were handed
    /// over and have run.
    private var errands: [() -> Void] = []
    private var errandRunning = false
    private var errandsHandedOver = 0
    private var errandsRun = 0

    /// Chunks made ahead at most: half a second each, eight seconds of audio. A decoding thread that has made them
    /// all sleeps until half are taken: woken once per half a queue, not once per chunk (a wake-up per chunk cost
    /// more than the decoding it moved).
    public static var defaultDepth: Int { 16 }

    public init(reader: AudioFileReader, chunkLength: Int, depth: Int = ReadAhead.defaultDepth, aside: Bool = true,
                transform: @escaping (UnsafeBufferPointer<Float>) -> Product, ending: @escaping () -> Product) {
        precondition(chunkLength > 0 && depth > 0)
        self.reader = reader
        self.chunkLength = chunkLength
        self.depth = depth
        self.transform = transform
        self.ending = ending
        self.aside = aside
        running = aside
        guard aside else {
            buffer = [Float](repeating: 0, count: chunkLength)
            return
        }
        let thread = Thread { [self] in decode() }
        thread.name = "somniq-decode"
        thread.start()
    }

    /// The next chunk's product, waiting for it; `nil` after the ending. Throws the reader's error where it came.
    /// While it waits, it runs the errands waiting (`runAside`) itself: the decoding thread is the one behind.
    public func next() throws(AudioFileError) -> Chunk? {
        guard aside else { return try readHere() }
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !ended {
            if !runErrandHere() { condition.wait() }
        }
        if !ready.isEmpty {
            let chunk = ready.removeFirst()
            if ready.count == depth / 2 { condition.broadcast() }
            return chunk
        }
        if let failure { throw failure }
        return nil
    }

    /// Runs `errand` aside, after every errand handed over before it and never beside another: on the decoding thread
    /// while its queue of chunks is full or after the last chunk, or on a thread that would otherwise wait on this one
    /// (`next()`, `waitForErrands()`, `finish()`, or this call while `maximumErrands` wait already), whichever comes
    /// first. The analysis scores its windows this way (`ScoringAside`): the errands go to whichever of the two threads
    /// is ahead, so neither waits on the other while there is work, and a third busy thread on two cores would take
    /// turns with the other two.
    /// Without a decoding thread (`aside: false`), or once it has stopped, `errand` runs here and now.
    public func runAside(_ errand: @escaping () -> Void) {
        condition.lock()
        while running && errands.count >= Self.maximumErrands {
            if !runErrandHere() { condition.wait() }
        }
        guard running else {
            condition.unlock()
            return errand()
        }
        errands.append(errand)
        errandsHandedOver += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every errand handed over has run, running those still waiting itself.
    public func waitForErrands() {
        condition.lock()
        while errandsRun < errandsHandedOver {
            if !runErrandHere() { condition.wait() }
        }
        condition.unlock()
    }

    /// The next errand, taken to run, unless one is running or none waits (the lock held).
    private func takeErrand() -> (() -> Void)? {
        guard !errandRunning, !errands.isEmpty else { return nil }
        if errands.count == Self.maximumErrands { condition.broadcast() }
        errandRunning = true
        return errands.removeFirst()
    }

    /// Notes the errand taken as run, and wakes whoever waits for it or for the next (the lock held).
    private func errandDone() {
        errandRunning = false
        errandsRun += 1
        condition.broadcast()
    }

    /// Runs the next errand on this thread, releasing the lock meanwhile, if one may run now (the lock held); whether it
    /// ran one.
    private func runErrandHere() -> Bool {
        guard let errand = takeErrand() else { return false }
        condition.unlock()
        errand()
        condition.lock()
        errandDone()
        return true
    }

    /// Errands waiting at most.
    public static var maximumErrands: Int { 16 }

    /// Stops decoding (if it has not ended), runs the errands handed over (helping the decoding thread with them), and
    /// waits for the decoding thread to let go of the reader.
    public func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running {
            if !runErrandHere() { condition.wait() }
        }
        condition.unlock()
    }

    /// What the decoding thread does next: an errand, a chunk to decode, or nothing more.
    private enum Task {
        case errand(() -> Void)
        case decode
        case exit
    }

    /// The decoding thread's next task, waiting for one: a chunk while the queue has room (once full, until half is
    /// taken), else an errand (unless another thread runs one); after the last chunk, or once stopping, only errands,
    /// until stopping with none left. Decoding comes first so that the thread that takes the chunks is not kept waiting
    /// for them: while it would wait, it runs the errands itself (`next()`).
    private func nextTask(decoding: inout Bool, full: inout Bool) -> Task {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if decoding && stopping {
                decoding = false
                ended = true
                condition.broadcast()
            }
            if decoding {
                if full && ready.count <= depth / 2 { full = false }
                if !full && ready.count >= depth { full = true }
                if !full { return .decode }
            }
            if let errand = takeErrand() { return .errand(errand) }
            if !decoding && stopping && errands.isEmpty && !errandRunning {
                running = false
                condition.broadcast()
                return .exit
            }
            condition.wait()
        }
    }

    /// The next chunk read on the caller's thread (`aside: false`): what the decoding thread would have handed over next.
    private func readHere() throws(AudioFileError) -> Chunk? {
        if let due = endingDue {
            endingDue = nil
            return due
        }
        guard !over else { return nil }
        let step: Step
        do {
            step = try read(into: &buffer)
        } catch {
            over = true
            throw error
        }
        if step.ending != nil { over = true }
        guard let chunk = step.chunk else { return step.ending }
        endingDue = step.ending
        return chunk
    }

    /// One read of the recording, on whichever thread reads: the chunk `transform` made of it (none for an empty read)
    /// and, after a short or empty read, the ending.
    private struct Step {
        let chunk: Chunk?
        let ending: Chunk?
    }

    private func read(into buffer: inout [Float]) throws(AudioFileError) -> Step {
        let got = try buffer.withUnsafeMutableBufferPointer { pointer throws(AudioFileError) in try reader.read(into: pointer) }
        let position = reader.position
        let chunk = got > 0
            ? Chunk(product: buffer.withUnsafeBufferPointer { transform(UnsafeBufferPointer(rebasing: $0[0..<got])) },
                    count: got, position: position)
            : nil
        let last = got < chunkLength ? Chunk(product: ending(), count: 0, position: position) : nil
        return Step(chunk: chunk, ending: last)
    }

    private func decode() {
        var buffer = [Float](repeating: 0, count: chunkLength)
        var decoding = true, full = false
        while true {
            switch nextTask(decoding: &decoding, full: &full) {
            case .exit:
                return
            case .errand(let errand):
                errand()
                condition.lock()
                errandDone()
                condition.unlock()
            case .decode:
                do {
                    let step = try read(into: &buffer)
                    if let chunk = step.chunk {
                        condition.lock()
                        ready.append(chunk)
                        condition.broadcast()
                        condition.unlock()
                    }
                    if let ending = step.ending {
                        end(with: nil, product: ending)
                        decoding = false
                    }
                } catch {
                    end(with: error, product: nil)
                    decoding = false
                }
            }
        }
    }

    private func end(with error: AudioFileError?, product: Chunk?) {
        condition.lock()
        if let product { ready.append(product) }
        failure = error
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}
