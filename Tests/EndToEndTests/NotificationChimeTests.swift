import Foundation
import GRDB
import Testing

/// A phone's or a laptop's ding is not a sob, a smoke alarm or a siren: notification chimes in a quiet room, through
/// the fitted default model. The chimes here come from the same synthesiser `fit` learns chimes from (other seeds), so
/// this checks what the model learnt, not how far it carries to recorded chimes; the development set has none.
/// (The hand-written speech rule still puts speech on top in a few of their windows: see docs/classifier-history.md.)
@Suite struct NotificationChimeTests {
    @Test(arguments: [16_000, 44_100])
    func chimesRaiseNoAlertUnderBalancedAndNoUrgentEpisodeAnywhere(rate: Int) throws {
        let scratch = Scratch()
        let database = try CommandRunner.synthesiseAndAnalyse(
            ["chimes", "--minutes", "3", "--every", "10", "--sample-rate", String(rate)],
            in: scratch, name: "chimes-\(rate)")
        let strict = try database.alerts(under: ["very-conservative", "conservative", "balanced"])
        let urgent = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT profile, class_id, COUNT(*) AS episodes FROM episodes WHERE tier IN ('high', 'critical') GROUP BY 1, 2
                """)
        }
        #expect(strict.isEmpty, "18 chimes at \(rate) Hz: \(strict)")
        #expect(urgent.isEmpty, "18 chimes at \(rate) Hz: \(urgent)")
    }
}
