import Synchronization

/// What each user has running at once (pushes, live streams), at most `limit`.
final class ConcurrencyGate: Sendable {
    private let limit: Int
    private let running = Mutex<[Int64: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one of `user`'s in; false when the user has `limit` running (nothing counted).
    func enter(_ user: Int64) -> Bool {
        running.withLock { running in
            guard running[user, default: 0] < limit else { return false }
            running[user, default: 0] += 1
            return true
        }
    }

    /// Counts one of `user`'s out.
    func leave(_ user: Int64) {
        running.withLock { running in
            let count = running[user, default: 1] - 1
            running[user] = count > 0 ? count : nil
        }
    }
}
