import Foundation

/// The cepstral family: `mfcc_1`…`mfcc_12` of the window's mean log mel energies, `mel_flux` (how much the log mel
/// energies move from one sub-frame to the next) and `mfcc_1_std`…`mfcc_4_std` (how the first coefficients move
/// within the window). Each sub-frame's spectrum is added to its block as it comes; a window reads its two blocks.
final class CepstralFeatures {
    static let bands = 24
    /// The mel energies' dynamic range: 60 dB.
    static let dynamicRange: Float = 1e-6

    let filters: MelFilterbank
    private let energy: UnsafeMutableBufferPointer<Float>
    private var logMel: UnsafeMutableBufferPointer<Float>
    private var previousLogMel: UnsafeMutableBufferPointer<Float>
    /// The last window's mean log mel energies, as `measure` found them.
    private(set) var windowLogMel = [Float](repeating: 0, count: CepstralFeatures.bands)
    /// The log mel energies of the sub-frame added last.
    var latestLogMel: UnsafeBufferPointer<Float> { UnsafeBufferPointer(previousLogMel) }

    /// Mel bands from 50 Hz to 4 kHz, the band every supported rate has.
    init(binHz: Float, binCount: Int) {
        filters = MelFilterbank(bands: Self.bands, lowHz: 50, highHz: 4000, binHz: binHz, binCount: binCount)
        func zeroed() -> UnsafeMutableBufferPointer<Float> {
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.bands)
            buffer.initialize(repeating: 0)
            return buffer
        }
        energy = zeroed()
        logMel = zeroed()
        previousLogMel = zeroed()
    }

    deinit {
        for buffer in [energy, logMel, previousLogMel] { buffer.deallocate() }
    }

    /// Adds one sub-frame's power spectrum to `block`: its log mel energies, their change since the previous
    /// sub-frame (when `follows` one), and its first four coefficients and their squares.
    func add(_ power: UnsafeBufferPointer<Float>, follows: Bool, to block: BlockSummary) {
        filters.apply(power, into: energy)
        let logMel = self.logMel, previousLogMel = self.previousLogMel
        var change: Float = 0
        // Bands more than 60 dB under the strongest are read as that floor: what lies there is leakage and the
        // recorder's own filters, which differ between rates and devices, not the sound.
        var strongest: Float = 0
        for band in 0..<Self.bands { strongest = max(strongest, energy[band]) }
        let floor = max(1e-10, strongest * Self.dynamicRange)
        block.logMelSum.withUnsafeMutableBufferPointer { logMelSum in
            for band in 0..<Self.bands {
                logMel[band] = log(max(energy[band], floor))
                logMelSum[band] += logMel[band]
                change += abs(logMel[band] - previousLogMel[band])
                block.melEnergySum[band] += energy[band]
                block.melEnergyMin[band] = min(block.melEnergyMin[band], energy[band])
            }
        }
        if follows {
            block.melFluxSum += change / Float(Self.bands)
            block.melFluxCount += 1
        }
        let first = filters.firstFourCoefficients(of: UnsafeBufferPointer(logMel))
        for k in 0..<4 {
            block.cepstrumSum[k] += first[k]
            block.cepstrumSquares[k] += first[k] * first[k]
        }
        swap(&self.logMel, &self.previousLogMel)
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames with signal number `1 / scale`.
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, into features: inout FeatureVector) {
        for band in 0..<Self.bands { windowLogMel[band] = (a.logMelSum[band] + (b?.logMelSum[band] ?? 0)) * scale }
        filters.cepstrum(windowLogMel, into: &features)
        let fluxCount = a.melFluxCount + (b?.melFluxCount ?? 0)
        features[.melFlux] = fluxCount > 0 ? (a.melFluxSum + (b?.melFluxSum ?? 0)) / Float(fluxCount) : 0
        for (k, id) in FeatureID.mfccSpreads.enumerated() {
            let mean = (a.cepstrumSum[k] + (b?.cepstrumSum[k] ?? 0)) * scale
            let meanSquare = (a.cepstrumSquares[k] + (b?.cepstrumSquares[k] ?? 0)) * scale
            features[id] = max(0, meanSquare - mean * mean).squareRoot()
        }
    }
}
