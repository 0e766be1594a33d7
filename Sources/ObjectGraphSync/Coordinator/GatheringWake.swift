import Synchronization

/// Wakes the coordinator a moment after an app's save rather than at once, so that the saves that
/// follow within that moment go in the same cycle: an app saving in a burst meets one cycle, not a
/// cycle per save competing with it for the store and the processor.
final class GatheringWake: Sendable {
    private let delay: Duration
    private let wakeUp: AsyncStream<Void>.Continuation
    private let isScheduled = Mutex(false)

    init(after delay: Duration, wakeUp: AsyncStream<Void>.Continuation) {
        self.delay = delay
        self.wakeUp = wakeUp
    }

    /// Wakes the coordinator after the delay, unless a wake is already on its way.
    func request() {
        guard delay > .zero else {
            wakeUp.yield()
            return
        }
        let isFirst = isScheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard isFirst else { return }
        Task { [self] in
            try? await Task.sleep(for: delay)
            isScheduled.withLock { $0 = false }
            wakeUp.yield()
        }
    }
}
