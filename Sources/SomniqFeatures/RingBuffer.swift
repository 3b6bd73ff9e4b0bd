/// A fixed-capacity history of the most recent values, oldest first when read.
struct RingBuffer {
    private var storage: [Float]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) { storage = [Float](repeating: 0, count: capacity) }

    mutating func append(_ value: Float) {
        storage[next] = value
        next = (next + 1) % storage.count
        count = min(count + 1, storage.count)
    }

    /// Copies the values, oldest first, to the start of `output` (at least `count` long); returns `count`.
    func copyOrdered(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        precondition(output.count >= count)
        let start = count < storage.count ? 0 : next
        for offset in 0..<count { output[offset] = storage[(start + offset) % storage.count] }
        return count
    }
}
