import Foundation
import Logging
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import PostgresNIO
import Synchronization

/// The server's storage in PostgreSQL, through PostgresNIO: for several server instances.
///
/// A push locks its zone's row (an upsert of it) before it takes feed positions, so pushes
/// to one zone commit in position order whichever instance runs them; a feed read runs in one
/// repeatable-read snapshot. Every push also sends `NOTIFY objectgraph_feed` in its transaction,
/// which PostgreSQL delivers at commit to every instance's `PostgresFeedListener`.
final class PostgresSyncStorage: SyncStorage {
    static let channel = "objectgraph_feed"

    private let client: PostgresClient
    let logger: Logger
    /// The feed's authors, named once.
    private let authorNames = UserNames()
    private let running: Task<Void, Never>
    private let started = Flag()

    /// Opens the connection pool, which runs until the storage is released.
    ///
    /// PostgresNIO runs a client once in its life, while a server value may run its database
    /// many times (`addUser`, then its application; `withDatabase` inside a running
    /// application): running the pool per run would stop the process on PostgresNIO's
    /// precondition at the second.
    private let connections: Int
    /// One connection of the pool's, made directly to check the database at migration and to ping it.
    private let probe: PostgresConnection.Configuration

    init(configuration: PostgresClient.Configuration, probe: PostgresConnection.Configuration, logger: Logger) {
        connections = configuration.options.maximumConnections
        self.probe = probe
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        let started = started
        running = Task {
            started.raise()
            await client.run()
        }
    }

    deinit {
        running.cancel()
    }

    /// The pool, once its run began: a query that asked a pool not yet running for a connection
    /// would wait for it anyway, but PostgresNIO logs a warning for each.
    func runningClient() async -> PostgresClient {
        while !started.isRaised { await Task.yield() }
        return client
    }

    var maximumConnections: Int { connections }

