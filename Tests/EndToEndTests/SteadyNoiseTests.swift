import Foundation
import GRDB
import Testing

/// A background is not an event: steady room noise alone, through the fitted default model.
@Suite struct SteadyNoiseTests {
    @Test(arguments: ["brown", "pink", "hum", "fan"])
    func steadyNoiseRaisesNothingUnderBalancedAndNothingAboveLowAnywhere(kind: String) throws {
        let scratch = Scratch()
        for (level, rate) in [(-55, 16_000), (-40, 44_100)] {
            let database = try CommandRunner.synthesiseAndAnalyse(
                ["noise", "--kind", kind, "--level=\(level)", "--minutes", "3", "--sample-rate", String(rate)],
                in: scratch, name: "\(kind)\(level)")
            try database.read { db in
                let strict = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM alerts WHERE profile IN ('very-conservative', 'conservative', 'balanced')
                    """)
                let aboveLow = try Row.fetchAll(db, sql: """
                    SELECT profile, class_id, tier, COUNT(*) AS alerts FROM alerts WHERE tier != 'low' GROUP BY 1, 2, 3
                    """)
                #expect(strict == 0, "\(kind) at \(level) dBFS: alerts under balanced or stricter")
                #expect(aboveLow.isEmpty, "\(kind) at \(level) dBFS: \(aboveLow)")
            }
        }
    }
}
