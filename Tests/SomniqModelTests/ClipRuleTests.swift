import Foundation
import SomniqModel
import Testing

/// A whole clip's class: the class whose confidences, multiplied over its loud windows, are the highest, `other`
/// competing (`TopClass.clip`), the one rule `evaluate` scores clips by and `classify` reports.
@Suite struct ClipRuleTests {
    @Test func loudWindowsAreThoseWithinTenDecibelsOfTheLoudest() {
        #expect(TopClass.loudWindows(levels: [-60, -30, -35, -45]) == [false, true, true, false])
        #expect(TopClass.loudWindows(levels: [-30, -40, -40.5]) == [true, true, false], "10 dB below is still loud")
        #expect(TopClass.loudWindows(levels: [-75, -72]) == [false, true], "under -70 dBFS the loudest alone")
        #expect(TopClass.loudWindows(levels: [-120, -120]) == [true, false], "a silent clip keeps one window")
        #expect(TopClass.loudWindows(levels: []) == [])
    }

    /// Confidence rows for `classIDs`, a window each.
    func rows(_ windows: [[Float]]) -> [Float] { windows.flatMap { $0 } }

    /// A household sound heard as none of ours through its loud windows is none of ours, though one window of it
    /// sounded like a cough; with `other` aside (the headline's reading) the cough would win.
    @Test func otherCompetesForTheClip() {
        let ids = ["cough", "other"]
        let verdict = TopClass.clip(rows([[0.8, 0.3], [0.1, 0.6], [0.1, 0.7], [0.2, 0.5]]), classIDs: ids,
                                    levels: [-20, -22, -21, -25], floor: 0.2)
        #expect(verdict.label == "other")
        let geometricMean = Float(pow(0.3 * 0.6 * 0.7 * 0.5, 0.25))
        #expect(abs(verdict.confidence - geometricMean) < 1e-6, "the geometric mean over the loud windows")
        #expect(TopClass.dominant(["cough": 0.5, "other": 1.5]) == "cough")
    }

    /// The windows' confidences are multiplied, not their top classes counted: a class on top by a little in two
    /// windows and all but absent from the third loses to the runner-up that the third window is sure of.
    @Test func confidencesAreMultipliedNotTopClassesCounted() {
        let ids = ["laughter", "speech"]
        let windows: [[Float]] = [[0.55, 0.45], [0.55, 0.45], [0.01, 0.9]]
        let verdict = TopClass.clip(rows(windows), classIDs: ids, levels: [-20, -20, -20], floor: 0.2)
        #expect(verdict.label == "speech")
        #expect(abs(verdict.confidence - Float(pow(0.45 * 0.45 * 0.9, 1.0 / 3))) < 1e-6)
    }

    /// A confidence of 0 counts at `clipConfidenceFloor`: a strong vote against, which other windows can outweigh.
    @Test func aZeroConfidenceCountsAtTheFloor() {
        let ids = ["cough", "sneeze"]
        let verdict = TopClass.clip(rows([[0, 0.05], [1, 0.05], [1, 0.05], [1, 0.05], [1, 0.05]]), classIDs: ids,
                                    levels: [-20, -20, -20, -20, -20], floor: 0.2)
        #expect(verdict.label == "cough")
        #expect(verdict.confidence.isFinite && abs(verdict.confidence - pow(TopClass.clipConfidenceFloor, 0.2)) < 1e-6)
    }

    /// The pauses around a sound do not count: three quiet windows of snoring do not outweigh one loud bark.
    @Test func onlyTheLoudWindowsCount() {
        let ids = ["dog_bark", "snoring"]
        let windows: [[Float]] = [[0.05, 0.9], [0.7, 0.2], [0.05, 0.9], [0.05, 0.9]]
        let verdict = TopClass.clip(rows(windows), classIDs: ids, levels: [-45, -20, -45, -44], floor: 0.2)
        #expect(verdict.label == "dog_bark")
        #expect(abs(verdict.confidence - 0.7) < 1e-6)
        #expect(TopClass.clip(rows(windows), classIDs: ids, levels: [-25, -20, -25, -24], floor: 0.2).label == "snoring",
                "all loud: snoring is the more likely through the clip")
    }

    @Test func silenceWhenNoLoudWindowHasAnotherClassOnTop() {
        let ids = ["silence", "snoring"]
        // The first window's best is under the floor (no class on top), the second is silence; the snoring is quiet.
        let verdict = TopClass.clip(rows([[0.1, 0.15], [0.9, 0.1], [0.05, 0.9]]), classIDs: ids, levels: [-30, -31, -60], floor: 0.2)
        #expect(verdict.label == "silence")
        #expect(abs(verdict.confidence - 0.9) < 1e-6, "the mean confidence where silence is on top")
        #expect(TopClass.clip([Float](), classIDs: ids, levels: [], floor: 0.2).label == "silence")
        #expect(TopClass.clip(rows([[0.9, 0.3], [0.4, 0.6]]), classIDs: ids, levels: [-20, -20], floor: 0.2).label == "snoring",
                "silence itself never wins the pooling")
    }

    @Test func aTieGoesToTheAlphabeticallyFirstClass() {
        let verdict = TopClass.clip(rows([[0.8, 0.8]]), classIDs: ["speech", "laughter"], levels: [-20], floor: 0.2)
        #expect(verdict.label == "laughter")
    }
}
