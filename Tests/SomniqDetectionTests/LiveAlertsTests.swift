import SomniqDetection
import SomniqFeatures
import SomniqModel
import Testing

/// A recording heard as it is made (#48): the alerts raised live are the alerts of the whole recording, each once,
/// and an alert of a class the processor hears as the classifier does comes at once.
@Suite struct LiveAlertsTests {
    @Test(arguments: [UInt64(1), 2])
    func theAlertsRaisedLiveAreTheWholeRecordingsAlerts(seed: UInt64) {
        let night = RecordingTimelineHorizonTests.ScriptedNight(seed: seed)
        // A smoke alarm at 600 s, heard by the classifier for 20 s: its alert must not wait for anything.
        var confidences = night.confidences
        let smoke = RecordingTimelineHorizonTests.index("smoke_detector"), classes = night.classCount
        for window in 1_200..<1_240 { confidences[window * classes + smoke] = 0.95 }
        let model = RecordingTimelineHorizonTests.model
        for profile in defaultBundle.profiles.profiles {
            var live = LiveAlerts(profile: profile, bundle: defaultBundle)
            var raised: [(alert: Alert, at: Double)] = []
            // Two seconds of audio at a time, as a follower would hear it; the classes with a horizon heard from the
            // whole recording every ten seconds, the others window by window.
            for heard in stride(from: 2.0, through: night.seconds, by: 2) {
                let windows = AnalysisGrid(sampleRate: 16_000).windowCount(frameCount: Int64(heard * 16_000))
                let envelope = LevelEnvelope(codes: Array(night.envelope.codes.prefix(Int(heard * 100))))
                for alert in live.update(confidences: Array(confidences.prefix(windows * classes)), windowCount: windows,
                                         envelope: envelope, heardSeconds: heard) {
                    raised.append((alert, heard))
                }
            }
            let timeline = RecordingTimeline(envelope: night.envelope, model: model, confidences: confidences, windowCount: night.windows)
            let whole = ProfileRunner.run(profile: profile, bundle: defaultBundle, confidences: confidences, windowCount: night.windows,
                                          durationSeconds: night.seconds, timeline: timeline)
            let rest = live.finish(whole)
            let all = raised.map(\.alert) + rest
            for classIndex in 0..<classes {
                #expect(all.filter { $0.classIndex == classIndex } == whole.alerts.filter { $0.classIndex == classIndex },
                        "\(profile.name), \(model.classes[classIndex].id)")
            }
            #expect(all.count == whole.alerts.count)
            #expect(raised.count > rest.count, "\(profile.name): most alerts are raised live (\(raised.count) live, \(rest.count) at the end)")
            // Every alert raised live came within its horizon, the whole-recording period and an update of its window.
            for (alert, at) in raised {
                let late = at - AnalysisGrid.windowStartSeconds(alert.frame) - AnalysisGrid.windowSeconds - live.horizons[alert.classIndex]
                #expect(late <= live.timelineEverySeconds + 2, "\(profile.name), \(model.classes[alert.classIndex].id): \(late) s late")
            }
            // The smoke alarm's alert: raised in the first update after its window was heard.
            if let alarm = raised.first(where: { $0.alert.classIndex == smoke }) {
                let windowEnd = AnalysisGrid.windowStartSeconds(alarm.alert.frame) + AnalysisGrid.windowSeconds
                #expect(alarm.at - windowEnd < 2, "\(profile.name): raised \(alarm.at - windowEnd) s after its window")
                #expect(alarm.alert.frame >= 1_200 && alarm.alert.frame < 1_240)
            } else {
                #expect(!whole.alerts.contains { $0.classIndex == smoke }, "\(profile.name): the alarm's alert was not raised live")
            }
        }
    }
}
