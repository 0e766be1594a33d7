import DequeModule
import Synchronization

/// Turns taken in line per key (a user, a zone): at most `limit` of a key's callers run at once,
/// the others wait in the order they came, and no key's line holds up another's.
///
/// A waiting caller is not cancelled: it waits its turn, then runs (and finds its task cancelled).
/// The lines stay short: the number of callers per key is bounded before they get here.
final class FairTurns<Key: Hashable & Sendable>: Sendable {
    private struct Line {
        var running = 0
        var waiting: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let limit: Int
    private let lines = Mutex<[Key: Line]>([:])

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` in one of `key`'s turns.
    func run<Value: Sendable>(_ key: Key, _ body: () async throws -> Value) async throws -> Value {
        await enter(key)
        defer { leave(key) }
        return try await body()
    }

    private func enter(_ key: Key) async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = lines.withLock { lines in
                if lines[key, default: Line()].running < limit {
                    lines[key, default: Line()].running += 1
                    return true
                }
                lines[key, default: Line()].waiting.append(turn)
                return false
            }
            if now { turn.resume() }
        }
    }

    /// Hands the turn to the next in line (it stays counted as running), or gives it back.
    private func leave(_ key: Key) {
        let next = lines.withLock { lines -> CheckedContinuation<Void, Never>? in
            guard var line = lines[key] else { return nil }
            defer { lines[key] = line.running == 0 ? nil : line }
            if let next = line.waiting.popFirst() { return next }
            line.running -= 1
            return nil
        }
        next?.resume()
    }
}
