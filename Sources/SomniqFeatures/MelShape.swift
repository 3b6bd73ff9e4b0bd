import Foundation

/// The spectrum's shape band by band: `mel_shape_b`, `mel_shape_std_b` and `mel_shape_delta_b` for the 24 mel bands of
/// the cepstrum (see `FeatureID`). A sub-frame's shape is its log mel energies less their mean over the bands, so a
/// sound heard louder or softer, nearer or farther, has the same shape; what a band does over the second (how much it
/// spreads, how fast it moves) tells a voice's formants from a fan's hum and a snore's flutter from a cough's burst
/// band by band, which the window's mean cepstrum and the one mel flux over all bands average away.
final class MelShape {
    private let bands: Int
    private let shape: UnsafeMutableBufferPointer<Float>
    private var previousShape: UnsafeMutableBufferPointer<Float>

    init(bands: Int) {
        self.bands = bands
        shape = .allocate(capacity: bands)
        shape.initialize(repeating: 0)
        previousShape = .allocate(capacity: bands)
        previousShape.initialize(repeating: 0)
    }

    deinit {
        shape.deallocate()
        previousShape.deallocate()
    }

    /// Adds one sub-frame's log mel energies to `block`: the squares of its shape, and its shape's change since the
    /// previous sub-frame (when `follows` one; `CepstralFeatures` counts those pairs).
    func add(logMel: UnsafeBufferPointer<Float>, follows: Bool, to block: BlockSummary) {
        var level: Float = 0
        for band in 0..<bands { level += logMel[band] }
        level /= Float(bands)
        let shape = self.shape, previousShape = self.previousShape
        block.shapeSquareSum.withUnsafeMutableBufferPointer { squares in
            for band in 0..<bands {
                let value = logMel[band] - level
                shape[band] = value
                squares[band] += value * value
            }
        }
        if follows {
            block.shapeChangeSum.withUnsafeMutableBufferPointer { change in
                for band in 0..<bands { change[band] += abs(shape[band] - previousShape[band]) }
            }
        }
        for band in 0..<bands { previousShape[band] = shape[band] }
    }

    /// Writes the family's features for the window of blocks `a` and `b`, whose sub-frames with signal number
    /// `1 / scale`; `meanLogMel` is the window's mean log mel energy per band.
    func measure(_ a: BlockSummary, _ b: BlockSummary?, scale: Float, meanLogMel: [Float], into features: inout FeatureVector) {
        var level: Float = 0
        for band in 0..<bands { level += meanLogMel[band] }
        level /= Float(bands)
        let pairs = a.melFluxCount + (b?.melFluxCount ?? 0)
        for band in 0..<bands {
            let mean = meanLogMel[band] - level
            let meanSquare = (a.shapeSquareSum[band] + (b?.shapeSquareSum[band] ?? 0)) * scale
            features[FeatureID.melShapes[band]] = mean
            features[FeatureID.melShapeSpreads[band]] = max(0, meanSquare - mean * mean).squareRoot()
            features[FeatureID.melShapeChanges[band]] = pairs > 0
                ? (a.shapeChangeSum[band] + (b?.shapeChangeSum[band] ?? 0)) / Float(pairs) : 0
        }
    }
}
