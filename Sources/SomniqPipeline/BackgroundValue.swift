import Foundation

/// A value worked out on a thread of its own from the moment it is made, while the maker goes on; `value` waits for it.
final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Value?

    init(_ work: @escaping @Sendable () -> Value) {
        let thread = Thread { [self] in
            let value = work()
            condition.lock()
            result = value
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "somniq-background"
        thread.start()
    }

    /// The value, once it is worked out.
    var value: Value {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}
