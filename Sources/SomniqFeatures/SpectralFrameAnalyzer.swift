import CFFTW
import Foundation

/// One FFT size's worth of FFTW state: a forward real transform for power spectra and an inverse
/// one that turns a power spectrum into an autocorrelation. Plans are made once (FFTW_ESTIMATE,
/// so that every run picks the same algorithm and results are reproducible to the bit) and reused
/// for every frame; nothing is allocated per frame.
public final class SpectralFrameAnalyzer {
    /// FFTW's planner is not thread-safe; plan creation and destruction take this lock.
    private static let plannerLock = NSLock()

    public let fftSize: Int
    /// Bins of a one-sided spectrum: `fftSize / 2 + 1`.
    public let binCount: Int
    private let timeBuffer: UnsafeMutablePointer<Float>
    private let spectrumBuffer: UnsafeMutablePointer<fftwf_complex>
    private let forwardPlan: fftwf_plan
    private let inversePlan: fftwf_plan

    public init(fftSize: Int) {
        precondition(fftSize >= 8 && fftSize % 2 == 0, "FFT size must be even")
        self.fftSize = fftSize
        binCount = fftSize / 2 + 1
        timeBuffer = fftwf_alloc_real(fftSize)!
        spectrumBuffer = fftwf_alloc_complex(binCount)!
        Self.plannerLock.lock()
        forwardPlan = fftwf_plan_dft_r2c_1d(Int32(fftSize), timeBuffer, spectrumBuffer, UInt32(FFTW_ESTIMATE))!
        inversePlan = fftwf_plan_dft_c2r_1d(Int32(fftSize), spectrumBuffer, timeBuffer, UInt32(FFTW_ESTIMATE))!
        Self.plannerLock.unlock()
    }

    deinit {
        Self.plannerLock.lock()
        fftwf_destroy_plan(forwardPlan)
        fftwf_destroy_plan(inversePlan)
        Self.plannerLock.unlock()
        fftwf_free(timeBuffer)
        fftwf_free(spectrumBuffer)
    }

    /// Writes `|FFT(frame · window)|²` into `power` (`binCount` values). The frame is zero-padded
    /// to `fftSize`; `window` must be at least as long as the frame.
    public func powerSpectrum(frame: UnsafeBufferPointer<Float>, window: UnsafeBufferPointer<Float>,
                              into power: UnsafeMutableBufferPointer<Float>) {
        precondition(frame.count <= fftSize && window.count >= frame.count && power.count >= binCount)
        for index in 0..<frame.count { timeBuffer[index] = frame[index] * window[index] }
        for index in frame.count..<fftSize { timeBuffer[index] = 0 }
        fftwf_execute(forwardPlan)
        let complex = UnsafeMutableRawPointer(spectrumBuffer).assumingMemoryBound(to: Float.self)
        for bin in 0..<binCount {
            let re = complex[2 * bin], im = complex[2 * bin + 1]
            power[bin] = re * re + im * im
        }
    }

    /// Writes the circular autocorrelation whose power spectrum is `power` into `output`
    /// (`fftSize` values, unnormalised: `output[0]` is the total). A frame of N samples zero-padded
    /// to `fftSize` has a circular autocorrelation equal to the true one at every lag up to `fftSize - N`.
    public func autocorrelation(power: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(power.count >= binCount && output.count >= fftSize)
        let complex = UnsafeMutableRawPointer(spectrumBuffer).assumingMemoryBound(to: Float.self)
        for bin in 0..<binCount {
            complex[2 * bin] = power[bin]
            complex[2 * bin + 1] = 0
        }
        fftwf_execute(inversePlan)
        for index in 0..<fftSize { output[index] = timeBuffer[index] }
    }

    /// The smallest size of the form 2^a·3^b (a ≥ 3) that is at least `length`: FFTW transforms these about
    /// as fast per point as powers of two, so the padding costs little more than it must (16 kHz sub-frames of
    /// 1,000 samples that need 1,268 points get 1,296, not 2,048).
    public static func fftSize(atLeast length: Int) -> Int {
        let target = max(length, 8)
        var best = Int.max
        var powerOfThree = 1
        while powerOfThree < 2 * target {
            var size = 8 * powerOfThree
            while size < target { size *= 2 }
            best = min(best, size)
            powerOfThree *= 3
        }
        return best
    }

    /// A periodic Hann window of `length` samples.
    public static func hannWindow(length: Int) -> [Float] {
        (0..<length).map { index in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(length)))
        }
    }
}
