import Foundation
import Synchronization
import ObjectGraphSyncProtocol

/// The storage as requests use it: each operation counted while it runs (the database pool's
/// use, for `/metrics`), and bounded by the server's database timeout, past which the request
/// gets 503 with `Retry-After` instead of waiting for a database that does not answer (with
/// PostgreSQL down, a request waited for a connection for tens of seconds).
///
/// Once the database failed so, requests fail at once for a second (``DatabaseOutage``): during
/// an outage a request waits for the database only once a second, the others get 503 in
/// microseconds.
///
/// An operation cut off at the deadline may still complete: a push then applied is recognized
/// as a replay when its client sends it again. Schema migrations, the tombstone purge and the
/// administration calls are not bounded: they may rightly take long.
struct GuardedStorage: SyncStorage {
    let base: any SyncStorage
    let metrics: ServerMetrics
    let timeout: Duration
    let outage = DatabaseOutage()

    var maximumConnections: Int { base.maximumConnections }

    private func run<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        if outage.isOngoing {
            throw SyncRequestError.unavailable("The database cannot be reached now; nothing was changed.")
        }
        metrics.databaseOperations.increment()
        defer { metrics.databaseOperations.decrement() }
        do {
            let result = try await withDeadline(timeout, operation)
            outage.end()
            return result
        } catch is DeadlineExceeded {
            outage.begin()
            throw SyncRequestError.unavailable("The database did not answer within \(timeout); nothing was changed.")
        } catch where base.isUnavailability(error) {
            outage.begin()
            throw SyncRequestError.unavailable("The database cannot be reached now; nothing was changed.")
        }
    }

    func isUnavailability(_ error: any Error) -> Bool { base.isUnavailability(error) }

    func migrate() async throws { try await base.migrate() }
    func ping() async throws { try await run { try await base.ping() } }

    func addUser(named name: String, now: Int64) async throws { try await base.addUser(named: name, now: now) }
    func addToken(digest: Data, forUser name: String, now: Int64, expiresAt: Int64?) async throws -> Int64 {
        try await base.addToken(digest: digest, forUser: name, now: now, expiresAt: expiresAt)
    }
    func user(tokenDigest: Data, now: Int64) async throws -> SyncUser? {
        try await run { try await base.user(tokenDigest: tokenDigest, now: now) }
    }
    func users() async throws -> [UserRecord] { try await base.users() }
    func revokeToken(id: Int64, now: Int64) async throws { try await base.revokeToken(id: id, now: now) }

    func push(_ planner: PushPlanner, zone: String, owner: SyncUser, now: Int64) async throws -> PushOutcome {
        try await run { try await base.push(planner, zone: zone, owner: owner, now: now) }
    }
    func changes(zone: String, owner: SyncUser, since: FeedCursor, limit: Int) async throws -> FeedRead {
        try await run { try await base.changes(zone: zone, owner: owner, since: since, limit: limit) }
    }
    func head(zone: String, owner: SyncUser) async throws -> ZoneHead? {
        try await run { try await base.head(zone: zone, owner: owner) }
    }
    func purge(committedBefore time: Int64) async throws -> Int { try await base.purge(committedBefore: time) }
}

/// Whether the database was found unreachable less than a second ago: then requests are refused
/// without trying it. After the second, the next request tries it again, and its success ends
/// the outage.
final class DatabaseOutage: Sendable {
    private let until = Mutex<ContinuousClock.Instant?>(nil)

    var isOngoing: Bool {
        until.withLock { until in until.map { ContinuousClock.now < $0 } ?? false }
    }

    func begin() {
        until.withLock { $0 = ContinuousClock.now + .seconds(1) }
    }

    func end() {
        until.withLock { $0 = nil }
    }
}
