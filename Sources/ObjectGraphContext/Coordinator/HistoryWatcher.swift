import Foundation
import ObjectGraphModel
import ObjectGraphStore

/// Finds the transactions other writers committed to the store (other processes, or other
/// containers on the same file) and hands them to the coordinator, which delivers them like saves.
///
/// SQLite tells no one about another connection's commit, so the watcher looks: the history's last
/// sequence number (one read of an index's end), and, when it moved, the transactions after the last
/// one seen whose origin is not this container. Its own transactions were delivered when committed.
final class HistoryWatcher: Sendable {
    /// The last sequence number looked at. Looks are serialized by this lock, so a transaction is
    /// never delivered twice.
    private let lastSeen: Locked<Int64>

    init(startingAfter sequence: Int64) {
        lastSeen = Locked(sequence)
    }

    /// Reads what other writers committed since the last look; returns it oldest first.
    func look(in store: SQLiteStore, origin: UUID) throws -> [StoredTransaction] {
        try lastSeen.withLock { seen in
            let last = try store.reader.lastSequence()
            guard last > seen else { return [] }
            var filter = StoredHistoryFilter(after: seen)
            filter.through = last
            filter.excludingOrigin = origin
            filter.resolvesGlobalIDs = false  // merges go by key
            let transactions = try store.reader.transactions(filter)
            seen = last
            return transactions
        }
    }

    /// Looks when the store's files change (see ``StoreFileEvents``), 20 ms after, a burst of writes
    /// making one look every 20 ms at most, until `coordinator` is released; returns the watch of
    /// the files, which the coordinator keeps. Where the files cannot be watched, looks every
    /// `interval`.
    ///
    /// The looks run on a dispatch queue of their own, not in a task: a look is a blocking read, and
    /// Swift's cooperative pool (one thread per core) may be held by the application's own
    /// synchronous work for seconds, which would hold back every other writer's changes with it.
    static func start(for coordinator: StoreCoordinator, every interval: Duration) -> StoreFileEvents? {
        let queue = DispatchQueue(label: "ObjectGraph.HistoryWatcher", qos: .utility)
        let (seconds, attoseconds) = interval.components
        // In floating point, so that no interval overflows; at least a nanosecond, at most 30 years.
        let nanoseconds = Int(min(max(Double(seconds) * 1e9 + Double(attoseconds) / 1e9, 1), 1e18))
        let looks = LookSchedule(queue: queue, spacing: min(nanoseconds, LookSchedule.burstSpacing))
        if let events = StoreFileEvents(
            storePath: coordinator.store.path,
            onChange: { [weak coordinator] in
                guard let coordinator else { return }
                looks.request(for: coordinator)
            })
        {
            return events
        }
        scheduleLook(for: coordinator, after: .nanoseconds(nanoseconds), on: queue)
        return nil
    }

    private static func scheduleLook(
        for coordinator: StoreCoordinator, after delay: DispatchTimeInterval,
        on queue: DispatchQueue
    ) {
        // Not kept between looks: a container released is not kept alive by its watcher.
        queue.asyncAfter(deadline: .now() + delay) { [weak coordinator] in
            guard let coordinator else { return }
            do {
                try coordinator.mergeOtherWriters()
            } catch {
                // A failed read moved nothing on: the next look reads the same transactions.
            }
            scheduleLook(for: coordinator, after: delay, on: queue)
        }
    }
}

/// The looks that file events ask for: one at a time, each the spacing after the event that asked
/// for it and after the look before, so that a burst of writes (this process's own among them)
/// makes a look or two, not one per write.
private final class LookSchedule: Sendable {
    /// The least time between two looks, in nanoseconds.
    static let burstSpacing = 20_000_000

    private let queue: DispatchQueue
    private let spacing: Int
    /// Whether a look is scheduled, and when the last one started.
    private let state = Locked<(isScheduled: Bool, last: DispatchTime?)>((false, nil))

    init(queue: DispatchQueue, spacing: Int) {
        self.queue = queue
        self.spacing = spacing
    }

    func request(for coordinator: StoreCoordinator) {
        let deadline: DispatchTime? = state.withLock { state in
            guard !state.isScheduled else { return nil }
            state.isScheduled = true
            // Not at once: the writes of a save come as a burst, and a container released just
            // after its own save is not held open by a look of nothing.
            let soon = DispatchTime.now() + .nanoseconds(spacing)
            guard let last = state.last else { return soon }
            return max(last + .nanoseconds(spacing), soon)
        }
        guard let deadline else { return }
        queue.asyncAfter(deadline: deadline) { [weak coordinator] in
            // Taken off first: a write during the look asks for the next one.
            self.state.withLock { state in
                state.isScheduled = false
                state.last = .now()
            }
            guard let coordinator else { return }
            do {
                try coordinator.mergeOtherWriters()
            } catch {
                // A failed read moved nothing on: the next change reads the same transactions.
            }
        }
    }
}
