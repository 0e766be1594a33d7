public import Foundation
import ObjectGraphSync
public import ObjectGraphSyncFeed
public import ObjectGraphSyncProtocol
import Synchronization

/// A sync server held in memory, for an app's tests: the decisions of the server of `Server/`
/// (ObjectGraphSyncFeed: what a push does to a zone, what a page of the feed holds), without
/// HTTP, a database or a process.
///
/// ```swift
/// let server = InMemorySyncServer()
/// let sync = try SyncCoordinator(
///     container: container, remote: server.remote(), zone: "moods", syncing: [Mood.self])
/// ```
///
/// Each remote reaches the zones of one user. What crosses between a remote and the server is
/// encoded and decoded as JSON, as on the wire, so that a value that would not survive the trip
/// to a real server does not survive this one either. It passes the same contract as the real
/// server (``SyncRemoteContract``); what it leaves out is what a database and HTTP add: limits on
/// connections and rates, tokens, and surviving its process.
public final class InMemorySyncServer: Sendable {
    /// The sizes a request may have, as the real server's.
    public let limits: ServerLimits
    let state = Mutex(State())

    struct State: ~Copyable {
        var zones: [ZoneKey: InMemoryZone] = [:]
        var nextZoneID: Int64 = 1
        var isOnline = true
        var listeners: [ZoneKey: [UUID: Listener]] = [:]
        /// Every user a remote was made for: those an invitation can name.
        var users: Set<String> = []
        /// Each shared zone's members (its owner apart) and their roles.
        var members: [ZoneKey: [String: ZoneRole]] = [:]
        var invitations: [Int64: StoredInvitation] = [:]
        var nextInvitationID: Int64 = 1
    }

    /// A zone: its owner's name and its name.
    struct ZoneKey: Hashable, CustomStringConvertible {
        var owner: String
        var zone: String

        var description: String { "\(owner)'s zone \(zone.debugDescription)" }
    }

    typealias LiveContinuation = AsyncThrowingStream<Data, any Error>.Continuation

    /// A live route under way, its listener, and the position it was last told of.
    struct Listener {
        var continuation: LiveContinuation
        var user: String
        var announced: Int64
    }

    /// A server with no zones.
    public init(limits: ServerLimits = ServerLimits()) {
        self.limits = limits
    }

    /// A remote that reaches the zones of `user` (each user has zones of their own).
    public func remote(user: String = "user") -> InMemorySyncRemote {
        state.withLock { _ = $0.users.insert(user) }
        return InMemorySyncRemote(server: self, user: user)
    }

    /// Whether the server answers. Offline, every call fails as `SyncError.unreachable`, as when
    /// a real server cannot be reached, and the live routes under way break.
    public var isOnline: Bool {
        get { state.withLock { $0.isOnline } }
        set {
            let broken = state.withLock { state in
                state.isOnline = newValue
                guard !newValue else { return [LiveContinuation]() }
                defer { state.listeners = [:] }
                return state.listeners.values.flatMap(\.values).map(\.continuation)
            }
            for continuation in broken { continuation.finish(throwing: Self.offline) }
        }
    }

    /// Drops the tombstones and superseded entries committed before `date` (all of them, by
    /// default), as the real server does past its tombstone horizon; returns how many went. A
    /// client whose cursor is older than a tombstone dropped must read its zone again.
    @discardableResult
    public func purge(committedBefore date: Date = .distantFuture) -> Int {
        let time = Self.milliseconds(date)
        return state.withLock { state in
            var count = 0
            for key in Array(state.zones.keys) { count += state.zones[key]?.purge(committedBefore: time) ?? 0 }
            return count
        }
    }

    /// The latest state of every record a zone of `user` holds, tombstones included, in the order
    /// of the feed; empty for a zone never pushed to.
    public func records(zone: String, user: String = "user") -> [SyncedRecord] {
        state.withLock { $0.zones[ZoneKey(owner: user, zone: zone)]?.records ?? [] }
    }

    // MARK: What the remotes call

    static let offline = SyncError.unreachable("the in-memory server is offline")

