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

    /// Calls `body` with the values in time order (copied into order only when the buffer has wrapped).
    func withOrderedValues<Result>(_ body: (UnsafeBufferPointer<Float>) -> Result) -> Result {
        if count < storage.count {
            return storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
        }
        let ordered = Array(storage[next...] + storage[..<next])
        return ordered.withUnsafeBufferPointer(body)
    }
}
