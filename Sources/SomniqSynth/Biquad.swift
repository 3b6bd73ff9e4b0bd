import Foundation

/// A second-order IIR section (direct form I), with the RBJ audio-EQ-cookbook designs.
public struct Biquad: Sendable {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    /// Band-pass with 0 dB peak gain at `frequency`.
    public static func bandPass(frequency: Double, q: Double, sampleRate: Double) -> Biquad {
        let (cosW, alpha) = coefficients(frequency, q, sampleRate)
        return Biquad(b0: alpha, b1: 0, b2: -alpha, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    public static func lowPass(frequency: Double, q: Double = 0.7071, sampleRate: Double) -> Biquad {
        let (cosW, alpha) = coefficients(frequency, q, sampleRate)
        return Biquad(b0: (1 - cosW) / 2, b1: 1 - cosW, b2: (1 - cosW) / 2, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    public static func highPass(frequency: Double, q: Double = 0.7071, sampleRate: Double) -> Biquad {
        let (cosW, alpha) = coefficients(frequency, q, sampleRate)
        return Biquad(b0: (1 + cosW) / 2, b1: -(1 + cosW), b2: (1 + cosW) / 2, a0: 1 + alpha, a1: -2 * cosW, a2: 1 - alpha)
    }

    /// A bell around `frequency`: `gainDecibels` at its centre, 0 dB far from it (a resonance or a dip).
    public static func peaking(frequency: Double, q: Double, gainDecibels: Double, sampleRate: Double) -> Biquad {
        let (cosW, alpha) = coefficients(frequency, q, sampleRate)
        let a = pow(10, gainDecibels / 40)
        return Biquad(b0: 1 + alpha * a, b1: -2 * cosW, b2: 1 - alpha * a, a0: 1 + alpha / a, a1: -2 * cosW, a2: 1 - alpha / a)
    }

    /// A shelf: 0 dB well below `frequency`, `gainDecibels` well above it (slope 1: as steep as it can be without a bump).
    public static func highShelf(frequency: Double, gainDecibels: Double, sampleRate: Double) -> Biquad {
        let a = pow(10, gainDecibels / 40)
        let (cosW, alpha) = coefficients(frequency, 0.7071, sampleRate)
        let root = 2 * a.squareRoot() * alpha
        return Biquad(b0: a * ((a + 1) + (a - 1) * cosW + root), b1: -2 * a * ((a - 1) + (a + 1) * cosW),
                      b2: a * ((a + 1) + (a - 1) * cosW - root), a0: (a + 1) - (a - 1) * cosW + root,
                      a1: 2 * ((a - 1) - (a + 1) * cosW), a2: (a + 1) - (a - 1) * cosW - root)
    }

    private static func coefficients(_ frequency: Double, _ q: Double, _ sampleRate: Double) -> (Double, Double) {
        let nyquistSafe = min(frequency, 0.45 * sampleRate)
        let omega = 2 * Double.pi * nyquistSafe / sampleRate
        return (cos(omega), sin(omega) / (2 * q))
    }

    public mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}