    /// A query on a connection of its own, opened for it: the pool's may all be in use on a busy
    /// server, and a ping must not wait for them.
    func ping() async throws {
        let connection = try await PostgresConnection.connect(configuration: probe, id: 1, logger: logger)
        do {
            for try await _ in try await connection.query("SELECT 1", logger: logger).decode(Int.self) {}
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    func isUnavailability(_ error: any Error) -> Bool {
        let error = (error as? PostgresTransactionError).flatMap { $0.beginError ?? $0.closureError } ?? error
        guard let error = error as? PSQLError else { return false }
        return [
            .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .sslUnsupported, .failedToAddSSLHandler
        ].contains(error.code)
    }

    func migrate() async throws {
        try await checkLogin()
        try await transaction { connection in
            // Several instances may start together: one migrates, the others wait and find it done.
            try await connection.query("SELECT pg_advisory_xact_lock(7262835)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS objectgraph_schema (version INT NOT NULL)", logger: logger)
            var version = 0
            for try await found in try await connection.query(
                "SELECT version FROM objectgraph_schema", logger: logger
            ).decode(Int.self) {
                version = found
            }
            guard version < Self.migrations.count else { return }
            for statement in Self.migrations[version...].joined() {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("DELETE FROM objectgraph_schema", logger: logger)
            try await connection.query(
                "INSERT INTO objectgraph_schema (version) VALUES (\(Self.migrations.count))", logger: logger)
        }
    }

    /// Connects once, directly: the pool would retry a refused login or an unreachable server for
    /// about a minute, then fail without saying why. Fails with ``SyncDatabaseError``.
    private func checkLogin() async throws {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
        } catch let error as PSQLError {
            let server = error.serverInfo.map { info in
                "\(info[.sqlState] ?? "") \(info[.message] ?? "")".trimmingCharacters(in: .whitespaces)
            }
            if let server, error.code == .server {
                throw SyncDatabaseError.refused("PostgreSQL refused the connection: \(server)")
            }
            throw SyncDatabaseError.unreachable(
                "PostgreSQL cannot be reached (\(error.code)): \(String(reflecting: error.underlying ?? error))")
        }
        try await connection.close()
    }

    /// The schema's versions, each the statements that bring the one before it up to date.
    private static let migrations = [version1, version2, version3, version4, version5]

    /// Zones shared with other users: their members, the invitations that make them, and each
    /// change's author (NULL for the zone's owner's, and for the changes made before, which only
    /// the owner could make). The author is no
    /// foreign key: users are never removed, and the check of each inserted change cost a push
    /// an eighth of its time.
    private static let version5 = [
        """
        CREATE TABLE zone_members (zone_id BIGINT NOT NULL REFERENCES zones(id), user_id BIGINT NOT NULL REFERENCES users(id),
                                   role TEXT NOT NULL CHECK (role IN ('reader', 'writer')), joined_at BIGINT NOT NULL,
                                   PRIMARY KEY (zone_id, user_id))
        """,
        """
        CREATE TABLE invitations (id BIGSERIAL PRIMARY KEY, zone_id BIGINT NOT NULL REFERENCES zones(id),
                                  invitee_id BIGINT REFERENCES users(id), code_digest BYTEA UNIQUE,
                                  role TEXT NOT NULL CHECK (role IN ('reader', 'writer')),
                                  created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                                  accepted_by BIGINT REFERENCES users(id), accepted_at BIGINT, withdrawn_at BIGINT,
                                  CHECK ((invitee_id IS NULL) <> (code_digest IS NULL)))
        """,
        "CREATE INDEX invitations_by_invitee ON invitations (invitee_id)",
        "ALTER TABLE changes ADD COLUMN author_id BIGINT"
    ]

    /// An entry's bytes as ``Quotas/storedBytesPerUser`` counts them.
    static let storedBytesSQL = "octet_length(fields) + octet_length(field_versions) + \(Quotas.entryOverhead)"

    /// What each user keeps, for the quotas: counted once from the feeds, then kept up to date by
    /// every push and purge.
    private static let version4 = [
        "ALTER TABLE users ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0",
        """
        UPDATE users SET stored_bytes = used.bytes
        FROM (SELECT zones.owner_id, SUM(\(storedBytesSQL)) AS bytes FROM changes
              JOIN zones ON zones.id = changes.zone_id GROUP BY zones.owner_id) AS used
        WHERE users.id = used.owner_id
        """
    ]

    /// Tokens get an ID (what `user list` shows and `token revoke` takes), an expiry and a
    /// revocation date.
    private static let version3 = [
        "ALTER TABLE tokens ADD COLUMN id BIGSERIAL UNIQUE",
        "ALTER TABLE tokens ADD COLUMN expires_at BIGINT",
        "ALTER TABLE tokens ADD COLUMN revoked_at BIGINT"
    ]

    /// Fields are kept as the JSON text the server wrote, not as `jsonb`: the server never
    /// queries inside them, and `jsonb` refuses strings holding U+0000, which JSON allows (and
    /// SQLite keeps), so such a record would have failed on PostgreSQL alone.
    private static let version2 = [
        "ALTER TABLE changes ALTER COLUMN fields TYPE TEXT USING fields::text",
        "ALTER TABLE changes ALTER COLUMN field_versions TYPE TEXT USING field_versions::text"
    ]

    private static let version1 = [
        "CREATE TABLE users (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL)",
        """
        CREATE TABLE tokens (digest BYTEA PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),
                             created_at BIGINT NOT NULL)
        """,
        """
        CREATE TABLE zones (id BIGSERIAL PRIMARY KEY, owner_id BIGINT NOT NULL REFERENCES users(id),
                            name TEXT NOT NULL, last_position BIGINT NOT NULL DEFAULT 0,
                            purged_through BIGINT NOT NULL DEFAULT 0, UNIQUE (owner_id, name))
        """,
        """
        CREATE TABLE client_ledger (zone_id BIGINT NOT NULL REFERENCES zones(id), client_id UUID NOT NULL,
                                    first_number BIGINT NOT NULL, last_number BIGINT NOT NULL,
                                    digest TEXT NOT NULL, result TEXT NOT NULL,
                                    PRIMARY KEY (zone_id, client_id))
        """,
        """
        CREATE TABLE changes (zone_id BIGINT NOT NULL REFERENCES zones(id), position BIGINT NOT NULL,
                              txn BIGINT NOT NULL, record_id UUID NOT NULL, entity TEXT NOT NULL,
                              version BIGINT NOT NULL, deleted BOOLEAN NOT NULL, fields JSONB NOT NULL,
                              field_versions JSONB NOT NULL, committed_at BIGINT NOT NULL,
                              PRIMARY KEY (zone_id, position))
        """,
        "CREATE INDEX changes_by_record ON changes (zone_id, record_id, position)",
        "CREATE INDEX changes_by_time ON changes (committed_at)"
    ]

    // MARK: Users and tokens

    func addUser(named name: String, now: Int64) async throws {
        try await transaction { connection in
            let rows = try await connection.query(
                "INSERT INTO users (name, created_at) VALUES (\(name), \(now)) ON CONFLICT (name) DO NOTHING RETURNING id",
                logger: logger)
            var inserted = false
            for try await _ in rows.decode(Int64.self) { inserted = true }
            if !inserted { throw SyncAdminError.userExists(name) }
        }
    }

    func addToken(digest: Data, forUser name: String, now: Int64, expiresAt: Int64?) async throws -> Int64 {
        let rows = try await runningClient().query(
            """
            INSERT INTO tokens (digest, user_id, created_at, expires_at)
            SELECT \(digest), id, \(now), \(expiresAt) FROM users WHERE name = \(name) RETURNING id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        throw SyncAdminError.noSuchUser(name)
    }

    func user(tokenDigest: Data, now: Int64) async throws -> SyncUser? {
        let rows = try await runningClient().query(
            """
            SELECT users.id, users.name FROM tokens JOIN users ON users.id = tokens.user_id
            WHERE digest = \(tokenDigest) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > \(now))
            """,
            logger: logger)
        var user: SyncUser?
        for try await (id, name) in rows.decode((Int64, String).self) { user = SyncUser(id: id, name: name) }
        return user
    }

    func users() async throws -> [UserRecord] {
        let rows = try await runningClient().query(
            """
            SELECT users.id, users.name, users.created_at, tokens.id, tokens.created_at, tokens.expires_at, tokens.revoked_at,
                   users.stored_bytes, (SELECT count(*) FROM zones WHERE zones.owner_id = users.id)
            FROM users LEFT JOIN tokens ON tokens.user_id = users.id ORDER BY users.name, tokens.id
            """, logger: logger)
        var grouped: [UserRecord.Row] = []
        for try await (userID, name, userCreated, tokenID, created, expires, revoked, storedBytes, zones)
            in rows.decode((Int64, String, Int64, Int64?, Int64?, Int64?, Int64?, Int64, Int64).self)
        {
            var token: UserRecord.Token?
            if let tokenID {
                guard let created else { throw StorageFailure.malformedRow("token \(tokenID) has no creation date") }
                token = UserRecord.Token(
                    id: tokenID, created: Date(millisecondsSince1970: created),
                    expires: expires.map(Date.init(millisecondsSince1970:)), revoked: revoked.map(Date.init(millisecondsSince1970:)))
            }
            grouped.append(
                UserRecord.Row(
                    user: SyncUser(id: userID, name: name), created: userCreated, zones: zones, storedBytes: storedBytes,
                    token: token))
        }
        return UserRecord.grouped(grouped)
    }

    func revokeToken(id: Int64, now: Int64) async throws {
        let rows = try await runningClient().query(
            "UPDATE tokens SET revoked_at = COALESCE(revoked_at, \(now)) WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows.decode(Int64.self) { return }
        throw SyncAdminError.noSuchToken(id)
    }

    // MARK: Push

    func push(
        _ planner: PushPlanner, zone: String, owner: SyncUser, author: SyncUser, quotas: Quotas, now: Int64
    ) async throws -> PushDecision {
        let logger = logger
        // Three round trips between BEGIN and COMMIT, for an owner's push as for a member's (the statements are in
        // `PostgresPushStatements.swift`). The ledger and the records' states are read in the
        // statement after the one that takes the zone's lock: a statement that waited for the lock
        // still reads with the snapshot it started with, and would miss the push it waited for (a
        // batch sent again would then conflict with itself instead of being a replay).
        return try await transaction { connection in
            let clientID = planner.request.clientID
            var locked: (zoneID: Int64, lastPosition: Int64, zonesWithIt: Int64?)?
            if author.id == owner.id {
                for try await row in try await connection.execute(
                    LockZoneStatement(ownerID: owner.id, zone: zone), logger: logger)
                {
                    locked = row
                }
            } else {
                // A member's push: the role is read with the lock, in the same round trip.
                for try await (id, position, role) in try await connection.execute(
                    LockSharedZoneStatement(ownerID: owner.id, zone: zone, memberID: author.id), logger: logger)
                {
                    guard let role = ZoneRole(rawValue: role), role.canWrite else { throw ZoneAccessDenied.role(.reader) }
                    locked = (id, position, nil)
                }
                if locked == nil { throw ZoneAccessDenied.notMember }
            }
            guard let (zoneID, lastPosition, zonesWithIt) = locked else { throw StorageFailure.missingZone(zone) }
            if let zonesWithIt { try quotas.checkZones(Int(zonesWithIt), adding: zone, user: owner) }

            var ledger: LedgerEntry?
            var current: [UUID: RecordState] = [:]
            for try await (first, last, digest, result, position, txn, committedAt, id, entity, version, deleted, fields, versions)
                in try await connection.execute(
                    ReadLockedStatement(zoneID: zoneID, clientID: clientID, recordIDs: planner.recordIDs), logger: logger)
            {
                if let first, let last, let digest, let result {
                    ledger = LedgerEntry(firstNumber: first, lastNumber: last, digest: digest, result: result)
                }
                if let position, let txn, let committedAt, let id, let entity, let version, let deleted, let fields, let versions {
                    let entry = try Self.entry((position, txn, committedAt, id, entity, version, deleted, fields, versions))
                    current[entry.state.id] = entry.state
                }
            }
            if let decided = try planner.checkLedger(ledger) { return decided }
            let outcome = try planner.plan(current: current, zoneID: zoneID, lastPosition: lastPosition, now: now)
            guard case .apply(let plan) = outcome else { return outcome }

            let payload = PostgresFeedListener.payload(ZoneKey(ownerID: owner.id, name: zone), position: plan.lastPosition)
            let added = Quotas.storedBytes(of: plan.entries)
            var used: Int64?
            for try await (total, _) in try await connection.execute(
                WritePushStatement(
                    zoneID: zoneID, clientID: clientID, plan: plan, now: now, channel: Self.channel, payload: payload,
                    addedBytes: added, ownerID: owner.id, authorID: author.id == owner.id ? nil : author.id),
                logger: logger)
            {
                used = total
            }
            guard let used else { throw StorageFailure.malformedRow("user \(owner.id) is not in the database") }
            // Thrown before the commit: nothing of the push is kept.
            try quotas.checkStoredBytes(used - added, adding: added, of: plan, zone: zone, user: owner)
            return outcome
        }
    }

    // MARK: Feed

    func changes(zone: String, owner: SyncUser, readBy user: SyncUser, since: FeedCursor, paging: FeedPaging) async throws
        -> FeedRead
    {
        let logger = logger
        return try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            // A member's read finds the zone only through their membership: one query either way.
            let zoneQuery: PostgresQuery =
                user.id == owner.id
                ? "SELECT id, last_position, purged_through FROM zones WHERE owner_id = \(owner.id) AND name = \(zone)"
                : """
                SELECT zones.id, zones.last_position, zones.purged_through FROM zones
                JOIN zone_members ON zone_members.zone_id = zones.id AND zone_members.user_id = \(user.id)
                WHERE zones.owner_id = \(owner.id) AND zones.name = \(zone)
                """
            var found: (Int64, Int64, Int64)?
            for try await row in try await connection.query(zoneQuery, logger: logger).decode((Int64, Int64, Int64).self) {
                found = row
            }
            guard let (zoneID, lastPosition, purgedThrough) = found else {
                if user.id != owner.id { throw ZoneAccessDenied.notMember }
                return FeedPolicy.unknownZone(since: since)
            }
            let policy = FeedPolicy(zoneID: zoneID, lastPosition: lastPosition, purgedThrough: purgedThrough)
            if let refused = policy.refusal(of: since) { return .refused(refused) }

            // Row by row as they arrive, so that no more than the page's budget is held. An author
            // not named yet is looked up once the rows are read (one query at a time on a connection).
            var reader = paging.reader()
            var unnamed: [Int64: Int64] = [:]  // author by position
            let authorNames = self.authorNames
            func change(_ row: ChangeRow) -> StoredChange {
                var change = Self.change(row)
                change.author = authorNames.known(row.7, owner: owner)
                if change.author == nil, let id = row.7 { unnamed[row.0] = id }
                return change
            }
            for try await row in try await connection.query(
                """
                SELECT \(unescaped: Self.changeColumns) FROM changes WHERE zone_id = \(zoneID) AND position > \(since.position)
                ORDER BY position LIMIT \(paging.limit + 1)
                """, logger: logger
            ).decode(ChangeRow.self) {
                guard reader.add(change(row)) else { break }
            }
            if let rest = reader.restToRead {
                for try await row in try await connection.query(
                    """
                    SELECT \(unescaped: Self.changeColumns) FROM changes
                    WHERE zone_id = \(zoneID) AND txn = \(rest.transaction) AND position > \(rest.after) ORDER BY position
                    """, logger: logger
                ).decode(ChangeRow.self) {
                    _ = reader.add(change(row))
                }
            }
            var page = reader.page
            for index in page.indices where !unnamed.isEmpty {
                guard let id = unnamed[page[index].position] else { continue }
                page[index].author = try await authorNames.author(id, owner: owner) { id in
                    for try await name in try await connection.query("SELECT name FROM users WHERE id = \(id)", logger: logger)
                        .decode(String.self)
                    {
                        return name
                    }
                    throw StorageFailure.malformedRow("the author \(id) of a change is no user")
                }
            }
            return policy.read(page, hasMore: reader.hasMore, since: since)
        }
    }

    func head(zone: String, owner: SyncUser) async throws -> ZoneHead? {
        var head: ZoneHead?
        for try await (id, position, purgedThrough) in try await runningClient().query(
            "SELECT id, last_position, purged_through FROM zones WHERE owner_id = \(owner.id) AND name = \(zone)",
            logger: logger
        ).decode((Int64, Int64, Int64).self) {
            head = ZoneHead(zoneID: id, lastPosition: position, purgedThrough: purgedThrough)
        }
        return head
    }

    // MARK: Horizon

    func purge(committedBefore time: Int64) async throws -> Int {
        try await transaction { connection in
            // See SQLiteSyncStorage.purge: cursors before a purged tombstone are refused from now on.
            try await connection.query(
                """
                UPDATE zones SET purged_through = GREATEST(zones.purged_through, purged.position)
                FROM (SELECT zone_id, MAX(position) AS position FROM changes
                      WHERE deleted AND committed_at < \(time) GROUP BY zone_id) AS purged
                WHERE zones.id = purged.zone_id
                """, logger: logger)
            // What the purged entries held comes back to their owners' stored bytes.
            var count = 0
            for try await purged in try await connection.query(
                """
                WITH purged AS (
                    DELETE FROM changes WHERE committed_at < \(time) AND (deleted OR EXISTS (
                        SELECT 1 FROM changes AS later WHERE later.zone_id = changes.zone_id
                        AND later.record_id = changes.record_id AND later.position > changes.position))
                    RETURNING zone_id, \(unescaped: Self.storedBytesSQL) AS bytes),
                freed AS (
                    SELECT zones.owner_id, SUM(purged.bytes) AS bytes, count(*) AS entries
                    FROM purged JOIN zones ON zones.id = purged.zone_id GROUP BY zones.owner_id),
                credited AS (
                    UPDATE users SET stored_bytes = users.stored_bytes - freed.bytes FROM freed WHERE users.id = freed.owner_id)
                SELECT COALESCE(SUM(entries), 0)::bigint FROM freed
                """, logger: logger
            ).decode(Int64.self) {
                count = Int(purged)
            }
            return count
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction. PostgresNIO wraps what `body` throws; it comes out here as
    /// itself, so a refusal (a conflict, a record too large) reaches the client as what it is.
    /// Nothing was committed when it throws.
    func transaction<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> Result {
        do {
            return try await runningClient().withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.commitError == nil { throw closureError }
            throw error
        }
    }

    // MARK: Rows

    private typealias ChangeRow = (Int64, Int64, String, UUID, Int64, Bool, String, Int64?)

    private static let changeColumns = "position, txn, entity, record_id, version, deleted, fields, author_id"

    private static func change(_ row: ChangeRow) -> StoredChange {
        StoredChange(
            position: row.0, transaction: row.1, entity: row.2, id: row.3, version: row.4, deleted: row.5,
            fieldsJSON: row.6)
    }

    private typealias EntryRow = (Int64, Int64, Int64, UUID, String, Int64, Bool, String, String)

    /// The columns `entry(_:)` reads, in its order.
    static let entryColumns =
        "position, txn, committed_at, record_id, entity, version, deleted, fields, field_versions"

    private static func entry(_ row: EntryRow) throws -> FeedEntry {
        let state = RecordState(
            entity: row.4, id: row.3, version: row.5, deleted: row.6,
            fields: try StoredJSON.fields(from: row.7),
            fieldVersions: try StoredJSON.fieldVersions(from: row.8))
        return FeedEntry(
            position: row.0, transaction: row.1, committedAt: row.2, state: state,
            fieldsJSON: row.7, fieldVersionsJSON: row.8)
    }
}

/// A flag one task raises and others read.
private final class Flag: Sendable {
    private let state = Mutex(false)

    var isRaised: Bool { state.withLock { $0 } }

    func raise() { state.withLock { $0 = true } }
}
