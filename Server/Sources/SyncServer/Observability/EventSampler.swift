import Synchronization

/// Counts events that a client can cause at will (a limit hit, a refused request), so that they
/// are logged without letting an attack write a line per event: the first event of a key is
/// reported at once, the others of the next `interval` together, with their count, at the first
/// event after it.
final class EventSampler<Key: Hashable & Sendable>: Sendable {
    private struct Window {
        var started: ContinuousClock.Instant
        var unreported = 0
    }

    private let interval: Duration
    private let windows = Mutex<[Key: Window]>([:])

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Counts an event of `key`; returns how many to log now (this one and those its window left
    /// unreported), or nil when it is counted for later.
    func count(_ key: Key) -> Int? {
        let now = ContinuousClock.now
        return windows.withLock { windows in
            guard var window = windows[key], now < window.started + interval else {
                let left = windows[key]?.unreported ?? 0
                windows[key] = Window(started: now)
                return left + 1
            }
            window.unreported += 1
            windows[key] = window
            return nil
        }
    }
}
