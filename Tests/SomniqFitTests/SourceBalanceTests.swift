import Testing
@testable import SomniqFit

/// `fit --source-balance P`: both sides (the class, the rest) weigh half each; a clip of the class weighs as much as any
/// other, a clip of the rest weighs n^−P (n: the rest's clips from its source); a clip's windows share its weight.
@Suite struct SourceBalanceTests {
    // The class: four clips of corpus A, one of recording B (two windows each).
    // The rest: four clips of corpus C, one of recording D (one window each).
    let labels: [Bool] = [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false]
    let clips = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9]
    let sources = ["A", "A", "A", "A", "B", "C", "C", "C", "C", "D"]

    func weights(balance: Double, sources: [String]? = nil) -> [Double] {
        var options = ModelFitter.Options()
        options.sourceBalance = balance
        return ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources ?? self.sources)
    }

    /// The total weight of the windows of `clipSet`.
    func total(_ weights: [Double], of clipSet: Set<Int>) -> Double {
        zip(clips, weights).filter { clipSet.contains($0.0) }.reduce(0) { $0 + $1.1 }
    }

    @Test(arguments: [0.0, 0.5, 1]) func eachSideWeighsHalfAndTheClassIsNotBalanced(balance: Double) {
        let weights = weights(balance: balance)
        #expect(abs(total(weights, of: [0, 1, 2, 3, 4]) - 0.5) < 1e-12 && abs(total(weights, of: [5, 6, 7, 8, 9]) - 0.5) < 1e-12)
        for clip in 0..<5 {
            #expect(weights[2 * clip] == weights[2 * clip + 1], "clip \(clip)'s two windows share its weight")
            #expect(abs(total(weights, of: [clip]) - 0.1) < 1e-12, "each clip of the class a fifth of its half")
        }
    }

    @Test func noBalanceWeighsEveryClipOfTheRestTheSame() {
        let weights = weights(balance: 0)
        for clip in 5..<10 { #expect(abs(total(weights, of: [clip]) - 0.1) < 1e-12) }
    }

    @Test func fullBalanceWeighsEverySourceOfTheRestTheSame() {
        let weights = weights(balance: 1)
        #expect(abs(total(weights, of: [5, 6, 7, 8]) - 0.25) < 1e-12, "corpus C: half of the rest's half")
        #expect(abs(total(weights, of: [9]) - 0.25) < 1e-12, "recording D alone: the other half")
    }

    @Test func halfBalanceWeighsACorpusByTheRootOfItsSize() {
        let weights = weights(balance: 0.5)
        // C: 4 clips of 4^-0.5 = 2 against D's 1: a third of the rest for D instead of a fifth.
        #expect(abs(total(weights, of: [5, 6, 7, 8]) / total(weights, of: [9]) - 2) < 1e-12)
        #expect(abs(total(weights, of: [9]) - 0.5 / 3) < 1e-12)
    }

    /// `fit --class-source-balance P`: the class's own clips weighed by their source as the rest's are, the rest as
    /// `--source-balance` weighs it whatever P is.
    @Test func theClassBalancedByItsSourcesWeighsACorpusByTheRootOfItsSize() {
        var options = ModelFitter.Options()
        options.sourceBalance = 0.5
        options.classSourceBalance = 0.5
        let weights = ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources)
        // A: 4 clips of 4^-0.5 = 2 against B's 1: a third of the class's half for B instead of a fifth.
        #expect(abs(total(weights, of: [0, 1, 2, 3]) / total(weights, of: [4]) - 2) < 1e-12)
        #expect(abs(total(weights, of: [4]) - 0.5 / 3) < 1e-12)
        #expect(weights[8] == weights[9], "clip 4's two windows share its weight")
        let rest = self.weights(balance: 0.5)
        #expect(Array(weights[10...]) == Array(rest[10...]), "the rest weighs as without it")
        options.classSourceBalance = 1
        let full = ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources)
        #expect(abs(total(full, of: [0, 1, 2, 3]) - 0.25) < 1e-12 && abs(total(full, of: [4]) - 0.25) < 1e-12,
                "every source of the class the same")
    }

    /// `fit --none-weight W`: a recorded clip of none of our classes weighs W times as much as a clip of the rest from a
    /// source as large; the rest still weighs half, and the class's own clips are untouched.
    @Test func clipsOfNoneOfOursWeighMoreAmongTheRest() {
        var options = ModelFitter.Options()
        options.sourceBalance = 0.5
        options.noneWeight = 3
        // Clips 5 and 6 (of corpus C) are none of ours; 7 and 8 (also C) and 9 (D) are of other classes.
        let none = [false, false, false, false, false, true, true, false, false, false]
        let weights = ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources, noneOfOurs: none)
        #expect(abs(total(weights, of: [5]) / total(weights, of: [7]) - 3) < 1e-12)
        #expect(abs(total(weights, of: [5, 6, 7, 8, 9]) - 0.5) < 1e-12)
        let plain = self.weights(balance: 0.5)
        for clip in 0..<5 { #expect(abs(total(weights, of: [clip]) - total(plain, of: [clip])) < 1e-15) }
        // A weight of 1 is the recipe without it, bit for bit.
        options.noneWeight = 1
        #expect(ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources, noneOfOurs: none) == plain)
    }

    /// `fit --copy-weight W`: an augmented copy weighs W times what its clip would, on either side; each side still
    /// weighs half.
    @Test func augmentedCopiesWeighTheCopyWeight() {
        var options = ModelFitter.Options()
        options.sourceBalance = 0.5
        options.copyWeight = 0.25
        // Clips 3 and 4 are copies (of the class); 8 (of corpus C, as the clips it was made from) is a copy of the rest.
        let copies = [false, false, false, true, true, false, false, false, true, false]
        let weights = ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources, copies: copies)
        #expect(abs(total(weights, of: [3]) / total(weights, of: [0]) - 0.25) < 1e-12)
        #expect(abs(total(weights, of: [4]) / total(weights, of: [0]) - 0.25) < 1e-12, "a copy of another source alike")
        #expect(abs(total(weights, of: [8]) / total(weights, of: [7]) - 0.25) < 1e-12)
        #expect(abs(total(weights, of: [0, 1, 2, 3, 4]) - 0.5) < 1e-12 && abs(total(weights, of: [5, 6, 7, 8, 9]) - 0.5) < 1e-12)
        // A weight of 1 is the recipe without it, bit for bit.
        options.copyWeight = 1
        #expect(ModelFitter(options: options).balancedWeights(labels: labels, clips: clips, sources: sources, copies: copies)
                == self.weights(balance: 0.5))
    }

    @Test func oneSourceIsAsNoBalance() {
        let one = [String](repeating: "", count: 10)
        for (balanced, plain) in zip(weights(balance: 0.5, sources: one), weights(balance: 0)) {
            #expect(abs(balanced - plain) < 1e-15, "clips without a source count as one source")
        }
    }
}
