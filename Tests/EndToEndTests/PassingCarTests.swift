import Foundation
import GRDB
import Testing

/// A passing car is not a snore: twelve cars passing a quiet room (−55 dBFS), each swelling to 20 dB over it (−35 dBFS
/// RMS over the car), through the fitted default model, raise no alert under conservative or stricter, as teeth
/// grinding must not (`TeethGrindingTests`). The looser profiles are not yet clear of them: model 2.14.0, which learnt
/// 24 synthesised cars as none of the classes, raises 1 / 3 / 8 snoring alerts under balanced / sensitive /
/// very-sensitive on this recording, all from one car (2.13.0, without cars to learn from: 3 / 6 / 17; docs/classifier-history.md's
/// "A passing car is not a snore"). The cars come from the project's synthesiser (`SoundSynthesizer.passingCar`), as
/// do the ones the model learnt, from other seeds.
@Suite struct PassingCarTests {
    @Test func passingCarsRaiseNoAlertUnderConservativeOrStricter() throws {
        let scratch = Scratch()
        let database = try CommandRunner.synthesiseAndAnalyse(
            ["bedroom-sounds", "--sound", "passing-car", "--minutes", "5", "--every", "25", "--level=-35", "--room-level=-55",
             "--sample-rate", "16000"],
            in: scratch, name: "passing-cars")
        let strict = try database.alerts(under: ["very-conservative", "conservative"])
        #expect(strict.isEmpty, "12 cars: \(strict)")
    }
}
