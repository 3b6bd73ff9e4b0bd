import SomniqFeatures

/// The snorer's figures of one night: a snore score, the time spent snoring and how loud it was, and the breathing pace
/// that the snores (and quiet breathing heard outside them) give. Computed from the night's snores and bouts, so a
/// stored night yields the same figures as the analysis that stored it.
///
/// - **Snoring time** is the time in snoring bouts. Each snore of a bout stands for its breath: the time from its onset
///   to the next snore's (the last, to the bout's end), so a bout's breaths add up to the bout.
/// - **Loudness** of a snore is its loudest 10 ms over the room's background at that moment (`BackgroundLevel`), dB.
///   A breath's time goes to the **band** of its snore: quiet under 10 dB over the room, light 10-20, loud 20-30, very
///   loud 30 and more.
/// - **Snore score** = 100 × Σ (breath time × min(loudness, 40 dB) / 40 dB) / recording time: the share of the night
///   spent snoring, each breath weighted by how loud its snore stood over the room (a snore 40 dB over it or more counts
///   whole, one 10 dB over it a quarter). 0 is a night without a snoring bout; 100 would be a whole night of snores 40
///   dB over the room. Per unit of recording time, so nights of different length compare.
/// - **Breathing pace**: snores come once a breath, so 60 s over the time between two snores of a bout is a breathing
///   rate in breaths a minute. Per bout and over the night: the median, and the 10th to 90th percentile as the range (a
///   missed snore doubles one interval; the percentiles keep it from setting the range). Where breathing is heard
///   outside the bouts with a steady rhythm, its rate from that rhythm (`breathing_period_s`). An estimate from sound,
///   not a medical measurement.
public struct NightSummary: Equatable, Sendable {
    public enum Band: String, CaseIterable, Sendable {
        case quiet, light, loud
        case veryLoud = "very_loud"

        /// The lowest loudness over the room, dB, of each band after the first.
        public static let floorsDb: [Float] = [10, 20, 30]

        public init(overRoomDb: Float) {
            let index = Self.floorsDb.lastIndex { overRoomDb >= $0 }.map { $0 + 1 } ?? 0
            self = Self.allCases[index]
        }

        /// How a person reads it: "very loud".
        public var words: String { self == .veryLoud ? "very loud" : rawValue }
    }

    /// A breathing rate over some stretch, breaths a minute: the median and the 10th to 90th percentile.
    public struct Pace: Equatable, Sendable {
        public var median: Double
        public var low: Double
        public var high: Double
        /// How many breaths (intervals between snores, or windows of a steady rhythm) it was read from.
        public var count: Int

        /// `rates` in any order; nil when there are none.
        public init?(rates: [Double]) {
            guard !rates.isEmpty else { return nil }
            let sorted = rates.sorted()
            func percentile(_ share: Double) -> Double {
                let position = share * Double(sorted.count - 1)
                let below = Int(position.rounded(.down)), above = Int(position.rounded(.up))
                return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
            }
            median = percentile(0.5)
            low = percentile(0.1)
            high = percentile(0.9)
            count = sorted.count
        }
    }

    /// A snoring bout's breathing pace.
    public struct BoutPace: Equatable, Sendable {
        public var onsetSeconds: Double
        public var offsetSeconds: Double
        public var snores: Int
        public var pace: Pace?
    }

    /// Loudness over the room at which a breath counts whole in the score, dB.
    public static let fullWeightDb: Float = 40
    /// A window's breathing rhythm is read as a pace from this periodicity up (`breathing_periodicity`, 0-1).
    public static let steadyRhythm: Float = 0.5
    /// A window's breathing rhythm is read only where breathing is the class on top at this confidence or more (as a
    /// snore counts in a bout from 0.5).
    public static let breathingConfidence: Float = 0.5

    public var durationSeconds: Double
    /// Snores within bouts: the sounds heard as snoring where snoring goes on (a lone snore-like sound is not one).
    public var snores: Int
    public var snoringSeconds: Double
    /// Seconds of snoring per band, in `Band.allCases` order.
    public var bandSeconds: [Double]
    public var score: Double
    /// The loudest snore of a bout over the room, dB; nil without one.
    public var loudestOverRoomDb: Float?
    public var bouts: [BoutPace]
    /// Breaths a minute from the snores of every bout.
    public var snoringPace: Pace?
    /// Breaths a minute from the rhythm of breathing heard outside snoring bouts.
    public var quietBreathingPace: Pace?

