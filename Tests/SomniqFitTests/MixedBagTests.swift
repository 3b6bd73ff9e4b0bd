import Foundation
import SomniqFit
import SomniqModel
import Testing

/// A clip of a mixed bag (`FitDataset.Clip.uncertainClasses`: a dataset's "not snoring" folder of cries, talking and
/// clocks, which one not known clip by clip) teaches nothing, either way, about the classes it may hold, and stays a
/// counter-example of every other class and an example of `other`.
@Suite struct MixedBagTests {
    /// `thresholdDataset` and ten clips of no class that sound like its coughs (centroid 1,200–1,650 Hz).
    func withBag(holding classes: Set<String>) -> FitDataset {
        var dataset = thresholdDataset()
        for index in 0..<10 {
            let windows = (0..<4).map { window in row(snr: Float(window * 3), centroid: 1200 + Float(index * 50 + window)) }
            var clip = FitDataset.Clip(path: "bag\(index).wav", label: "other", classID: nil, group: "bag\(index)", windows: windows,
                                       windowClasses: windows.map { _ in nil }, used: windows.map { _ in true })
            clip.uncertainClasses = classes
            dataset.clips.append(clip)
        }
        return dataset
    }

    func fitted(_ dataset: FitDataset) -> [String: Data] {
        var options = ModelFitter.Options()
        options.rounds = 10
        let (model, _) = ModelFitter(options: options).fit(dataset, base: baseModel)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Dictionary(uniqueKeysWithValues: model.classes.map { ($0.id, try! encoder.encode($0)) })
    }

    @Test func aBagThatMayHoldAClassDoesNotTrainIt() {
        let without = fitted(thresholdDataset())
        let bag = fitted(withBag(holding: ["cough"]))
        #expect(bag["cough"] == without["cough"], "the cough score is the one fitted without the bag")
        #expect(bag["other"] != without["other"], "the bag's clips are still examples of `other`")
    }

    @Test func aBagIsACounterExampleOfTheClassesItCannotHold() {
        let without = fitted(thresholdDataset())
        // The same clips, but a bag that may hold only sneezes: they are cough-like clips that are not coughs.
        let bag = fitted(withBag(holding: ["sneeze"]))
        #expect(bag["cough"] != without["cough"], "cough-like clips of no cough move the cough score")
        #expect(bag["cough"] == fitted(withBag(holding: []))["cough"], "as much as clips of no class, not a bag, do")
    }
}
