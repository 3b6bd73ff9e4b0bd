import Foundation

/// Triangular mel filters over a power spectrum's bins, and the cepstrum of their log energies.
/// Mel scale: `m = 2595 log10(1 + f / 700)`.
struct MelFilterbank {
    /// For each band, the first bin of its triangle and the weights of its bins from there on.
    private let bandStart: [Int]
    private let bandWeights: [[Float]]
    private let bands: Int
    /// Each band's centre (the peak of its triangle), Hz.
    let centreHz: [Float]
    /// `dct[k][m]` for cepstral coefficients 1...12.
    private let dct: [[Float]]

    init(bands: Int, lowHz: Double, highHz: Double, binHz: Float, binCount: Int) {
        self.bands = bands
        func mel(_ hertz: Double) -> Double { 2595 * log10(1 + hertz / 700) }
        func hertz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let low = mel(lowHz), high = mel(highHz)
        let edges = (0...(bands + 1)).map { hertz(low + (high - low) * Double($0) / Double(bands + 1)) }
        centreHz = (0..<bands).map { Float(edges[$0 + 1]) }
        var bandStart = [Int](repeating: 0, count: bands)
        var bandWeights = [[Float]](repeating: [], count: bands)
        let first = max(1, Int((edges[0] / Double(binHz)).rounded(.up)))
        let last = min(binCount - 1, Int((edges[bands + 1] / Double(binHz)).rounded(.down)))
        if first <= last {
            for bin in first...last {
                let frequency = Double(bin) * Double(binHz)
                for band in 0..<bands where frequency > edges[band] && frequency < edges[band + 2] {
                    let weight = frequency <= edges[band + 1]
                        ? (frequency - edges[band]) / (edges[band + 1] - edges[band])
                        : (edges[band + 2] - frequency) / (edges[band + 2] - edges[band + 1])
                    if bandWeights[band].isEmpty { bandStart[band] = bin }
                    // A band's bins are contiguous; a bin it does not reach (none, as triangles are convex) would weigh 0.
                    while bandStart[band] + bandWeights[band].count < bin { bandWeights[band].append(0) }
                    bandWeights[band].append(Float(weight))
                }
            }
        }
        self.bandStart = bandStart
        self.bandWeights = bandWeights
        let scale = Float((2 / Double(bands)).squareRoot())
        dct = (1...12).map { k in
            (0..<bands).map { m in scale * Float(cos(Double.pi * Double(k) * (Double(m) + 0.5) / Double(bands))) }
        }
    }

    /// Band energies of `power` (zero where a band has no bins, as at a rate too low for it). Each band adds its
    /// bins in increasing order.
    func apply(_ power: UnsafeBufferPointer<Float>, into energy: UnsafeMutableBufferPointer<Float>) {
        for band in 0..<bands {
            let start = bandStart[band]
            energy[band] = bandWeights[band].withUnsafeBufferPointer { weights in
                var sum: Float = 0
                for (offset, weight) in weights.enumerated() { sum += weight * power[start + offset] }
                return sum
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

    /// Writes cepstral coefficients 1, 2, … of mean log mel energies as the features `ids` (`mfcc_1`…`mfcc_12` unless told).
    func cepstrum(_ logMel: [Float], as ids: [FeatureID] = FeatureID.mfccs, into features: inout FeatureVector) {
        for (k, id) in ids.enumerated() {
            var sum: Float = 0
            for m in 0..<bands { sum += dct[k][m] * logMel[m] }
            features[id] = sum
        }
    }
}
