import CVectorMath

/// The alarm-pattern family: `alarm_pattern_cycles`, how many cycles in a row of a standard fire, smoke or CO alarm
/// signal the recording has just heard. A smoke alarm must never be missed, and the standards prescribe what it
/// sounds like, so this is written from them rather than learnt:
///
/// - **temporal-three** (ISO 8201, NFPA 72 § 18.4.2): three 0.5 s beeps 0.5 s apart, then 1.5 s of silence, repeating
///   (a cycle of 4 s); sounded by piezo alarms near 3-3.5 kHz and by the 520 Hz low-frequency sounders required in
///   sleeping rooms;
/// - **temporal-four** (NFPA 72 § 18.4.2.2, CO alarms): four 0.1 s beeps 0.1 s apart, then 5 s of silence;
/// - **continuous beeping** (older and European detectors): a piezo beep at a steady rate, counted a cycle for every
///   three beeps.
///
/// A sub-frame (1/16 s) is *on* when a peak in a sounder's band (470-580 Hz, or 2.2-4 kHz; continuous beeping only
/// 2.8-3.9 kHz, where alarm clocks and monitors rarely beep) stands out of its neighbourhood (±1 kHz): its main lobe's
/// power per bin at least 8 dB over the rest's. The sub-frame's strongest peak is taken where it lies in a band; else
/// the strongest bin of either band, so that a beep under a louder rumble elsewhere (a fan, traffic, a snore; a sounder
/// heard through a door) is heard. That holds at any level over a fan's or the rain's broadband noise, even where the
/// tone's total power is less than the noise's. A beep is a run of two or more on
/// sub-frames whose peak stays put (within 1.5% of its frequency, or one bin); a pattern's beeps share their frequency
/// (to 4%). A run that is no beep (a voice, whose pitch glides; a held tone; a raindrop's ring for one sub-frame) and a
/// beep of another tone while the pattern's next beep is due are neither part of the pattern nor a break in it: a
/// pattern breaks when a beep of its tone comes at the wrong time, or its longest silence passes. Durations are
/// measured to the sub-frame, and the tolerances allow for it.
///
/// The count is causal: at each window's end it says what was heard up to then, in the windows that hold a beep of the
/// pattern; it starts again from 0 once the pattern's longest silence has passed without one. Only the hand-written rule that keeps an alarm from being missed reads
/// it (`always` of `smoke_detector`); the fitted scores do not.
final class AlarmPattern {
    struct Beep: Equatable {
        /// In sub-frames since the recording's start.
        var start: Int
        var end: Int
        var frequencyHz: Float
    }

    static let subframeSeconds = 1 / Float(AnalysisGrid.subframesPerSecond)
    /// The 520 Hz low-frequency sounder's band, and the piezo alarms' (the analysis rate's Nyquist frequency is 4 kHz).
    static let lowSounderHz: ClosedRange<Float> = 470...580
    static let piezoHz: ClosedRange<Float> = 2200...3990
    /// The band in which a steady beep alone (no temporal pattern) is taken for a smoke alarm.
    static let continuousPiezoHz: ClosedRange<Float> = 2800...3900
    /// How far the main lobe's power per bin must stand over its ±1 kHz neighbourhood's.
    static let prominence: Float = 6.3  // 8 dB
    static let neighbourhoodHz: Float = 1000
    /// A beep's peak may wander by this share of its frequency (or one bin); a pattern's beeps may differ in frequency
    /// by `sameTone`.
    static let steadyShare: Float = 0.015
    static let sameTone: Float = 0.04
    /// The fewest sub-frames a beep lasts, and the longest stray sub-frames that may cut one in two.
    static let shortestBeep = 2
    static let mendedGap = 1

    /// Temporal-three's beep, short silence and long silence, in seconds (measured to the sub-frame).
    static let t3Beep: ClosedRange<Float> = 0.3...0.8
    static let t3ShortGap: ClosedRange<Float> = 0.2...0.8
    static let t3LongGap: ClosedRange<Float> = 1.1...2.2
    /// Temporal-four's burst of four beeps (merged across gaps up to `t4InnerGap`) and its silence.
    static let t4InnerGap: Float = 0.25
    static let t4Burst: ClosedRange<Float> = 0.4...1.0
    static let t4Gap: ClosedRange<Float> = 4.0...6.5
    /// Continuous beeping: each beep and silence, and how far a beep's period may differ from the one before.
    static let steadyBeep: ClosedRange<Float> = 0.05...1.5
    static let steadyGap: ClosedRange<Float> = 0.1...2.0
    static let steadyPeriodChange: Float = 0.25

