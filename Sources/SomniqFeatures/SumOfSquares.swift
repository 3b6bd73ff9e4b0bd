extension UnsafeBufferPointer where Element == Float {
    /// `Σ x²` over the samples, eight lanes at a time (then the lanes in order, then the samples past the last eight):
    /// a plain running sum waits on each addition before the next, and this runs on every sample of every recording.
    /// The same samples give the same bits, however long.
    func sumOfSquares() -> Float {
        guard let base = baseAddress else { return 0 }
        let source = UnsafeRawPointer(base)
        var lanes = SIMD8<Float>()
        var index = 0
        while index + 8 <= count {
            let value = source.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self)
            lanes += value * value
            index += 8
        }
        var sum = lanes.sum()
        while index < count {
            sum += self[index] * self[index]
            index += 1
        }
        return sum
    }
}
