import Synchronization

/// Wakes the coordinator once the app's saves pause, rather than at each save: an app saving in a
/// burst meets no sync cycle competing with it for the store and the processor, and the burst goes
/// in one cycle after it.
///
/// The coordinator wakes when no save came for `quiet`, or at the latest `quiet` times
/// ``patience`` after the first save it was not woken for, so that an app that never pauses is
/// still synced.
final class GatheringWake: Sendable {
    /// How many quiet periods the coordinator waits at most while the saves keep coming.
    static let patience = 10

    private struct Saves {
        /// The first save since the last wake; nil when none is waiting.
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant = .now
    }

    private let quiet: Duration
    private let wakeUp: CoordinatorWake
    private let saves = Mutex(Saves())

    init(after quiet: Duration, wakeUp: CoordinatorWake) {
        self.quiet = quiet
        self.wakeUp = wakeUp
    }

    /// Notes an app's save; the first one since the last wake starts the wait.
    func request() {
        guard quiet > .zero else {
            wakeUp.forLocalChanges()
            return
        }
        let now = ContinuousClock.now
        let isFirst = saves.withLock { saves in
            saves.last = now
            guard saves.first == nil else { return false }
            saves.first = now
            return true
        }
        guard isFirst else { return }
        Task { [self] in
            while let moment = nextMoment() {
                try? await Task.sleep(until: moment, clock: .continuous)
            }
            wakeUp.forLocalChanges()
        }
    }

    /// When to look again, or nil (and the wait ends) when the saves paused or waited long enough.
    private func nextMoment() -> ContinuousClock.Instant? {
        saves.withLock { saves in
            guard let first = saves.first else { return nil }
            let moment = min(saves.last + quiet, first + quiet * Self.patience)
            guard moment > .now else {
                saves.first = nil
                return nil
            }
            return moment
        }
    }
}
