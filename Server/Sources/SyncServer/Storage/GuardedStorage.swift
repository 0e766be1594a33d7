import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import Synchronization

/// The storage as requests use it: each operation counted while it runs (the database pool's
/// use, for `/metrics`), and bounded by the server's database timeout, past which the request
/// gets 503 with `Retry-After` instead of waiting for a database that does not answer (with
/// PostgreSQL down, a request waited for a connection for tens of seconds).
///
/// While the database is away (``DatabaseOutage``, noted by ``DatabaseWatch``'s pings and by the
/// requests that found it unreachable), requests get 503 at once. The timeout is a backstop for
/// the rest: generous, so that a busy database is not taken for an absent one.
///
/// An operation cut off at the deadline may still complete: a push then applied is recognized
/// as a replay when its client sends it again. Schema migrations, the tombstone purge and the
/// administration calls are not bounded: they may rightly take long.
struct GuardedStorage: SyncStorage {
    let base: any SyncStorage
    let metrics: ServerMetrics
    let timeout: Duration
    let outage: DatabaseOutage

    var maximumConnections: Int { base.maximumConnections }

    private func run<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        if outage.isOngoing {
            throw SyncRequestError.unavailable("The database cannot be reached now; nothing was changed.")
        }
        metrics.databaseOperations.increment()
        defer { metrics.databaseOperations.decrement() }
        do {
            let result = try await withDeadline(timeout, operation)
            outage.noteAnswer()
            return result
        } catch is DeadlineExceeded {
            // Slow while answering others is busy, not away: only this request gives up.
            if !outage.answered(within: timeout) { outage.begin() }
            throw SyncRequestError.unavailable("The database did not answer within \(timeout); nothing was changed.")
        } catch  where base.isUnavailability(error) {
            outage.begin()
            throw SyncRequestError.unavailable("The database cannot be reached now; nothing was changed.")
        }
    }

    func isUnavailability(_ error: any Error) -> Bool { base.isUnavailability(error) }

    func migrate() async throws { try await base.migrate() }
    func ping() async throws { try await base.ping() }

    func addUser(named name: String, now: Int64) async throws { try await base.addUser(named: name, now: now) }
    func addToken(digest: Data, forUser name: String, now: Int64, expiresAt: Int64?) async throws -> Int64 {
        try await base.addToken(digest: digest, forUser: name, now: now, expiresAt: expiresAt)
    }
    func user(tokenDigest: Data, now: Int64) async throws -> SyncUser? {
        try await run { try await base.user(tokenDigest: tokenDigest, now: now) }
    }
    func users() async throws -> [UserRecord] { try await base.users() }
    func revokeToken(id: Int64, now: Int64) async throws { try await base.revokeToken(id: id, now: now) }

    func push(
        _ planner: PushPlanner, zone: String, owner: SyncUser, author: SyncUser, quotas: Quotas, now: Int64
    ) async throws -> PushDecision {
        try await run { try await base.push(planner, zone: zone, owner: owner, author: author, quotas: quotas, now: now) }
    }
    func changes(zone: String, owner: SyncUser, readBy user: SyncUser, since: FeedCursor, paging: FeedPaging) async throws
        -> FeedRead
    {
        try await run { try await base.changes(zone: zone, owner: owner, readBy: user, since: since, paging: paging) }
    }
    func head(zone: String, owner: SyncUser) async throws -> ZoneHead? {
        try await run { try await base.head(zone: zone, owner: owner) }
    }
    func purge(committedBefore time: Int64) async throws -> Int { try await base.purge(committedBefore: time) }

    func user(named name: String) async throws -> SyncUser? { try await run { try await base.user(named: name) } }
    func zoneID(_ zone: String, owner: SyncUser) async throws -> Int64? {
        try await run { try await base.zoneID(zone, owner: owner) }
    }
    func memberRole(of user: SyncUser, zone: String, owner: SyncUser) async throws -> ZoneRole? {
        try await run { try await base.memberRole(of: user, zone: zone, owner: owner) }
    }
    func zones(of user: SyncUser) async throws -> [ZoneMembership] { try await run { try await base.zones(of: user) } }
    func members(zoneID: Int64) async throws -> [ZoneMember] { try await run { try await base.members(zoneID: zoneID) } }
    func setMemberRole(_ role: ZoneRole, of name: String, zoneID: Int64) async throws -> Bool {
        try await run { try await base.setMemberRole(role, of: name, zoneID: zoneID) }
    }
    func removeMember(named name: String, zoneID: Int64) async throws -> Bool {
        try await run { try await base.removeMember(named: name, zoneID: zoneID) }
    }
    func addInvitation(_ invitation: NewInvitation) async throws -> Int64 {
        try await run { try await base.addInvitation(invitation) }
    }
    func invitations(for user: SyncUser, now: Int64) async throws -> [Invitation] {
        try await run { try await base.invitations(for: user, now: now) }
    }
    func acceptInvitation(_ key: InvitationKey, by user: SyncUser, now: Int64) async throws -> InvitationCheck {
        try await run { try await base.acceptInvitation(key, by: user, now: now) }
    }
    func deleteZone(_ zone: String, owner: SyncUser) async throws -> Bool {
        try await run { try await base.deleteZone(zone, owner: owner) }
    }
    func withdrawInvitation(id: Int64, zoneID: Int64, now: Int64) async throws -> Bool {
        try await run { try await base.withdrawInvitation(id: id, zoneID: zoneID, now: now) }
    }
}

/// Whether the database is away: begun by a failed ping or a request that found it
/// unreachable, ended by a successful ping. Requests meanwhile get 503 at once.
///
/// A deadline missed is no proof of absence when the database answered other operations
/// meanwhile: a busy machine or a busy database is slow, not away. `answered(within:)` tells.
final class DatabaseOutage: Sendable {
    private let ongoing = Mutex(false)
    private let lastAnswer = Mutex<ContinuousClock.Instant?>(nil)

    var isOngoing: Bool { ongoing.withLock { $0 } }

    /// Begins an outage; true when none was ongoing.
    @discardableResult
    func begin() -> Bool {
        ongoing.withLock { was in
            defer { was = true }; return !was
        }
    }

    /// Ends the outage; true when one was ongoing.
    @discardableResult
    func end() -> Bool {
        ongoing.withLock { was in
            defer { was = false }; return was
        }
    }

    /// Notes that the database answered an operation.
    func noteAnswer() {
        let now = ContinuousClock.now
        lastAnswer.withLock { $0 = now }
    }

    /// Whether the database answered an operation within the last `window`.
    func answered(within window: Duration) -> Bool {
        guard let last = lastAnswer.withLock({ $0 }) else { return false }
        return ContinuousClock.now - last <= window
    }
}
