public import Foundation
public import Observation
import Synchronization

/// What the sync is doing, and how it went: never a silent stall.
public struct SyncStatus: Sendable, Equatable {
    /// What the coordinator is doing.
    public enum Activity: Sendable, Equatable {
        /// Not started, or stopped.
        case stopped
        /// Everything pushed and the feed read to its end, as far as it knows.
        case idle
        /// Recording local changes and sending them.
        case pushing
        /// Reading the server's feed and applying it.
        case pulling
        /// The server could not be reached at the last attempt (see ``SyncStatus/lastError``); the
        /// next is at ``SyncStatus/nextRetry``. Local changes wait.
        case offline
        /// The last attempt failed for another reason than the network: the server's error, a
        /// record that does not fit the model, the local store (see ``SyncStatus/lastError``). It
        /// is tried again at ``SyncStatus/nextRetry``; local changes wait.
        case failing
        /// The server refused the token: nothing is tried until the coordinator is started again.
        case unauthorized
    }

    /// What the coordinator is doing now.
    public var activity: Activity = .stopped
    /// Why the last attempt failed; nil once one succeeds.
    public var lastError: SyncError?
    /// When the next attempt is due, while offline.
    public var nextRetry: Date?
    /// How many records have local changes the server has not acknowledged, as of the last look
    /// (the start and the end of each attempt).
    public var pendingChanges = 0
    /// When a cycle last ended with nothing left to push and the feed read to its end.
    public var lastSuccessfulSync: Date?
    /// Whether the server has changes this device has not read, as of the last look: false once a
    /// pull reads the feed to its end, true when the live route announces more (until they are
    /// read) or ``SyncCoordinator/checkStatus()`` finds some; nil before any look.
    public var hasUnreadServerChanges: Bool?
    /// How many records of the feed this device set aside because it could not apply them (see
    /// ``SetAsideRecord``): the rest of the zone goes on without them.
    public var setAsideRecords = 0
    /// Why the latest record was set aside, naming its entity, property and value; nil when none is.
    public var lastSetAsideReason: String?
    /// How many local records the server refused as too large (see ``HeldBackRecord``): the rest
    /// of the zone is sent without them. Not counted in ``pendingChanges``.
    public var heldBackRecords = 0
}

/// A ``SyncStatus`` that changes: `Observable` (a SwiftUI view that reads ``current`` redraws
/// when it changes), and an `AsyncSequence` of its values through ``updates``. Readable from any
/// thread.
public final class ObservableSyncStatus: Observable, Sendable {
    private let value = Mutex(SyncStatus())
    private let listeners = Mutex<[UUID: AsyncStream<SyncStatus>.Continuation]>([:])
    private let registrar = ObservationRegistrar()

    init() {}

    /// The status now.
    public var current: SyncStatus {
        registrar.access(self, keyPath: \.current)
        return value.withLock { $0 }
    }

    /// The status now, then each change of it.
    ///
    /// The stream keeps at most the 16 newest statuses its consumer has not taken: a status
    /// replaces the ones before it, so a consumer that falls behind reads the latest, and memory
    /// stays bounded.
    public var updates: AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream<SyncStatus>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        continuation.yield(value.withLock { $0 })
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Changes the status; observers and listeners hear of it when it changed.
    func update(_ change: (inout SyncStatus) -> Void) {
        let (old, new) = value.withLock { status in
            let old = status
            change(&status)
            return (old, status)
        }
        guard old != new else { return }
        registrar.withMutation(of: self, keyPath: \.current) {}
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(new) }
    }
}
