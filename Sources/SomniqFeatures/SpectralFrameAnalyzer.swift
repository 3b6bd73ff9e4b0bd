import CFFTW
import Foundation

/// One FFT size's worth of FFTW state: a forward real transform for power spectra and an inverse
/// one that turns a power spectrum into an autocorrelation. Plans are made once and reused for every
/// frame; nothing is allocated per frame.
///
/// Plans come from the FFTW wisdom shipped in `FFTWisdom.swift` (made with FFTW_PATIENT on the machine the
/// benchmarks run on, for the transform sizes of the common sample rates) when it applies: the same
/// algorithm every run, and faster than FFTW_ESTIMATE's choice. Where it does not
/// (another FFTW version, a processor without the instructions it chose, an unusual size) they come from
/// FFTW_ESTIMATE, which is just as reproducible. Never from timing at run time, which could change results.
public final class SpectralFrameAnalyzer {
    /// FFTW's planner is not thread-safe; plan creation and destruction take this lock.
    private static let plannerLock = NSLock()
    /// Imported once per process, under `plannerLock`.
    nonisolated(unsafe) private static var wisdomImported: Bool?

    /// Whether FFTW accepted the shipped wisdom (its version matches the one that made it).
    public static var shippedWisdomAccepted: Bool {
        plannerLock.lock()
        defer { plannerLock.unlock() }
        return importWisdom()
    }

    /// Call with `plannerLock` held.
    private static func importWisdom() -> Bool {
        if let wisdomImported { return wisdomImported }
        let accepted = fftwf_import_wisdom_from_string(FFTWisdom.text) == 1
        wisdomImported = accepted
        return accepted
    }

    public let fftSize: Int
    /// Whether both plans came from the shipped wisdom (otherwise from FFTW_ESTIMATE).
    public let plannedFromWisdom: Bool
    /// Bins of a one-sided spectrum: `fftSize / 2 + 1`.
    public let binCount: Int
    private let timeBuffer: UnsafeMutablePointer<Float>
    private let spectrumBuffer: UnsafeMutablePointer<fftwf_complex>
    private let forwardPlan: fftwf_plan
    private let inversePlan: fftwf_plan

    /// - Parameter useWisdom: plan from the shipped wisdom when it applies (`false`: always FFTW_ESTIMATE).
    public init(fftSize: Int, useWisdom: Bool = true) {
        precondition(fftSize >= 8 && fftSize % 2 == 0, "FFT size must be even")
        self.fftSize = fftSize
        binCount = fftSize / 2 + 1
        timeBuffer = fftwf_alloc_real(fftSize)!
        spectrumBuffer = fftwf_alloc_complex(binCount)!
        Self.plannerLock.lock()
        defer { Self.plannerLock.unlock() }
        if useWisdom, Self.importWisdom(),
           let forward = fftwf_plan_dft_r2c_1d(Int32(fftSize), timeBuffer, spectrumBuffer, Self.wisdomFlags) {
            if let inverse = fftwf_plan_dft_c2r_1d(Int32(fftSize), spectrumBuffer, timeBuffer, Self.wisdomFlags) {
                (forwardPlan, inversePlan, plannedFromWisdom) = (forward, inverse, true)
                return
            }
            fftwf_destroy_plan(forward)
        }
        forwardPlan = fftwf_plan_dft_r2c_1d(Int32(fftSize), timeBuffer, spectrumBuffer, UInt32(FFTW_ESTIMATE))!
        inversePlan = fftwf_plan_dft_c2r_1d(Int32(fftSize), spectrumBuffer, timeBuffer, UInt32(FFTW_ESTIMATE))!
        plannedFromWisdom = false
    }

    /// A plan as FFTW_PATIENT chose it when the wisdom was made, and only from wisdom: never timed here.
    static let wisdomFlags = UInt32(FFTW_PATIENT) | UInt32(FFTW_WISDOM_ONLY)

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