    private let binHz: Float
    private let lowBin: Int
    private let neighbourBins: Int
    private let halfWidthBins: Int
    /// The bins of the low-frequency sounder's band and of the piezo alarms' (the latter clipped to the spectrum).
    private let lowSounderBins: ClosedRange<Int>
    private let piezoBins: ClosedRange<Int>

    private var subframe = 0
    /// The beep being heard, if any: its start, peak bins so far, and summed frequency.
    private var runStart: Int?
    private var runMinBin = 0, runMaxBin = 0
    private var runFrequencySum: Float = 0
    /// A beep heard but not yet taken: a stray sound's sub-frame may have cut it in two, and its second half may follow.
    private var pending: Beep?
    private var lastBeep: Beep?

    private var t3Cycles = 0, t3InGroup = 0
    private var t4Cycles = 0
    private var burstStart = 0, burstEnd = 0
    /// The start of the temporal-four burst already counted (a burst counts once, when long enough).
    private var countedBurstStart: Int?
    private var steadyBeeps = 0
    private var lastPeriod: Float?

    /// - Parameters:
    ///   - binHz: width of a bin of the sub-frames' power spectra.
    ///   - minBin: the lowest bin looked at (50 Hz).
    ///   - halfWidthBins: half the width of a peak's main lobe, in bins.
    init(binHz: Float, minBin: Int, halfWidthBins: Int) {
        self.binHz = binHz
        lowBin = minBin
        neighbourBins = Int((Self.neighbourhoodHz / binHz).rounded())
        self.halfWidthBins = halfWidthBins
        func bins(_ band: ClosedRange<Float>) -> ClosedRange<Int> {
            max(minBin + 1, Int((band.lowerBound / binHz).rounded(.up)))...Int((band.upperBound / binHz).rounded(.down))
        }
        lowSounderBins = bins(Self.lowSounderHz)
        piezoBins = bins(Self.piezoHz)
    }

    /// Takes the next sub-frame: its power spectrum and strongest bin, or `nil` for a gap (digital silence).
    func add(power: UnsafeMutableBufferPointer<Float>?, peakBin: Int) {
        defer { subframe += 1 }
        if let beep = pending, subframe - beep.end > Self.mendedGap, !(runStart.map { $0 <= beep.end + Self.mendedGap } ?? false) {
            pending = nil
            take(beep)
        }
        guard let power, let bin = beepBin(power, peakBin: peakBin) else {
            endRun()
            return
        }
        // A beep at another tone (a raindrop's ring over the beep) ends the run: the beep's rest may mend it.
        if runStart != nil, Float(abs(bin - runMinBin)) > allowedWanderBins(at: bin) { endRun() }
        if runStart == nil {
            runStart = subframe
            runMinBin = bin
            runMaxBin = bin
            runFrequencySum = 0
        }
        runMinBin = min(runMinBin, bin)
        runMaxBin = max(runMaxBin, bin)
        runFrequencySum += Float(bin) * binHz
    }

    /// Cycles in a row of the pattern heard most, up to the sub-frames taken so far.
    var cycles: Int {
        let silence = Float(subframe - (lastBeep?.end ?? 0)) * Self.subframeSeconds
        // While a beep sounds, the silence before it has not yet been broken by a stray sound.
        let ongoing = runStart != nil || pending != nil
        let t3 = ongoing || silence <= Self.t3LongGap.upperBound ? t3Cycles : 0
        let t4 = ongoing || silence <= Self.t4Gap.upperBound ? t4Cycles : 0
        let steady = ongoing || silence <= Self.steadyGap.upperBound ? steadyBeeps / 3 : 0
        return max(t3, t4, steady)
    }

