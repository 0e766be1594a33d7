import Foundation

/// A value guarded by a lock: the one place ObjectGraph shares mutable state between threads.
package final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is only touched while `lock` is held, which also makes each access exclusive:
    // the runtime's exclusivity checks (two per call, on a path taken for every new object's global
    // ID) could never fire.
    private let lock = NSLock()
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
