import SomniqDetection

extension NightSummary {
    /// The night summary of an analysed recording: its snoring events and bouts from its timeline; nil without a
    /// timeline (no level envelope: nothing is timed).
    public init?(_ data: RecordingData) {
        guard let timeline = data.timeline else { return nil }
        let snoring = data.classIDs.firstIndex(of: Self.snoringClass)
        self.init(durationSeconds: data.durationSeconds, snores: timeline.events.filter { $0.classIndex == snoring },
                  bouts: timeline.bouts.filter { $0.classIndex == snoring }, background: timeline.timing.background,
                  breathingRhythm: data.steadyBreathing)
    }
}