    public var snoringShare: Double { durationSeconds > 0 ? snoringSeconds / durationSeconds : 0 }
    public var snoresPerHour: Double { durationSeconds > 0 ? Double(snores) * 3600 / durationSeconds : 0 }

    /// - Parameters:
    ///   - snores: the snoring class's events in onset order (`bout` set for those of a bout).
    ///   - bouts: the snoring class's bouts in onset order, numbered as the events' `bout`.
    ///   - background: the room's level through the recording.
    ///   - breathingRhythm: the windows where breathing was heard with a steady rhythm; those within a snoring bout are
    ///     the snores' and are left out.
    public init(durationSeconds: Double, snores events: [RecurringEvent], bouts: [Bout], background: BackgroundLevel,
                breathingRhythm: [RhythmWindow] = []) {
        self.durationSeconds = durationSeconds
        var bandSeconds = [Double](repeating: 0, count: Band.allCases.count)
        var weighted = 0.0
        var loudest: Float?
        var allRates: [Double] = []
        var paces: [BoutPace] = []
        var snoreCount = 0
        for (index, bout) in bouts.enumerated() {
            let members = events.filter { $0.bout == index }
            var rates: [Double] = []
            for (position, snore) in members.enumerated() {
                let next = position + 1 < members.count ? members[position + 1].onsetSeconds : bout.offsetSeconds
                let breath = max(0, next - snore.onsetSeconds)
                let overRoom = snore.peakDbfs - background.at(seconds: snore.onsetSeconds)
                bandSeconds[Band.allCases.firstIndex(of: Band(overRoomDb: overRoom))!] += breath
                weighted += breath * Double(min(max(overRoom, 0), Self.fullWeightDb) / Self.fullWeightDb)
                loudest = max(loudest ?? overRoom, overRoom)
                if position + 1 < members.count, breath > 0 { rates.append(60 / breath) }
            }
            snoreCount += members.count
            allRates += rates
            paces.append(BoutPace(onsetSeconds: bout.onsetSeconds, offsetSeconds: bout.offsetSeconds, snores: members.count,
                                  pace: Pace(rates: rates)))
        }
        snores = snoreCount
        snoringSeconds = bouts.reduce(0) { $0 + $1.durationSeconds }
        self.bandSeconds = bandSeconds
        score = durationSeconds > 0 ? 100 * weighted / durationSeconds : 0
        loudestOverRoomDb = loudest
        self.bouts = paces
        snoringPace = Pace(rates: allRates)
        let outside = breathingRhythm.filter { window in
            window.periodSeconds > 0 && !bouts.contains {
                window.startSeconds < $0.offsetSeconds && $0.onsetSeconds < window.startSeconds + AnalysisGrid.windowSeconds
            }
        }
        quietBreathingPace = Pace(rates: outside.map { 60 / Double($0.periodSeconds) })
    }

    /// A window where breathing is heard with a steady rhythm: when it starts and the rhythm's period.
    public struct RhythmWindow: Equatable, Sendable {
        public var startSeconds: Double
        public var periodSeconds: Float

        public init(startSeconds: Double, periodSeconds: Float) {
            self.startSeconds = startSeconds
            self.periodSeconds = periodSeconds
        }

        /// The window `window` when breathing is its class on top (`topClass`) at `breathingConfidence` or more
        /// (`topConfidence`) and its rhythm (`breathing_periodicity`, `breathing_period_s`) is steady; nil otherwise.
        public init?(window: Int, topClass: String, topConfidence: Float, periodicity: Float, periodSeconds: Float) {
            guard topClass == NightSummary.breathingClass, topConfidence >= NightSummary.breathingConfidence,
                  periodicity >= NightSummary.steadyRhythm, periodSeconds > 0 else { return nil }
            self.init(startSeconds: AnalysisGrid.windowStartSeconds(window), periodSeconds: periodSeconds)
        }
    }

    public static let snoringClass = "snoring"
    public static let breathingClass = "breathing"
}
