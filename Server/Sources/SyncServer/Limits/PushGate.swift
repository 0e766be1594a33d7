import Synchronization

/// The pushes each user has running, at most `limit` at once.
final class PushGate: Sendable {
    private let limit: Int
    private let running = Mutex<[Int64: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a push of `user` in; false when the user has `limit` running (nothing counted).
    func enter(_ user: Int64) -> Bool {
        running.withLock { running in
            guard running[user, default: 0] < limit else { return false }
            running[user, default: 0] += 1
            return true
        }
    }

    /// Counts a push of `user` out.
    func leave(_ user: Int64) {
        running.withLock { running in
            let count = running[user, default: 1] - 1
            running[user] = count > 0 ? count : nil
        }
    }
}