    /// Applies a push, all or nothing; throws a `SyncRefusal` for a request the server refuses.
    func push(_ request: PushRequest, to key: ZoneKey, by user: String) throws -> PushDecision {
        try ZoneName.check(key.zone)
        try request.validate(against: limits)
        let planner = PushPlanner(request: request, limits: limits)
        let now = Self.milliseconds(Date())
        let (decision, told) = try state.withLock { state throws -> (PushDecision, [LiveContinuation]) in
            guard state.isOnline else { throw Self.offline }
            try Self.require(.writer, of: user, in: key, state)
            // The zone is made in the push's "transaction": a push refused by a throw leaves none.
            var zone = state.zones[key] ?? InMemoryZone(id: state.nextZoneID)
            let decision = try zone.push(planner, now: now, author: user)
            if state.zones[key] == nil { state.nextZoneID += 1 }
            state.zones[key] = zone
            guard case .apply(let plan) = decision, !plan.entries.isEmpty else { return (decision, []) }
            return (decision, Self.untold(of: zone.head, in: &state.listeners[key]))
        }
        if case .apply(let plan) = decision {
            let head = plan.result.cursor
            for continuation in told {
                do {
                    try Self.yield(.changes(LiveEvent(cursor: head)), to: continuation)
                } catch {
                    continuation.finish(throwing: error)  // a stream that cannot be told ends, as a broken route
                }
            }
        }
        return decision
    }

    /// The changes after `since`; throws a `SyncRefusal` for a cursor that cannot be read from.
    func changes(of key: ZoneKey, since: FeedCursor, limit: Int, by user: String) throws -> FeedPage {
        try ZoneName.check(key.zone)
        let limit = try FeedPaging.limit(asked: limit, maximum: limits.maxPageSize)
        let read = try state.withLock { state throws in
            guard state.isOnline else { throw Self.offline }
            try Self.require(.reader, of: user, in: key, state)
            return state.zones[key]?.changes(since: since, limit: limit, byteBudget: limits.maxPageBytes)
                ?? FeedPolicy.unknownZone(since: since)
        }
        switch read {
        case .page(let page): return page
        case .refused(let refusal): throw refusal.refusal(since: since, zone: key.zone)
        }
    }

    /// Starts a live route: `: listening` at once, then an event whenever the zone's feed moves
    /// past `since`, as the real server's route.
    func listen(to key: ZoneKey, since: FeedCursor, by user: String, on continuation: LiveContinuation) throws {
        try ZoneName.check(key.zone)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in _ = state.listeners[key]?.removeValue(forKey: id) }
        }
        // Told under the lock, so that no push comes between the head announced and the listener
        // registered (a push then announces itself after the head, never before).
        try state.withLock { state throws in
            guard state.isOnline else { throw Self.offline }
            try Self.require(.reader, of: user, in: key, state)
            let zone = state.zones[key]
            let refusal = zone.map { $0.refusal(of: since) } ?? FeedPolicy.refusalInUnknownZone(of: since)
            if let refusal { throw refusal.refusal(since: since, zone: key.zone) }
            try Self.yield(.listening, to: continuation)
            if let head = zone?.head, head.position > since.position {
                try Self.yield(.changes(LiveEvent(cursor: head)), to: continuation)
            }
            state.listeners[key, default: [:]][id] = Listener(
                continuation: continuation, user: user, announced: max(since.position, zone?.head.position ?? 0))
        }
    }

    /// The live routes of a zone not yet told of `head`, marked as told.
    private static func untold(of head: FeedCursor, in listeners: inout [UUID: Listener]?) -> [LiveContinuation] {
        guard var all = listeners else { return [] }
        var untold: [LiveContinuation] = []
        for (id, listener) in all where listener.announced < head.position {
            all[id]?.announced = head.position
            untold.append(listener.continuation)
        }
        listeners = all
        return untold
    }

    private static func yield(_ message: LiveMessage, to continuation: LiveContinuation) throws {
        continuation.yield(Data(try message.text().utf8))
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds < Double(Int64.max) else { return .max }
        return milliseconds > Double(Int64.min) ? Int64(milliseconds) : .min
    }
}
