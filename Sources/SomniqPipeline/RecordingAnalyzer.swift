import Foundation
import SomniqAudio
import SomniqDetection
import SomniqFeatures
import SomniqModel
import SomniqStore

/// Decodes and classifies one recording: audio file in, per-window features and class
/// confidences out. Decoding streams block by block; nothing of the audio is kept.
public struct RecordingAnalyzer: Sendable {
    public let bundle: ModelBundle
    private let classifier: Classifier
    /// Whether a file holding less audio than its header promises (a recorder that crashed, a phone that died) is
    /// analysed as far as it goes (`RecordingData.declaredFrameCount` then says what was promised) rather than
    /// refused as truncated.
    public var acceptsCutShort: Bool
    /// The time zone of a start time given without one: a date and time in the file name, or a recorder's own chunk
    /// (`RecordingStartTime`).
    public var timeZone: TimeZone
    /// Whether the model reads the spectrum's shape band by band (`FeatureID.bandShapes`); an analysis that keeps no
    /// whole feature rows leaves those features unmeasured when it does not.
    private let modelReadsBandShapes: Bool

    public init(bundle: ModelBundle, acceptsCutShort: Bool = true, timeZone: TimeZone = .current) {
        self.bundle = bundle
        classifier = Classifier(model: bundle.classifier)
        self.acceptsCutShort = acceptsCutShort
        self.timeZone = timeZone
        modelReadsBandShapes = !bundle.classifier.readFeatures.isDisjoint(with: FeatureID.bandShapes)
    }

    /// Whether an analysis keeping `keeping` measures `FeatureID.bandShapes`: when the model reads them, or whole rows
    /// are kept (`classify --features`, fitting, following a night). A database never keeps them (`FeatureID.stored`).
    func measuresBandShapes(keeping: FeatureKeeping) -> Bool {
        modelReadsBandShapes || keeping == .inMemory
    }

