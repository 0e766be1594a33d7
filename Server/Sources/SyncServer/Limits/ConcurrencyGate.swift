import Synchronization

/// What each key (a user, a token, the whole server) has running at once (pushes, live
/// streams), at most `limit`.
final class ConcurrencyGate<Key: Hashable & Sendable>: Sendable {
    private let limit: Int
    private let running = Mutex<[Key: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one of `key`'s in; false when the key has `limit` running (nothing counted).
    func enter(_ key: Key) -> Bool {
        running.withLock { running in
            guard running[key, default: 0] < limit else { return false }
            running[key, default: 0] += 1
            return true
        }
    }

    /// Counts one of `key`'s out.
    func leave(_ key: Key) {
        running.withLock { running in
            let count = running[key, default: 1] - 1
            running[key] = count > 0 ? count : nil
        }
    }
}