    /// `alarm_pattern_cycles` of the window that ends with the sub-frames taken so far: `cycles` where the window holds
    /// a beep of the pattern's tone, else 0. The silences between beeps do not hold the count up: a window of the long
    /// pause after the alarm's last beep is no alarm, so its episode ends with its sound.
    func measure(into features: inout FeatureVector) {
        let window = AnalysisGrid.subframesPerSecond
        let lastHeard = runStart != nil && runMatchesPattern ? subframe : max(pending?.end ?? -window, lastBeep?.end ?? -window)
        features[.alarmPatternCycles] = subframe - lastHeard < window ? Float(cycles) : 0
    }

    /// Whether the run being heard is at the pattern's tone (or there is no pattern yet).
    private var runMatchesPattern: Bool {
        guard let tone = pending?.frequencyHz ?? lastBeep?.frequencyHz, runStart != nil else { return true }
        return abs(runFrequencySum / Float(max(1, subframe - runStart!)) / tone - 1) <= Self.sameTone
    }

    /// The bin a beep sounds at in this sub-frame: its strongest peak, where that lies in a sounder's band and stands out
    /// of its neighbourhood; else the strongest bin of either band that is a peak and stands out (the louder of the
    /// two), for a tone under a louder rumble elsewhere (a fan, traffic, a snore: a piezo's beep from the next room
    /// may be under the room's level and still far over the room's share of its band); nil when none does.
    private func beepBin(_ power: UnsafeMutableBufferPointer<Float>, peakBin: Int) -> Int? {
        if inSounderBand(peakBin), standsOut(power, at: peakBin) { return peakBin }
        let low = bandPeak(power, in: lowSounderBins, besides: peakBin)
        let piezo = bandPeak(power, in: piezoBins, besides: peakBin)
        guard let low, let piezo else { return low ?? piezo }
        return power[piezo] > power[low] ? piezo : low
    }

    /// The strongest bin of `band` where it is a peak other than `peakBin` and stands out of its neighbourhood.
    private func bandPeak(_ power: UnsafeMutableBufferPointer<Float>, in band: ClosedRange<Int>, besides peakBin: Int) -> Int? {
        let top = min(band.upperBound, power.count - 2)
        guard band.lowerBound <= top else { return nil }
        let bin = band.lowerBound + somniq_first_maximum(power.baseAddress! + band.lowerBound, top - band.lowerBound + 1)
        guard bin != peakBin, power[bin] >= power[bin - 1], power[bin] >= power[bin + 1], standsOut(power, at: bin) else { return nil }
        return bin
    }

    private func inSounderBand(_ bin: Int) -> Bool {
        let hz = Float(bin) * binHz
        return Self.lowSounderHz.contains(hz) || Self.piezoHz.contains(hz)
    }

    /// Whether the peak at `bin` stands out of its neighbourhood: its main lobe's power per bin `prominence` times the
    /// rest's, within `neighbourhoodHz` either side.
    private func standsOut(_ power: UnsafeMutableBufferPointer<Float>, at bin: Int) -> Bool {
        let lobe = max(lowBin, bin - halfWidthBins)...min(power.count - 1, bin + halfWidthBins)
        let around = max(lowBin, bin - neighbourBins)...min(power.count - 1, bin + neighbourBins)
        var lobePower: Float = 0
        for bin in lobe { lobePower += power[bin] }
        let restBins = around.count - lobe.count
        guard restBins > 0, lobePower > 0 else { return false }
        let lobeMean = lobePower / Float(lobe.count)
        // Most sub-frames hold no tone, and their neighbourhood passes the most it may hold long before its end: the
        // sum stops there. The bound is 1% over the exact test's, so the answer is the one the whole sum gives (a sum
        // of powers only grows, and its rounding is far under 1%); the sum itself is taken in the same order.
        let most = lobePower + lobeMean * Float(restBins) / Self.prominence * 1.01
        var aroundPower: Float = 0
        var next = around.lowerBound
        while next <= around.upperBound {
            let end = min(next + 31, around.upperBound)
            for bin in next...end { aroundPower += power[bin] }
            if aroundPower > most { return false }
            next = end + 1
        }
        let rest = max(aroundPower - lobePower, 0) / Float(restBins)
        return lobeMean >= Self.prominence * rest
    }