    /// Analyses the file at `path`.
    /// - Parameters:
    ///   - explicitStart: the recording's start time, overriding what the file name or metadata say.
    ///   - isCancelled: asked every few seconds of audio; when it says yes, decoding stops with `.interrupted`.
    ///   - progress: called after every minute of audio decoded, with the seconds decoded and the file's duration.
    ///   - keeping: where the windows' feature rows go (`FeatureKeeping`): memory, a temporary file, or nowhere.
    ///   - timed: whether to find the recording's events and episode timing (`RecordingData.timeline`) now; without,
    ///     the caller does (`timeline(envelope:confidences:windowCount:)`), perhaps on another thread.
    ///   - channel: the one channel to analyse (from 1), rather than the mix of all (`AudioFileReader.readOnly(channel:)`).
    ///   - threaded: whether the decoding and the trees run on a thread of their own beside the features (`ReadAhead`,
    ///     `ScoringAside`), so that one night uses two cores; without, all runs on the calling thread, in less CPU
    ///     time (what a batch whose jobs fill the cores wants). The results are the same, bit for bit.
    public func analyze(path: String, explicitStart: Date? = nil, isCancelled: (() -> Bool)? = nil,
                        progress: ((_ decodedSeconds: Double, _ durationSeconds: Double) -> Void)? = nil,
                        keeping: FeatureKeeping = .inMemory, timed: Bool = true, channel: Int? = nil,
                        threaded: Bool = true) throws(AudioFileError) -> RecordingData {
        let absolutePath = URL(fileURLWithPath: path).standardizedFileURL.path
        // The file's identity (size, modification time) before and after reading: what is stored describes the audio
        // read, and a file rewritten meanwhile (its old audio's hash with its new time) would read as done ever after.
        let before = Self.identity(absolutePath)
        let reader = try AudioFileReader(path: absolutePath, acceptCutShort: acceptsCutShort)
        if let channel { try reader.readOnly(channel: channel) }
        var format = reader.format
        let start = startTime(explicit: explicitStart, path: absolutePath, reader: reader, durationSeconds: format.durationSeconds)
        let expectedWindows = AnalysisGrid(sampleRate: format.sampleRate).windowCount(frameCount: format.frameCount)
        var accumulator = WindowAccumulator(analyzer: self, sampleRate: format.sampleRate, expectedWindows: expectedWindows,
                                            keeping: keeping)
        defer { accumulator.stopScoringAside() }
        accumulator.stream.reserveEnvelope(frames: format.frameCount)
        // Decoding runs a few chunks ahead on a thread of its own (`ReadAhead`), on the chunks a plain read loop gives,
        // and so does the conditioning (`SourceConditioner`): the DC offset always, the resampling up to
        // `resamplesWhileDecodingUpToRate`; above it, the resampling is done here, beside the features. Either way the
        // results are the same, bit for bit.
        let conditioner = accumulator.stream.conditioner
        let resamplesWhileDecoding = !threaded || format.sampleRate <= Self.resamplesWhileDecodingUpToRate
        let readAhead = ReadAhead(reader: reader, chunkLength: AnalysisGrid(sampleRate: format.sampleRate).maximumBlockLength,
                                  aside: threaded, transform: { samples -> DecodedChunk in
                                      if resamplesWhileDecoding {
                                          var pieces: [SourceConditioner.Piece] = []
                                          conditioner.condition(samples) { pieces.append($0) }
                                          return .conditioned(pieces)
                                      }
                                      var stretches: [(samples: [Float], levels: SourceConditioner.Levels)] = []
                                      conditioner.unbias(samples) { stretches.append((Array($0), $1)) }
                                      return .unbiased(stretches)
                                  }, ending: { resamplesWhileDecoding ? .conditioned([conditioner.finish()]) : .ended })
        defer { readAhead.finish() }
        // The trees, and the rows headed for the database, as errands (`ScoringAside`): on the decoding thread, or on this
        // one while it waits for a chunk.
        if threaded { accumulator.scoreAside(on: readAhead) }
        var chunks: Int64 = 0
        let progressEvery: Int64 = 120  // half-second chunks: every minute of audio
        while let chunk = try readAhead.next() {
            switch chunk.product {
            case .conditioned(let pieces):
                for piece in pieces { accumulator.feed(piece) }
            case .unbiased(let stretches):
                for stretch in stretches {
                    let piece = stretch.samples.withUnsafeBufferPointer { conditioner.resample($0, levels: stretch.levels) }
                    if let piece { accumulator.feed(piece) }
                }
            case .ended:
                accumulator.feed(conditioner.finish())
            }
            chunks += 1
            if let progress, chunks % progressEvery == 0 {
                progress(Double(chunk.position) / Double(format.sampleRate), format.durationSeconds)
            }
            if let isCancelled, chunks % 20 == 0, isCancelled() { throw .interrupted(path: absolutePath) }
        }
        readAhead.finish()
        accumulator.finishFed()
        if reader.format.frameCount < format.frameCount {
            // The audio ended before the header said it would: the recording is what was read.
            format = reader.format
            accumulator.keepWindows(AnalysisGrid(sampleRate: format.sampleRate).windowCount(frameCount: format.frameCount))
        }
        let gridWindows = AnalysisGrid(sampleRate: format.sampleRate).windowCount(frameCount: format.frameCount)
        precondition(accumulator.windowCount == gridWindows,
                     "window count \(accumulator.windowCount) differs from the grid's \(gridWindows)")

        let after = Self.identity(absolutePath)
        guard let after, after == before else { throw .changedWhileRead(path: absolutePath) }
        var data = RecordingData(
            path: absolutePath, container: format.container, encoding: format.encoding, sampleRate: format.sampleRate,
            channelCount: format.channelCount, frameCount: format.frameCount, durationSeconds: format.durationSeconds,
            startMilliseconds: Int64((start.date.timeIntervalSince1970 * 1000).rounded()), startSource: start.source.rawValue,
            windowCount: accumulator.windowCount, featureIDs: keeping.featureIDs,
            features: accumulator.features, classIDs: bundle.classifier.classIDs, confidences: accumulator.confidences,
            featureSpool: accumulator.spool)
        data.undetectableClasses = accumulator.undetectableClasses
        data.envelope = accumulator.stream.envelope
        if timed { data.timeline = timeline(envelope: data.envelope, confidences: data.confidences, windowCount: data.windowCount) }
        data.steadyBreathing = accumulator.steadyBreathing
        data.contentHash = reader.contentHash
        data.declaredFrameCount = reader.declaredFrameCount
        data.channel = reader.channel.map { $0 + 1 }
        data.faults = RecordingFaults(fullScaleShare: reader.fullScaleShare, readsReachingFullScale: reader.readsReachingFullScale,
                                      mixBelowChannelsDecibels: reader.mixBelowChannelsDecibels)
        data.fileSize = after.size
        data.fileModified = after.modified
        return data
    }

