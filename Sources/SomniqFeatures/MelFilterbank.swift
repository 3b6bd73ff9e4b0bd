import Foundation

/// Triangular mel filters over a power spectrum's bins, and the cepstrum of their log energies.
/// Mel scale: `m = 2595 log10(1 + f / 700)`.
struct MelFilterbank {
    /// For each bin, the (band, weight) pairs it feeds: at most two, as the triangles overlap by half.
    private let contributions: [(first: Int, firstWeight: Float, second: Int, secondWeight: Float)]
    private let firstBin: Int
    private let lastBin: Int
    private let bands: Int
    /// `dct[k][m]` for cepstral coefficients 1...12.
    private let dct: [[Float]]

    init(bands: Int, lowHz: Double, highHz: Double, binHz: Float, binCount: Int) {
        self.bands = bands
        func mel(_ hertz: Double) -> Double { 2595 * log10(1 + hertz / 700) }
        func hertz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let low = mel(lowHz), high = mel(highHz)
        let edges = (0...(bands + 1)).map { hertz(low + (high - low) * Double($0) / Double(bands + 1)) }
        var contributions: [(Int, Float, Int, Float)] = []
        let first = max(1, Int((edges[0] / Double(binHz)).rounded(.up)))
        let last = min(binCount - 1, Int((edges[bands + 1] / Double(binHz)).rounded(.down)))
        if first <= last {
            for bin in first...last {
                let frequency = Double(bin) * Double(binHz)
                var pair: [(Int, Float)] = []
                for band in 0..<bands where frequency > edges[band] && frequency < edges[band + 2] {
                    let weight = frequency <= edges[band + 1]
                        ? (frequency - edges[band]) / (edges[band + 1] - edges[band])
                        : (edges[band + 2] - frequency) / (edges[band + 2] - edges[band + 1])
                    pair.append((band, Float(weight)))
                }
                let a = pair.first ?? (0, 0), b = pair.count > 1 ? pair[1] : (0, 0)
                contributions.append((a.0, a.1, b.0, b.1))
            }
        }
        self.contributions = contributions
        firstBin = first
        lastBin = last
        let scale = Float((2 / Double(bands)).squareRoot())
        dct = (1...12).map { k in
            (0..<bands).map { m in scale * Float(cos(Double.pi * Double(k) * (Double(m) + 0.5) / Double(bands))) }
        }
    }

    /// Band energies of `power` (zero where a band has no bins, as at a rate too low for it).
    func apply(_ power: UnsafeBufferPointer<Float>, into energy: UnsafeMutableBufferPointer<Float>) {
        for band in 0..<bands { energy[band] = 0 }
        guard firstBin <= lastBin else { return }
        contributions.withUnsafeBufferPointer { contributions in
            for (offset, contribution) in contributions.enumerated() {
                let value = power[firstBin + offset]
                energy[contribution.first] += contribution.firstWeight * value
                energy[contribution.second] += contribution.secondWeight * value
            }
        }
    }

    /// Cepstral coefficient `k` (1...12) of one set of log mel energies.
    func coefficient(_ k: Int, of logMel: UnsafeBufferPointer<Float>) -> Float {
        dct[k - 1].withUnsafeBufferPointer { row in
            var sum: Float = 0
            for m in 0..<bands { sum += row[m] * logMel[m] }
            return sum
        }
    }

    /// Writes `mfcc_1`…`mfcc_12` from mean log mel energies.
    func cepstrum(_ logMel: [Float], into features: inout FeatureVector) {
        for (k, id) in FeatureID.mfccs.enumerated() {
            var sum: Float = 0
            for m in 0..<bands { sum += dct[k][m] * logMel[m] }
            features[id] = sum
        }
    }
}
