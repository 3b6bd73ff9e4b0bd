import Foundation

/// Takes a recorder's DC offset off its samples, before anything is measured: a constant added by a converter is no
/// sound, yet over a quiet room it is loud (an offset of 1% of full scale is -40 dBFS) and it shifts every spectral
/// feature towards 0 Hz.
///
/// What comes off is a running mean of the recording with a 1 Hz corner: it passes what every class here is made of
/// (a snore's 30 Hz flutter included) and follows a recorder's drift within a second or two. Over the first
/// 1 / `smoothing` samples it is the plain mean of the samples heard so far, so that an offset is off from the first
/// windows rather than fading out over seconds.
///
/// The running mean is updated once per block of 32 samples (as 32 steps of a one-pole average would move it, by the
/// block's mean) and what comes off a sample is that mean drawn as a straight line across the block after the one it was
/// measured on: a ramp from the mean before to the mean after. A mean updated sample by sample is a chain of dependent
/// arithmetic at the recording's own rate, three times the cost, and a mean that steps once a block leaves a staircase
/// under a loud low sound whose edges spread up the band; the ramp has no edges. Against the sample-by-sample filter the
/// ramp differs by about a percent of a low sound at its own frequency (-40 dB), and far less above it.
///
/// Digital silence stays digital silence: an exact zero (an edit, a clip collection's padding, a recorder's gate) is no
/// sample of the room; it is passed as zero, and the mean is held over it.
///
/// State carries from call to call, so a recording gives the same output however it is cut into calls.
struct DCBlocker {
    static let cornerHertz = 1.0
    static let blockLength = 32

    /// A one-pole average's weight of each new sample: 2π · corner / rate.
    let smoothing: Double
    /// A block's weight by how many of its samples were heard (not exact zeros): 1 - (1 - smoothing)^heard.
    private let blockWeights: [Double]
    /// Samples heard while the mean is still the plain mean.
    private var heard = 0.0
    /// The running mean after the last whole block, and before it: what comes off ramps from `previous` to `mean`.
    private var mean = 0.0
    private var previous = 0.0
    /// The block in progress: samples in it, their sums (position modulo 8: the same sums in the same order whether
    /// the block came in one call or several), and how many were heard.
    private var fill = 0
    private var sums = SIMD8<Float>(repeating: 0)
    private var count = 0

    init(sampleRate: Int) {
        let smoothing = 2 * Double.pi * Self.cornerHertz / Double(max(1, sampleRate))
        self.smoothing = smoothing
        blockWeights = (0...Self.blockLength).map { 1 - pow(1 - smoothing, Double($0)) }
    }

    mutating func filter(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(output.count >= input.count)
        var index = warmUp(input, into: output)
        let length = Self.blockLength
        while index < input.count {
            let start = Float(previous), slope = Float((mean - previous) / Double(length))
            if fill == 0, input.count - index >= length {
                // A whole block, its sums kept in registers.
                let block = Self.wholeBlock(input.baseAddress! + index, into: output.baseAddress! + index, start: start, slope: slope)
                index += length
                update(sums: block.sums, heard: block.heard)
                continue
            }
            let end = min(input.count, index + length - fill)
            for position in index..<end {
                let sample = input[position], step = fill + position - index
                output[position] = sample == 0 ? 0 : sample - (start + slope * Float(step + 1))
                sums[step % 8] += sample
                count += sample == 0 ? 0 : 1
            }
            fill += end - index
            index = end
            if fill == length {
                update(sums: sums, heard: count)
                fill = 0
                sums = SIMD8(repeating: 0)
                count = 0
            }
        }
    }

    /// Moves the running mean by a whole block's samples (`sums` by position modulo 8, `heard` of them not exact zeros).
    @inline(__always)
    private mutating func update(sums: SIMD8<Float>, heard: Int) {
        previous = mean
        if heard > 0 { mean += blockWeights[heard] * (Double(sums.sum()) / Double(heard) - mean) }
    }

    /// The plain mean over the first samples heard; the index where it ends.
    private mutating func warmUp(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var index = 0
        while index < input.count, heard * smoothing < 1 {
            let sample = input[index]
            if sample == 0 {
                output[index] = 0
            } else {
                heard += 1
                mean += (Double(sample) - mean) / heard
                output[index] = Float(Double(sample) - mean)
            }
            previous = mean
            index += 1
        }
        return index
    }

    /// A whole block from its first sample, eight lanes at a time (this runs on every sample of every recording): its
    /// sums by position modulo 8, and how many of its samples were heard.
    @inline(__always)
    private static func wholeBlock(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
                                   start: Float, slope: Float) -> (sums: SIMD8<Float>, heard: Int) {
        let steps = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        var sums = SIMD8<Float>(repeating: 0)
        var heardLanes = SIMD8<Int32>(repeating: 0)
        let source = UnsafeRawPointer(input), target = UnsafeMutableRawPointer(output)
        for lane in stride(from: 0, to: Self.blockLength, by: 8) {
            let samples = source.loadUnaligned(fromByteOffset: lane * 4, as: SIMD8<Float>.self)
            let silent = samples .== 0
            let offsets = start + slope * (steps + Float(lane))
            target.storeBytes(of: (samples - offsets).replacing(with: 0, where: silent), toByteOffset: lane * 4,
                              as: SIMD8<Float>.self)
            sums += samples
            heardLanes &+= SIMD8<Int32>(repeating: 1).replacing(with: 0, where: silent)
        }
        return (sums, Int(heardLanes.wrappedSum()))
    }
}