    /// What the decoding thread hands over for a chunk: its conditioned pieces, or its stretches with the DC offset
    /// taken off (`SourceConditioner.unbias`), to be resampled on the analysis's thread; after the last chunk, the
    /// conditioning's tail, or `.ended`.
    private enum DecodedChunk {
        case conditioned([SourceConditioner.Piece])
        case unbiased([(samples: [Float], levels: SourceConditioner.Levels)])
        case ended
    }

    /// Above this rate, the resampling runs beside the features rather than beside the decoding: resampling 44.1 or
    /// 48 kHz costs about as much as decoding it, and the decoding thread, with both, set the pace while the features'
    /// thread waited (docs/performance.md). At 16 kHz and below, the features are the longer thread.
    static let resamplesWhileDecodingUpToRate = 32_000

    /// When the recording at `path` began, by the order `analyze` reads it (without a start given), its file opened
    /// but not decoded; `nil` when it cannot be opened.
    public func startTime(path: String, durationSeconds: Double) -> RecordingStartTime? {
        guard let reader = try? AudioFileReader(path: path, acceptCutShort: true) else { return nil }
        return startTime(explicit: nil, path: path, reader: reader, durationSeconds: durationSeconds)
    }

    private func startTime(explicit: Date?, path: String, reader: AudioFileReader, durationSeconds: Double) -> RecordingStartTime {
        RecordingStartTime.resolve(explicit: explicit, path: path, metadataDate: reader.metadataStartDate(timeZone: timeZone),
                                   durationSeconds: durationSeconds, timeZone: timeZone)
    }

    /// What a follower has heard so far of a recording in progress: the whole windows' confidences (row-major) and
    /// the level envelope of `heardSeconds` of audio.
    public struct Heard {
        public var windowCount: Int
        public var confidences: [Float]
        /// The whole windows' feature rows (row-major, `FeatureID` order): a view of the analysis's own, to be read
        /// before the next update rather than kept.
        public var features: ArraySlice<Float>
        public var envelope: LevelEnvelope
        public var heardSeconds: Double
        /// Frames of audio heard (at the recording's own rate).
        public var frames: Int64
    }

    /// Decodes and classifies audio heard as it comes (a file another program is still writing, raw PCM on a pipe:
    /// `LiveAudio`), as `analyze(path:)` does, and hands what has been heard to `update` every `updateSeconds` of audio
    /// (at most once every `minimumInterval` of wall-clock time: a follow begun hours into a recording catches up at
    /// decoding speed, and each update reads all that was heard), whenever the reader is about to wait for more, and
    /// once more at the end. Returns what was heard in all. Stops where the audio ends (a file's header finalised, the
    /// pipe closed, nothing come for a while, or stopped).
    public func follow(audio reader: some LiveAudio, updateSeconds: Double = 0.25, minimumInterval: Double = 0.25,
                       update: (Heard) -> Void) throws(AudioFileError) -> Heard {
        let rate = reader.sampleRate
        // The recording's length is not known: room for an hour's windows, grown as the night goes on.
        var accumulator = WindowAccumulator(analyzer: self, sampleRate: rate, expectedWindows: 7_200, keeping: .inMemory)
        var buffer = [Float](repeating: 0, count: AnalysisGrid(sampleRate: rate).maximumBlockLength)
        var frames: Int64 = 0, reported: Int64 = 0, lastUpdate = Date.distantPast
        let every = Int64(updateSeconds * Double(rate))
        func heard() -> Heard {
            accumulator.classifyPending()
            return Heard(windowCount: accumulator.windowCount,
                  confidences: Array(accumulator.confidences.prefix(accumulator.windowCount * accumulator.classCount)),
                  features: accumulator.features[...], envelope: accumulator.stream.envelope,
                  heardSeconds: Double(frames) / Double(rate), frames: frames)
        }
        // Before the reader waits for more audio, all that was read is handed over: audio that came faster than the
        // updates (a follow catching up, a recorder writing in bursts) is not held back until the next burst.
        try withoutActuallyEscaping(update) { update throws(AudioFileError) in
            reader.beforeWaiting = {
                guard frames > reported else { return }
                reported = frames
                lastUpdate = Date()
                update(heard())
            }
            defer { reader.beforeWaiting = nil }
            while true {
                let got = try buffer.withUnsafeMutableBufferPointer { pointer throws(AudioFileError) in try reader.read(into: pointer) }
                guard got > 0 else { break }
                buffer.withUnsafeBufferPointer { accumulator.consume(UnsafeBufferPointer(rebasing: $0[0..<got])) }
                frames += Int64(got)
                if frames - reported >= every, Date().timeIntervalSince(lastUpdate) >= minimumInterval {
                    reported = frames
                    lastUpdate = Date()
                    update(heard())
                }
            }
        }
        accumulator.finish()
        let final = heard()
        update(final)
        return final
    }

