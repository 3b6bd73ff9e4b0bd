/// Smooths a class's per-window confidence: an exponential moving average or the mean of the last
/// `span` windows. Both are linear with non-negative weights, so a pointwise larger input never
/// gives a smaller output, which the profile-ordering guarantee relies on.
public struct Smoother: Equatable, Sendable {
    public enum Method: Equatable, Sendable {
        /// `s ← α·x + (1 − α)·s` with `α = 2 / (span + 1)`, the EMA whose centre of mass matches a `span`-window mean.
        case exponential
        /// Mean of the last `span` values (of all values so far while fewer have been seen).
        case windowMean
    }

    public let method: Method
    public let span: Int
    private var value: Float = 0
    private var started = false
    private var history: [Float]
    private var next = 0
    private var filled = 0

    public init(method: Method, span: Int) {
        precondition(span >= 1)
        self.method = method
        self.span = span
        history = method == .windowMean ? [Float](repeating: 0, count: span) : []
    }

    /// Adds the next value and returns the smoothed one.
    public mutating func push(_ x: Float) -> Float {
        switch method {
        case .exponential:
            let alpha = 2 / Float(span + 1)
            value = started ? alpha * x + (1 - alpha) * value : x
            started = true
        case .windowMean:
            history[next] = x
            next = (next + 1) % span
            filled = min(filled + 1, span)
            // Summed afresh in a fixed order: no drift, and the same input always gives the same bits.
            var sum: Float = 0
            for index in 0..<filled { sum += history[index] }
            value = sum / Float(filled)
        }
        return value
    }

    public mutating func reset() {
        value = 0
        started = false
        for index in history.indices { history[index] = 0 }
        next = 0
        filled = 0
    }
}

/// The largest of the last `span` values (of all so far while fewer have been seen). Monotone like the
/// smoother: a pointwise larger input never gives a smaller output.
public struct SlidingMaximum: Equatable, Sendable {
    public let span: Int
    private var history: [Float]
    private var next = 0

    public init(span: Int) {
        precondition(span >= 1)
        self.span = span
        history = [Float](repeating: 0, count: span)
    }

    /// Adds the next value (never negative: confidences) and returns the maximum.
    public mutating func push(_ x: Float) -> Float {
        guard span > 1 else { return x }
        history[next] = x
        next = (next + 1) % span
        var largest: Float = 0
        for value in history { largest = max(largest, value) }
        return largest
    }
}
