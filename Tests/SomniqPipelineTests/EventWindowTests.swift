@testable import SomniqLabelledAudio
import SomniqEvaluation
import Testing

/// Which one-second windows (0.5 s apart) a labelled event teaches its class to, when fitting from one's own nights.
@Suite struct EventWindowTests {
    func holds(_ onset: Double, _ offset: Double, window: Double) -> Bool {
        FitDataBuilder.windowHolds(SoundEvent(file: "n.wav", onset: onset, offset: offset, label: "cough"), start: window, end: window + 1)
    }

    /// A cough of 0.35 s fills no window half, yet the windows that hear it whole (or mostly) are its examples; before,
    /// no window was, and a night's coughs trained the other classes as none of ours.
    @Test func aShortSoundIsHeldByTheWindowsItLiesMostlyIn() {
        #expect(holds(122.0, 122.35, window: 121.5) && holds(122.0, 122.35, window: 122.0))
        #expect(!holds(122.0, 122.35, window: 121.0), "touches only its end")
        #expect(holds(122.8, 123.15, window: 122.5) && holds(122.8, 123.15, window: 122.0), "0.2 of 0.35 s inside")
        #expect(!holds(122.9, 123.25, window: 122.0), "0.1 of 0.35 s inside")
        #expect(holds(122.9, 122.9, window: 122.5) && !holds(122.9, 122.9, window: 121.5), "an instant counts where it falls")
    }

    /// A long sound is held, as before, by the windows it fills at least half of.
    @Test func aLongSoundIsHeldByTheWindowsItHalfFills() {
        #expect(holds(10.0, 68.0, window: 10.0) && holds(10.0, 68.0, window: 67.5) && holds(10.0, 68.0, window: 9.5))
        #expect(!holds(10.0, 68.0, window: 9.0) && !holds(10.0, 68.0, window: 67.6) && !holds(10.0, 68.0, window: 68.0))
    }
}
