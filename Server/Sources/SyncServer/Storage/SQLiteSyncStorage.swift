import Foundation
import GRDB
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol

/// The server's storage in one SQLite file, through GRDB: the default, for one server process.
///
/// GRDB's pool gives one writer and concurrent snapshot readers (WAL), so a push holds the
/// database's write lock for its transaction (which orders every zone's positions) while feeds
/// are read at the same time from snapshots.
final class SQLiteSyncStorage: SyncStorage {
    let pool: DatabasePool
    /// The readiness ping's connection, apart from the pool: a ping queued behind readers busy
    /// with long feed reads would make a busy database look unreachable.
    let pingConnection: DatabaseQueue
    private let notifier: FeedNotifier
    /// The feed's authors, named once.
    private let authorNames = UserNames()
    /// One push of a zone at a time, across the steps it is written in.
    let zoneTurns = FairTurns<ZoneKey>(limit: 1)

    /// Opens (or creates) the database file.
    init(path: String, notifier: FeedNotifier) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // `user add` from another process while serving
        configuration.label = "objectgraph-sync"
        self.pool = try DatabasePool(path: path, configuration: configuration)
        var pingConfiguration = Configuration()
        pingConfiguration.label = "objectgraph-sync-ping"
        self.pingConnection = try DatabaseQueue(path: path, configuration: pingConfiguration)
        self.notifier = notifier
    }

    /// A writer and GRDB's default five readers.
    var maximumConnections: Int { 6 }

    func ping() async throws {
        // Reads the file's schema, so that a file that went away or cannot be read fails the ping.
        _ = try await pingConnection.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
    }

    func isUnavailability(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        // Locked by another process past the busy timeout, or the file cannot be opened or read.
        return [.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_FULL].contains(error.resultCode)
    }

    func migrate() async throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
                    CREATE TABLE tokens (
                        digest BLOB PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                        created_at INTEGER NOT NULL);
                    CREATE TABLE zones (
                        id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL,
                        last_position INTEGER NOT NULL DEFAULT 0, purged_through INTEGER NOT NULL DEFAULT 0,
                        UNIQUE (owner_id, name));
                    CREATE TABLE client_ledger (
                        zone_id INTEGER NOT NULL REFERENCES zones(id), client_id BLOB NOT NULL,
                        first_number INTEGER NOT NULL, last_number INTEGER NOT NULL,
                        digest TEXT NOT NULL, result TEXT NOT NULL,
                        PRIMARY KEY (zone_id, client_id)) WITHOUT ROWID;
                    CREATE TABLE changes (
                        zone_id INTEGER NOT NULL REFERENCES zones(id), position INTEGER NOT NULL,
                        txn INTEGER NOT NULL, record_id BLOB NOT NULL, entity TEXT NOT NULL,
                        version INTEGER NOT NULL, deleted INTEGER NOT NULL, fields TEXT NOT NULL,
                        field_versions TEXT NOT NULL, committed_at INTEGER NOT NULL,
                        PRIMARY KEY (zone_id, position)) WITHOUT ROWID;
                    CREATE INDEX changes_by_record ON changes (zone_id, record_id, position);
                    CREATE INDEX changes_by_time ON changes (committed_at);
                    """)
        }
        // Tokens get an ID (what `user list` shows and `token revoke` takes), an expiry and a
        // revocation date. The table is made again: SQLite adds no key column to a table.
        migrator.registerMigration("v2: token life cycle") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tokens_v2 (
                        id INTEGER PRIMARY KEY, digest BLOB NOT NULL UNIQUE, user_id INTEGER NOT NULL REFERENCES users(id),
                        created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER);
                    INSERT INTO tokens_v2 (digest, user_id, created_at) SELECT digest, user_id, created_at FROM tokens ORDER BY rowid;
                    DROP TABLE tokens;
                    ALTER TABLE tokens_v2 RENAME TO tokens;
                    """)
        }
        // What each user keeps, for the quotas: counted once from the feeds, then kept up to date
        // by every push and purge.
        migrator.registerMigration("v3: stored bytes") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
                    UPDATE users SET stored_bytes = (
                        SELECT COALESCE(SUM(\(Self.storedBytesSQL)), 0) FROM changes
                        JOIN zones ON zones.id = changes.zone_id
                        WHERE zones.owner_id = users.id AND changes.position <= zones.last_position);
                    """)
        }
        // Zones shared with other users: their members, the invitations that make them, and each
        // change's author (NULL for the changes made before: their zone's owner's; no foreign
        // key, as on PostgreSQL, where its check of each inserted change cost a push an eighth
        // of its time: users are never removed).
        migrator.registerMigration("v4: members") { db in
            try db.execute(
                sql: """
                    CREATE TABLE zone_members (
                        zone_id INTEGER NOT NULL REFERENCES zones(id), user_id INTEGER NOT NULL REFERENCES users(id),
                        role TEXT NOT NULL CHECK (role IN ('reader', 'writer')), joined_at INTEGER NOT NULL,
                        PRIMARY KEY (zone_id, user_id)) WITHOUT ROWID;
                    CREATE TABLE invitations (
                        id INTEGER PRIMARY KEY, zone_id INTEGER NOT NULL REFERENCES zones(id),
                        invitee_id INTEGER REFERENCES users(id), code_digest BLOB UNIQUE,
                        role TEXT NOT NULL CHECK (role IN ('reader', 'writer')),
                        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                        accepted_by INTEGER REFERENCES users(id), accepted_at INTEGER, withdrawn_at INTEGER,
                        CHECK ((invitee_id IS NULL) <> (code_digest IS NULL)));
                    CREATE INDEX invitations_by_invitee ON invitations (invitee_id);
                    ALTER TABLE changes ADD COLUMN author_id INTEGER;
                    """)
        }
        try migrator.migrate(pool)
    }

    // MARK: Users and tokens

    func addUser(named name: String, now: Int64) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) == true {
                throw SyncAdminError.userExists(name)
            }
            try db.execute(sql: "INSERT INTO users (name, created_at) VALUES (?, ?)", arguments: [name, now])
        }
    }

    func addToken(digest: Data, forUser name: String, now: Int64, expiresAt: Int64?) async throws -> Int64 {
        try await pool.write { db in
            guard let userID = try Int64.fetchOne(db, sql: "SELECT id FROM users WHERE name = ?", arguments: [name])
            else { throw SyncAdminError.noSuchUser(name) }
            try db.execute(
                sql: "INSERT INTO tokens (digest, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [digest, userID, now, expiresAt])
            return db.lastInsertedRowID
        }
    }

    func user(tokenDigest: Data, now: Int64) async throws -> SyncUser? {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT users.id, users.name FROM tokens JOIN users ON users.id = tokens.user_id
                    WHERE digest = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
                    """,
                arguments: [tokenDigest, now])
            return row.map { SyncUser(id: $0[0], name: $0[1]) }
        }
    }

    func users() async throws -> [UserRecord] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT users.id, users.name, users.created_at, tokens.id, tokens.created_at, tokens.expires_at,
                           tokens.revoked_at, users.stored_bytes,
                           (SELECT count(*) FROM zones WHERE zones.owner_id = users.id)
                    FROM users LEFT JOIN tokens ON tokens.user_id = users.id ORDER BY users.name, tokens.id
                    """)
            return UserRecord.grouped(
                rows.map { row in
                    UserRecord.Row(
                        user: SyncUser(id: row[0], name: row[1]), created: row[2], zones: row[8], storedBytes: row[7],
                        token: (row[3] as Int64?).map { id in
                            UserRecord.Token(
                                id: id, created: Date(millisecondsSince1970: row[4]),
                                expires: (row[5] as Int64?).map(Date.init(millisecondsSince1970:)),
                                revoked: (row[6] as Int64?).map(Date.init(millisecondsSince1970:)))
                        })
                })
        }
    }

    func revokeToken(id: Int64, now: Int64) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM tokens WHERE id = ?", arguments: [id]) == true else {
                throw SyncAdminError.noSuchToken(id)
            }
            try db.execute(sql: "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [now, id])
        }
    }

    // MARK: Push

    func push(
        _ planner: PushPlanner, zone: String, owner: SyncUser, author: SyncUser, quotas: Quotas, now: Int64
    ) async throws -> PushDecision {
        let key = ZoneKey(ownerID: owner.id, name: zone)
        // One push of a zone at a time: its steps count on the zone staying as its first one found it.
        let outcome = try await zoneTurns.run(key) {
            try await self.applyInSteps(planner, zone: zone, owner: owner, author: author, quotas: quotas, now: now)
        }
        if case .apply(let plan) = outcome, !plan.entries.isEmpty {
            notifier.publish(key, position: plan.lastPosition)
        }
        return outcome
    }

    /// The most changes one write transaction of a push inserts: SQLite has one writer, and a
    /// push of a thousand records written at once would make every other user's push wait for
    /// it. Written in steps, it lets them go between two steps; readers see none of it until the
    /// last step moves the zone's head past it (every read stops at the head).
    static let changesPerStep = 100

    private func applyInSteps(
        _ planner: PushPlanner, zone: String, owner: SyncUser, author: SyncUser, quotas: Quotas, now: Int64
    ) async throws -> PushDecision {
        let clientID = planner.request.clientID
        let authorKey = author.id == owner.id ? nil : author.id  // NULL for the owner's own changes
        let small = planner.recordIDs.count <= Self.changesPerStep
        // A small push is planned and written in one transaction. A large one is planned from a
        // snapshot, which holds no lock (the zone's turn keeps its other pushes out meanwhile),
        // and written in steps.
        let (outcome, zoneID): (PushDecision, Int64)
        if small {
            (outcome, zoneID) = try await pool.write { db in
                try Self.requireRole(.writer, of: author, zone: zone, owner: owner, db)
                let found = try Self.zoneForPush(zone, owner: owner, quotas: quotas, db)
                let outcome = try Self.plan(planner, zoneID: found.id, lastPosition: found.lastPosition, now: now, db)
                if case .apply(let plan) = outcome {
                    try Self.insert(plan.entries[...], zoneID: found.id, author: authorKey, db)
                    try Self.publish(plan, zone: zone, zoneID: found.id, owner: owner, quotas: quotas, clientID: clientID, db)
                }
                return (outcome, found.id)
            }
            return outcome
        }
        let found = try await pool.write { db in
            try Self.requireRole(.writer, of: author, zone: zone, owner: owner, db)
            return try Self.zoneForPush(zone, owner: owner, quotas: quotas, db)
        }
        zoneID = found.id
        do {
            outcome = try await pool.read { db in
                let outcome = try Self.plan(planner, zoneID: found.id, lastPosition: found.lastPosition, now: now, db)
                // Refused before any step is written; the last step checks again.
                if case .apply(let plan) = outcome {
                    try quotas.checkStoredBytes(
                        try Self.storedBytes(of: owner, db), adding: Quotas.storedBytes(of: plan.entries), of: plan, zone: zone,
                        user: owner)
                }
                return outcome
            }
        } catch {
            // A zone this push created goes with it, as it would with a push in one transaction.
            if found.created { try? await pool.write { db in try Self.dropZoneIfEmpty(zoneID, db) } }
            throw error
        }
        guard case .apply(let plan) = outcome else { return outcome }
        var rest = plan.entries[...]
        do {
            while !rest.isEmpty {
                let step = rest.prefix(Self.changesPerStep)
                rest = rest.dropFirst(step.count)
                let isLast = rest.isEmpty
                try await pool.write { db in
                    try Self.insert(step, zoneID: zoneID, author: authorKey, db)
                    if isLast {
                        try Self.publish(plan, zone: zone, zoneID: zoneID, owner: owner, quotas: quotas, clientID: clientID, db)
                    }
                }
            }
        } catch {
            // The steps written are nobody's: cleared now rather than at the zone's next push.
            try? await pool.write { db in
                try db.execute(sql: "DELETE FROM changes WHERE zone_id = ? AND position > ?", arguments: [zoneID, found.lastPosition])
                if found.created { try Self.dropZoneIfEmpty(zoneID, db) }
            }
            throw error
        }
        return outcome
    }

    /// The zone a push goes to, created when it is the first, cleared of the steps of a push that
    /// never took its last one (the process stopped: nobody saw them).
    private static func zoneForPush(
        _ zone: String, owner: SyncUser, quotas: Quotas, _ db: Database
    ) throws -> (id: Int64, lastPosition: Int64, created: Bool) {
        try db.execute(
            sql: "INSERT INTO zones (owner_id, name) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [owner.id, zone])
        let created = db.changesCount > 0
        if created {
            let zones = try Int.fetchOne(db, sql: "SELECT count(*) FROM zones WHERE owner_id = ?", arguments: [owner.id]) ?? 0
            try quotas.checkZones(zones, adding: zone, user: owner)
        }
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT id, last_position FROM zones WHERE owner_id = ? AND name = ?", arguments: [owner.id, zone])
        else { throw StorageFailure.missingZone(zone) }
        let zoneID: Int64 = row[0], lastPosition: Int64 = row[1]
        try db.execute(sql: "DELETE FROM changes WHERE zone_id = ? AND position > ?", arguments: [zoneID, lastPosition])
        return (zoneID, lastPosition, created)
    }

    /// Removes a zone its first push created and did not fill (refused, or failed on the way).
    private static func dropZoneIfEmpty(_ zoneID: Int64, _ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM zones WHERE id = ? AND last_position = 0
                AND NOT EXISTS (SELECT 1 FROM changes WHERE zone_id = ?)
                AND NOT EXISTS (SELECT 1 FROM client_ledger WHERE zone_id = ?)
                """, arguments: [zoneID, zoneID, zoneID])
    }

    /// What the push does, from the client's ledger and the current state of its records.
    private static func plan(
        _ planner: PushPlanner, zoneID: Int64, lastPosition: Int64, now: Int64, _ db: Database
    ) throws -> PushDecision {
        let ledger = try Row.fetchOne(
            db,
            sql: """
                SELECT first_number, last_number, digest, result FROM client_ledger
                WHERE zone_id = ? AND client_id = ?
                """, arguments: [zoneID, planner.request.clientID]
        ).map { LedgerEntry(firstNumber: $0[0], lastNumber: $0[1], digest: $0[2], result: $0[3]) }
        if let decided = try planner.checkLedger(ledger) { return decided }

        var current: [UUID: RecordState] = [:]
        // Without INDEXED BY, SQLite satisfies ORDER BY position with the primary key and
        // scans the zone's whole feed backwards for each record: a push's cost would grow
        // with the zone instead of with the batch.
        let latest = try db.cachedStatement(
            sql: """
                SELECT \(Self.entryColumns) FROM changes INDEXED BY changes_by_record
                WHERE zone_id = ? AND record_id = ? ORDER BY position DESC LIMIT 1
                """)
        for id in planner.recordIDs {
            // The arguments match the statement's two parameters: GRDB need not check them.
            latest.setUncheckedArguments([zoneID, id])
            if let entry = try Row.fetchOne(latest).map(Self.entry) {
                current[id] = entry.state
            }
        }
        return try planner.plan(current: current, zoneID: zoneID, lastPosition: lastPosition, now: now)
    }

    /// The bytes a user's zones hold, as the quota counts them.
    private static func storedBytes(of user: SyncUser, _ db: Database) throws -> Int64 {
        guard let bytes = try Int64.fetchOne(db, sql: "SELECT stored_bytes FROM users WHERE id = ?", arguments: [user.id])
        else { throw StorageFailure.malformedRow("user \(user.id) is not in the database") }
        return bytes
    }

    /// Inserts a push's entries; the author's key is NULL for the zone's owner's own changes.
    private static func insert(_ entries: ArraySlice<FeedEntry>, zoneID: Int64, author: Int64?, _ db: Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO changes (zone_id, position, txn, record_id, entity, version, deleted, fields,
                                     field_versions, committed_at, author_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for entry in entries {
            try insert.execute(arguments: [
                zoneID, entry.position, entry.transaction, entry.state.id, entry.state.entity,
                entry.state.version, entry.state.deleted, entry.fieldsJSON, entry.fieldVersionsJSON,
                entry.committedAt, author
            ])
        }
    }

    /// The push's last step: the zone's head moves past its changes, its client's ledger records
    /// it, and its user's stored bytes grow by it (within their quota), in one transaction.
    private static func publish(
        _ plan: PushPlan, zone: String, zoneID: Int64, owner: SyncUser, quotas: Quotas, clientID: UUID, _ db: Database
    ) throws {
        let added = Quotas.storedBytes(of: plan.entries)
        try quotas.checkStoredBytes(try storedBytes(of: owner, db), adding: added, of: plan, zone: zone, user: owner)
        try db.execute(sql: "UPDATE users SET stored_bytes = stored_bytes + ? WHERE id = ?", arguments: [added, owner.id])
        try db.execute(sql: "UPDATE zones SET last_position = ? WHERE id = ?", arguments: [plan.lastPosition, zoneID])
        try db.execute(
            sql: """
                INSERT INTO client_ledger (zone_id, client_id, first_number, last_number, digest, result)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (zone_id, client_id) DO UPDATE SET
                    first_number = excluded.first_number, last_number = excluded.last_number,
                    digest = excluded.digest, result = excluded.result
                """,
            arguments: [
                zoneID, clientID, plan.ledger.firstNumber, plan.ledger.lastNumber, plan.ledger.digest, plan.ledger.result
            ])
    }

    // MARK: Feed

    func changes(zone: String, owner: SyncUser, readBy user: SyncUser, since: FeedCursor, paging: FeedPaging) async throws
        -> FeedRead
    {
        try await pool.read { db in
            try Self.requireRole(.reader, of: user, zone: zone, owner: owner, db)
            guard
                let zoneRow = try Row.fetchOne(
                    db, sql: "SELECT id, last_position, purged_through FROM zones WHERE owner_id = ? AND name = ?",
                    arguments: [owner.id, zone])
            else { return FeedPolicy.unknownZone(since: since) }
            let zoneID: Int64 = zoneRow[0]
            let head = FeedPolicy(zoneID: zoneID, lastPosition: zoneRow[1], purgedThrough: zoneRow[2])
            if let refused = head.refusal(of: since) { return .refused(refused) }
            // Row by row, so that no more than the page's budget is held.
            var reader = paging.reader()
            let entries = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(Self.changeColumns) FROM changes WHERE zone_id = ? AND position > ? AND position <= ?
                    ORDER BY position LIMIT ?
                    """, arguments: [zoneID, since.position, head.lastPosition, paging.limit + 1])
            while let row = try entries.next() {
                guard reader.add(try self.change(row, owner: owner, db)) else { break }
            }
            if let rest = reader.restToRead {
                let entries = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT \(Self.changeColumns) FROM changes WHERE zone_id = ? AND txn = ? AND position > ?
                        AND position <= ? ORDER BY position
                        """, arguments: [zoneID, rest.transaction, rest.after, head.lastPosition])
                while let row = try entries.next() { _ = reader.add(try self.change(row, owner: owner, db)) }
            }
            return head.read(reader.page, hasMore: reader.hasMore, since: since)
        }
    }

    func head(zone: String, owner: SyncUser) async throws -> ZoneHead? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT id, last_position, purged_through FROM zones WHERE owner_id = ? AND name = ?",
                arguments: [owner.id, zone]
            ).map { ZoneHead(zoneID: $0[0], lastPosition: $0[1], purgedThrough: $0[2]) }
        }
    }

    // MARK: Horizon

    func purge(committedBefore time: Int64) async throws -> Int {
        try await pool.write { db in
            // A client whose cursor is before a purged tombstone could miss a deletion: such
            // cursors are refused from now on (410). Superseded entries are safe to drop: the
            // entry that superseded them comes later in the feed.
            // Only what the feed shows counts: the steps of a push not yet published are none of it.
            try db.execute(
                sql: """
                    UPDATE zones SET purged_through = MAX(purged_through, (
                        SELECT MAX(position) FROM changes
                        WHERE changes.zone_id = zones.id AND deleted AND committed_at < ?
                        AND position <= zones.last_position))
                    WHERE EXISTS (
                        SELECT 1 FROM changes WHERE changes.zone_id = zones.id AND deleted AND committed_at < ?
                        AND position <= zones.last_position)
                    """, arguments: [time, time])
            // What each zone's purged entries held comes back to its owner's stored bytes.
            let purged = try Row.fetchCursor(
                db,
                sql: """
                    DELETE FROM changes WHERE committed_at < ?
                    AND position <= (SELECT last_position FROM zones WHERE zones.id = changes.zone_id)
                    AND (deleted OR EXISTS (
                        SELECT 1 FROM changes AS later WHERE later.zone_id = changes.zone_id
                        AND later.record_id = changes.record_id AND later.position > changes.position
                        AND later.position <= (SELECT last_position FROM zones WHERE zones.id = later.zone_id)))
                    RETURNING zone_id, \(Self.storedBytesSQL)
                    """, arguments: [time])
            var count = 0
            var freed: [Int64: Int64] = [:]
            while let row = try purged.next() {
                count += 1
                freed[row[0], default: 0] += row[1]
            }
            for (zoneID, bytes) in freed {
                try db.execute(
                    sql: "UPDATE users SET stored_bytes = stored_bytes - ? WHERE id = (SELECT owner_id FROM zones WHERE id = ?)",
                    arguments: [bytes, zoneID])
            }
            return count
        }
    }

    // MARK: Rows

    /// An entry's bytes as ``Quotas/storedBytesPerUser`` counts them (`length` of text counts
    /// characters; of a blob, bytes).
    static let storedBytesSQL =
        "length(CAST(fields AS BLOB)) + length(CAST(field_versions AS BLOB)) + \(Quotas.entryOverhead)"

    private static let entryColumns =
        "position, txn, committed_at, record_id, entity, version, deleted, fields, field_versions"

    private static let changeColumns = "position, txn, entity, record_id, version, deleted, fields, author_id"

    private func change(_ row: Row, owner: SyncUser, _ db: Database) throws -> StoredChange {
        StoredChange(
            position: row[0], transaction: row[1], entity: row[2], id: row[3], version: row[4], deleted: row[5],
            fieldsJSON: row[6],
            author: try authorNames.author(row[7], owner: owner) { id in
                guard let name = try String.fetchOne(db, sql: "SELECT name FROM users WHERE id = ?", arguments: [id]) else {
                    throw StorageFailure.malformedRow("the author \(id) of a change is no user")
                }
                return name
            })
    }

    private static func entry(_ row: Row) throws -> FeedEntry {
        let fieldsJSON: String = row[7]
        let fieldVersionsJSON: String = row[8]
        let state = RecordState(
            entity: row[4], id: row[3], version: row[5], deleted: row[6],
            fields: try StoredJSON.fields(from: fieldsJSON),
            fieldVersions: try StoredJSON.fieldVersions(from: fieldVersionsJSON))
        return FeedEntry(
            position: row[0], transaction: row[1], committedAt: row[2], state: state,
            fieldsJSON: fieldsJSON, fieldVersionsJSON: fieldVersionsJSON)
    }
}
