import Foundation

/// Triangular mel filters over a power spectrum's bins, and the cepstrum of their log energies.
/// Mel scale: `m = 2595 log10(1 + f / 700)`.
struct MelFilterbank {
    /// For each band, the first bin of its triangle and the weights of its bins from there on: band `b`'s at
    /// `weights[weightStart[b] ..< weightStart[b + 1]]`.
    private let bandStart: [Int]
    private let weights: [Float]
    private let weightStart: [Int]
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
        weights = bandWeights.flatMap { $0 }
        weightStart = bandWeights.reduce(into: [0]) { starts, band in starts.append(starts.last! + band.count) }
        let scale = Float((2 / Double(bands)).squareRoot())
        let table = (1...12).map { k in
            (0..<bands).map { m in scale * Float(cos(Double.pi * Double(k) * (Double(m) + 0.5) / Double(bands))) }
        }
        dct = table
        firstFourDCT = (0..<bands).map { m in SIMD4(table[0][m], table[1][m], table[2][m], table[3][m]) }
    }

    /// `dct[0...3][m]` side by side, for coefficients 1–4 at once.
    private let firstFourDCT: [SIMD4<Float>]

    /// Band energies of `power` (zero where a band has no bins, as at a rate too low for it). Each band adds its
    /// bins in increasing order; four bands' sums are made side by side, so that each addition waits on its own band's
    /// last only.
    func apply(_ power: UnsafeBufferPointer<Float>, into energy: UnsafeMutableBufferPointer<Float>) {
        weights.withUnsafeBufferPointer { weights in
            weightStart.withUnsafeBufferPointer { starts in
                bandStart.withUnsafeBufferPointer { bins in
                    let w = weights.baseAddress!, p = power.baseAddress!
                    var band = 0
                    while band + 4 <= bands {
                        let (a, b, c, d) = (band, band + 1, band + 2, band + 3)
                        // Each band's weights and the bins they weigh.
                        let wa = w + starts[a], wb = w + starts[b], wc = w + starts[c], wd = w + starts[d]
                        let pa = p + bins[a], pb = p + bins[b], pc = p + bins[c], pd = p + bins[d]
                        let na = starts[b] - starts[a], nb = starts[c] - starts[b]
                        let nc = starts[d] - starts[c], nd = starts[d + 1] - starts[d]
                        let shared = min(min(na, nb), min(nc, nd))
                        var sa: Float = 0, sb: Float = 0, sc: Float = 0, sd: Float = 0
                        for k in 0..<shared {
                            sa += wa[k] * pa[k]
                            sb += wb[k] * pb[k]
                            sc += wc[k] * pc[k]
                            sd += wd[k] * pd[k]
                        }
                        for k in shared..<na { sa += wa[k] * pa[k] }
                        for k in shared..<nb { sb += wb[k] * pb[k] }
                        for k in shared..<nc { sc += wc[k] * pc[k] }
                        for k in shared..<nd { sd += wd[k] * pd[k] }
                        (energy[a], energy[b], energy[c], energy[d]) = (sa, sb, sc, sd)
                        band += 4
                    }
                    while band < bands {
                        var sum: Float = 0
                        for k in 0..<(starts[band + 1] - starts[band]) { sum += w[starts[band] + k] * p[bins[band] + k] }
                        energy[band] = sum
                        band += 1
                    }
                }
            }
        }
    }

    /// Cepstral coefficients 1–4 of one set of log mel energies, each summed over the bands in order (as `cepstrum`
    /// sums them), the four side by side.
    func firstFourCoefficients(of logMel: UnsafeBufferPointer<Float>) -> SIMD4<Float> {
        firstFourDCT.withUnsafeBufferPointer { rows in
            var sums = SIMD4<Float>()
            for m in 0..<bands { sums += rows[m] * SIMD4(repeating: logMel[m]) }
            return sums
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
