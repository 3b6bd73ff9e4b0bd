import SomniqDetection
import SomniqStore

/// The night summary in words, as the analysis summary, the morning report and the trends say it.
public enum SnoringWords {
    /// "snore score 42: snoring 1.9 min, 51% of the night (very loud 1.0 min, light 0.9 min)"; nil for a night
    /// without a snoring bout.
    public static func score(_ summary: NightSummaryRecord) -> String? {
        guard summary.snoringMinutes > 0 else { return nil }
        let bands = zip(NightSummary.Band.allCases, summary.bandMinutes).reversed().filter { $0.1 >= 0.05 }
            .map { "\($0.0.words) \(Formatting.duration($0.1 * 60))" }
        return "snore score \(Formatting.fixed(summary.snoreScore, 0)): snoring \(Formatting.duration(summary.snoringMinutes * 60)), "
            + "\(percent(summary.snoringShare)) of the night" + (bands.isEmpty ? "" : " (\(bands.joined(separator: ", ")))")
    }

    /// The fewest other nights a night's score is placed among.
    public static let fewestOthers = 3

    /// "this night's score, 24, is lower than 10 of the 14 other nights stored, higher than 3 and the same as 1 (their
    /// median 32, from 12 to 58)", or "higher than all 14 other nights stored": a night's score placed among the others'
    /// (scores compared as they are shown, whole points); nil with fewer than `fewestOthers` others.
    public static func amongOthers(score: Double, others: [Double]) -> String? {
        guard others.count >= fewestOthers else { return nil }
        let shown = score.rounded()
        let lower = others.count { shown < $0.rounded() }, higher = others.count { shown > $0.rounded() }
        let same = others.count - lower - higher
        let sorted = others.sorted()
        let counts = [("lower than", lower), ("higher than", higher), ("the same as", same)].filter { $0.1 > 0 }
        let listed: String
        if counts.count == 1 {
            listed = "\(counts[0].0) all \(others.count) other nights stored"
        } else {
            let parts = counts.enumerated().map { index, part in
                index == 0 ? "\(part.0) \(part.1) of the \(others.count) other nights stored" : "\(part.0) \(part.1)"
            }
            listed = parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        }
        return "this night's score, \(Formatting.fixed(score, 0)), is \(listed) (their median "
            + "\(Formatting.fixed(TagComparison.Side.median(sorted) ?? 0, 0)), from \(Formatting.fixed(sorted[0], 0)) to \(Formatting.fixed(sorted[sorted.count - 1], 0)))"
    }

    /// "breathing 15 a minute (12-15) from 25 breaths between snores; 15 a minute (14-30) from 9 readings of quiet
    /// breathing's rhythm"; nil when neither was heard.
    public static func pace(_ summary: NightSummaryRecord) -> String? {
        var parts: [String] = []
        if let median = summary.breathsPerMinute, let low = summary.breathsPerMinuteLow, let high = summary.breathsPerMinuteHigh {
            parts.append("\(rate(median, low, high)) from \(summary.breathsCounted) "
                         + (summary.breathsCounted == 1 ? "breath" : "breaths") + " between snores")
        }
        if let median = summary.quietBreathsPerMinute, let low = summary.quietBreathsPerMinuteLow,
           let high = summary.quietBreathsPerMinuteHigh {
            // Each reading is a window where breathing was on top with a steady rhythm, the rhythm read over the 16 s
            // before it: a sparse sample of the breathing heard, so no length of time is claimed for it.
            let readings = summary.quietBreathingWindows
            parts.append("\(rate(median, low, high)) from \(Formatting.counted(readings, "reading")) of quiet breathing's rhythm")
        }
        return parts.isEmpty ? nil : "breathing " + parts.joined(separator: "; ") + " (an estimate from sound, not a medical measurement)"
    }

    /// "15 a minute (12-17)": the median and the 10th to 90th percentile, whole breaths.
    static func rate(_ median: Double, _ low: Double, _ high: Double) -> String {
        let range = Formatting.fixed(low, 0) == Formatting.fixed(high, 0) ? "" : " (\(Formatting.fixed(low, 0))-\(Formatting.fixed(high, 0)))"
        return "\(Formatting.fixed(median, 0)) a minute" + range
    }

    public static func percent(_ share: Double) -> String {
        let value = share * 100
        return (value > 0 && value < 1 ? "<1" : Formatting.fixed(value, 0)) + "%"
    }
}
