import Foundation
import SomniqFeatures
import SomniqPipeline
import Testing

/// The line `follow` keeps current on a terminal.
@Suite struct FollowStatusTests {
    @Test func theLineSaysWhatWasHeardStoredAndRaised() {
        let night = FollowStatus(heardSeconds: 7_985, storedSeconds: 7_950, lastSecondDbfs: -52.3, alerts: 4,
                                 lastAlert: ("snoring", 4_353))
        #expect(night.line == "heard 2:13:05.0, the last second at -52 dBFS; stored to 2:12:30.0; 4 alerts, the last snoring at +1:12:33.0")
        let starting = FollowStatus(heardSeconds: 0.5, storedSeconds: 0, lastSecondDbfs: nil, alerts: 0, lastAlert: nil)
        #expect(starting.line == "heard 0:00.5; stored to 0:00.0; 0 alerts")
        let muted = FollowStatus(heardSeconds: 60, storedSeconds: 60, lastSecondDbfs: -127.5, alerts: 1, lastAlert: ("cough", 12))
        #expect(muted.line == "heard 1:00.0, the last second silent (no signal: is the input muted?); stored to 1:00.0; 1 alert, the last cough at +0:12.0")
    }

    /// The last second's level is the power mean of its hundred 10 ms levels: half of it at -40 dBFS and half silent
    /// is 3 dB under -40, not their average in decibels.
    @Test func theLastSecondIsItsLevelsPowerMean() throws {
        var envelope = LevelEnvelope()
        for _ in 0..<99 { envelope.append(dbfs: -20) }
        #expect(FollowStatus.lastSecondDbfs(envelope) == nil, "less than a second heard")
        for _ in 0..<100 { envelope.append(dbfs: -40) }
        #expect(abs(try #require(FollowStatus.lastSecondDbfs(envelope)) - -40) < 1e-4, "only the last second counts")
        for _ in 0..<50 { envelope.append(dbfs: -127.5) }
        let half = try #require(FollowStatus.lastSecondDbfs(envelope))
        #expect(abs(half - (-40 - 10 * log10(2))) < 1e-3, "\(half)")
    }
}