    /// A file's size and modification time (as `BatchAnalyzer` compares them to what is stored), or `nil` when they
    /// cannot be read.
    struct FileIdentity: Equatable {
        let size: Int64
        let modified: Double
    }

    static func identity(_ path: String) -> FileIdentity? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.int64Value,
              let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 else { return nil }
        return FileIdentity(size: size, modified: modified)
    }

    /// Analyses audio already in memory (mono samples at `sampleRate`): the features and confidences `analyze(path:)`
    /// would give for a file holding them. For short material such as training clips and their augmented copies.
    public func analyze(samples: [Float], sampleRate: Int)
        -> (windowCount: Int, features: [Float], confidences: [Float], envelope: LevelEnvelope,
            steadyBreathing: [NightSummary.RhythmWindow]) {
        let frames = Int64(samples.count)
        var accumulator = WindowAccumulator(analyzer: self, sampleRate: sampleRate,
                                            expectedWindows: AnalysisGrid(sampleRate: sampleRate).windowCount(frameCount: frames),
                                            keeping: .inMemory)
        samples.withUnsafeBufferPointer { accumulator.consume($0) }
        accumulator.finish()
        return (accumulator.windowCount, accumulator.features, accumulator.confidences, accumulator.stream.envelope,
                accumulator.steadyBreathing)
    }

    /// The whole analysis of audio in memory, as `analyze(path:)` gives it for a file holding these samples (named `name`).
    public func analyzeRecording(samples: [Float], sampleRate: Int, name: String = "memory") -> RecordingData {
        let analysis = analyze(samples: samples, sampleRate: sampleRate)
        var data = RecordingData(
            path: name, container: "memory", encoding: "float32", sampleRate: sampleRate, channelCount: 1,
            frameCount: Int64(samples.count), durationSeconds: Double(samples.count) / Double(sampleRate), startMilliseconds: 0,
            startSource: "explicit", windowCount: analysis.windowCount, featureIDs: FeatureID.allCases.map(\.rawValue),
            features: analysis.features, classIDs: bundle.classifier.classIDs, confidences: analysis.confidences)
        data.undetectableClasses = undetectableClasses(sampleRate: sampleRate)
        data.envelope = analysis.envelope
        data.timeline = timeline(envelope: analysis.envelope, confidences: analysis.confidences, windowCount: analysis.windowCount)
        data.steadyBreathing = analysis.steadyBreathing
        return data
    }

    /// Classes of the model that a recording at `sampleRate` cannot hear (their `bandHz` above its Nyquist frequency).
    public func undetectableClasses(sampleRate: Int) -> [String] {
        bundle.classifier.classes.filter { definition in
            definition.status != .unsupported && definition.bandHz.map { !FeatureStream.hears(hertz: $0, sampleRate: sampleRate) } ?? false
        }.map(\.id)
    }

    /// Features and confidences of one recording, window by window, as the stream of samples completes them.
    private struct WindowAccumulator {
        let stream: FeatureStream
        let classCount: Int
        let spool: FeatureSpool?
        let undetectableClasses: [String]
        var features: [Float] = []
        /// Scores the windows on this thread, or hands them to `scoring` (`scoreAside(on:)`), which gives the scorer back
        /// at `finishFed()`.
        private var scorer: WindowScorer
        private var scoring: ScoringAside?
        /// Row-major, with room for windows not yet heard (`windowCount` are): complete once `classifyPending` has run
        /// (every reader of the accumulator's windows calls it first) or, scored aside, once `finishFed` has.
        var confidences: [Float] { scorer.confidences }
        /// The windows where breathing is heard with a steady rhythm (`NightSummary.RhythmWindow`): the night summary's
        /// quiet breathing, noted as the windows pass so that no feature row is read again.
        var steadyBreathing: [NightSummary.RhythmWindow] { scorer.steadyBreathing }
        /// Windows whose features are in.
        var windowCount = 0
        /// The last windows' features, not yet scored.
        private var pending: [FeatureVector] = []

        private let keepsFeatures: Bool
        private let keepsLevels: Bool
        /// The row a database keeps of the last window (`FeatureID.stored`), reused (when not scored aside).
        private var storedRow: [Float] = []

        init(analyzer: RecordingAnalyzer, sampleRate: Int, expectedWindows: Int, keeping: FeatureKeeping) {
            stream = FeatureStream(sampleRate: sampleRate, bandShapes: analyzer.measuresBandShapes(keeping: keeping))
            spool = keeping == .spooled ? FeatureSpool(width: FeatureID.stored.count) : nil
            keepsFeatures = keeping == .inMemory
            keepsLevels = keeping == .levels
            if keepsFeatures { features.reserveCapacity(expectedWindows * FeatureID.count) }
            if keepsLevels { features.reserveCapacity(expectedWindows) }
            undetectableClasses = analyzer.undetectableClasses(sampleRate: sampleRate)
            let ids = analyzer.bundle.classifier.classIDs
            scorer = WindowScorer(classifier: analyzer.classifier, classIDs: ids,
                                  silencedClasses: undetectableClasses.compactMap { ids.firstIndex(of: $0) },
                                  expectedWindows: expectedWindows)
            classCount = scorer.classCount
        }

        /// Scores the windows to come, and writes their stored rows, as `readAhead`'s errands (`ScoringAside`).
        mutating func scoreAside<Product>(on readAhead: ReadAhead<Product>) {
            precondition(windowCount == 0 && scoring == nil, "scored aside from the first window")
            scoring = ScoringAside(scorer: scorer, spool: spool, on: readAhead)
            // The errands' scorer is the one that fills; this one's room would be a second copy of every row.
            scorer.confidences = []
        }

        mutating func consume(_ samples: UnsafeBufferPointer<Float>) {
            stream.consume(samples) { emit($0) }
        }

        mutating func finish() {
            stream.finish { emit($0) }
            classifyPending()
        }

        /// Analyses a piece the stream's conditioner made elsewhere (pieces in order, its last one included).
        mutating func feed(_ piece: SourceConditioner.Piece) {
            stream.feed(piece) { emit($0) }
        }

        /// Ends the analysis once every piece has been fed: every window scored.
        mutating func finishFed() {
            stream.finishAnalysis { emit($0) }
            classifyPending()
            stopScoringAside()
        }

        /// Waits for the scoring thread (if scoring aside) to score what it was given, and takes its scorer back; what
        /// an analysis stopped early (an error, a cancel) calls too, so that no thread is left waiting.
        mutating func stopScoringAside() {
            guard let scoring else { return }
            scorer = scoring.finish()
            self.scoring = nil
        }

        /// Drops the room kept for windows the audio never reached.
        mutating func keepWindows(_ count: Int) {
            scorer.confidences.removeLast(scorer.confidences.count - count * classCount)
        }

        private mutating func emit(_ vector: FeatureVector) {
            if let spool {
                // Scored aside, the scoring thread writes the row.
                if scoring == nil { spool.appendStored(of: vector, using: &storedRow) }
            } else if keepsFeatures {
                features.append(contentsOf: vector.values)
            } else if keepsLevels {
                features.append(vector[.rmsDbfs])
            }
            pending.append(vector)
            windowCount += 1
            if pending.count == (scoring == nil ? Classifier.batchSize : ScoringAside.jobLength) { classifyPending() }
        }

        /// Scores the windows whose features came since the last call, or hands them to the scoring thread.
        mutating func classifyPending() {
            guard !pending.isEmpty else { return }
            if let scoring {
                scoring.submit(pending)
                pending = []
                pending.reserveCapacity(ScoringAside.jobLength)
            } else {
                pending.withUnsafeBufferPointer { scorer.score($0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The recording's events, bouts and episode timing under this model (none without an envelope).
    public func timeline(envelope: LevelEnvelope, confidences: [Float], windowCount: Int) -> RecordingTimeline? {
        guard !envelope.isEmpty else { return nil }
        return RecordingTimeline(envelope: envelope, model: bundle.classifier, confidences: confidences, windowCount: windowCount)
    }

    /// Runs `profiles` on the recording's per-window confidences (no decoding); episodes are timed from its envelope.
    public func runProfiles(_ profiles: [SensitivityProfile], on data: RecordingData) -> [ProfileResult] {
        let timeline = data.timeline ?? timeline(envelope: data.envelope, confidences: data.confidences, windowCount: data.windowCount)
        return profiles.map { profile in
            ProfileRunner.run(profile: profile, bundle: bundle, confidences: data.confidences,
                              windowCount: data.windowCount, durationSeconds: data.durationSeconds, timeline: timeline)
        }
    }
}