    private func endRun() {
        guard let start = runStart else { return }
        runStart = nil
        let beep = Beep(start: start, end: subframe, frequencyHz: runFrequencySum / Float(subframe - start))
        guard subframe - start >= Self.shortestBeep,
              Float(runMaxBin - runMinBin) <= allowedWanderBins(at: runMinBin) else { return }
        if var mended = pending, beep.start - mended.end <= Self.mendedGap,
           abs(beep.frequencyHz / mended.frequencyHz - 1) <= Self.steadyShare + binHz / mended.frequencyHz {
            mended.end = beep.end
            pending = mended
        } else {
            if let earlier = pending { take(earlier) }
            pending = beep
        }
    }

    /// How far a beep's peak may wander around `bin`, in bins.
    private func allowedWanderBins(at bin: Int) -> Float { max(1, Self.steadyShare * Float(bin)) }

    private func reset() {
        t3Cycles = 0
        t3InGroup = 0
        t4Cycles = 0
        steadyBeeps = 0
        lastPeriod = nil
        lastBeep = nil
    }

    private func seconds(_ from: Int, _ to: Int) -> Float { Float(to - from) * Self.subframeSeconds }

    /// A new beep, against the ones before it.
    private func take(_ beep: Beep) {
        guard Self.steadyBeep.contains(seconds(beep.start, beep.end)) else { return }
        guard let previous = lastBeep, abs(beep.frequencyHz / previous.frequencyHz - 1) <= Self.sameTone else {
            if let previous = lastBeep, seconds(previous.end, beep.start) <= Self.t4Gap.upperBound { return }
            reset()
            startPatterns(with: beep)
            lastBeep = beep
            return
        }
        defer { lastBeep = beep }
        let gap = seconds(previous.end, beep.start)
        let length = seconds(beep.start, beep.end)

        // Temporal-three: beeps 2 and 3 of a group follow a short silence; a group's first follows a long one.
        if Self.t3Beep.contains(length) {
            if Self.t3ShortGap.contains(gap), (1...2).contains(t3InGroup) {
                t3InGroup += 1
                if t3InGroup == 3 { t3Cycles += 1 }
            } else if Self.t3LongGap.contains(gap), t3InGroup == 3 {
                t3InGroup = 1
            } else {
                t3Cycles = 0
                t3InGroup = 1
            }
        } else {
            t3Cycles = 0
            t3InGroup = 0
        }

        // Temporal-four: beeps close together make one burst; bursts of the right length follow the long silence.
        if gap <= Self.t4InnerGap {
            burstEnd = beep.end
            if seconds(burstStart, burstEnd) > Self.t4Burst.upperBound { t4Cycles = 0 }
        } else {
            let burst = seconds(burstStart, burstEnd)
            if Self.t4Burst.contains(burst) {
                if !Self.t4Gap.contains(gap) { t4Cycles = 0 }
            } else {
                t4Cycles = 0
            }
            burstStart = beep.start
            burstEnd = beep.end
        }
        // A burst counts once it is long enough (its last beeps may still come).
        if gap > Self.t4InnerGap || seconds(burstStart, burstEnd) >= Self.t4Burst.lowerBound {
            countBurstIfComplete()
        }

        // Continuous beeping: every beep at about the same period as the one before.
        let period = seconds(previous.start, beep.start)
        if Self.continuousPiezoHz.contains(beep.frequencyHz), Self.steadyBeep.contains(length), Self.steadyGap.contains(gap),
           lastPeriod.map({ abs(period / $0 - 1) <= Self.steadyPeriodChange }) ?? true {
            steadyBeeps = max(steadyBeeps, 1) + 1
        } else {
            steadyBeeps = Self.continuousPiezoHz.contains(beep.frequencyHz) ? 1 : 0
        }
        lastPeriod = period
    }

    private func countBurstIfComplete() {
        guard Self.t4Burst.contains(seconds(burstStart, burstEnd)), countedBurstStart != burstStart else { return }
        countedBurstStart = burstStart
        t4Cycles += 1
    }

    private func startPatterns(with beep: Beep) {
        t3InGroup = Self.t3Beep.contains(seconds(beep.start, beep.end)) ? 1 : 0
        burstStart = beep.start
        burstEnd = beep.end
        countedBurstStart = nil
        steadyBeeps = Self.continuousPiezoHz.contains(beep.frequencyHz) ? 1 : 0
        countBurstIfComplete()
    }
}
