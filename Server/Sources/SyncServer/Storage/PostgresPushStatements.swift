import Foundation
import ObjectGraphSyncFeed
import ObjectGraphSyncProtocol
import PostgresNIO

// The statements of a push on PostgreSQL, prepared once per connection: a push runs three of them
// in its transaction, and parsing and planning them again each time was a fifth of its time.

/// Takes the zone's lock (creating the zone on its first push): `DO UPDATE` locks the row, as
/// `SELECT … FOR UPDATE` would, until commit. The last column says whether the row is new (a row
/// this transaction inserted has no `xmax`), and then how many zones its owner has with it.
struct LockZoneStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO zones (owner_id, name) VALUES ($1, $2)
        ON CONFLICT (owner_id, name) DO UPDATE SET name = excluded.name
        RETURNING id, last_position,
            CASE WHEN xmax = 0 THEN (SELECT count(*) FROM zones WHERE owner_id = $1) + 1 END
        """
    typealias Row = (Int64, Int64, Int64?)

    var ownerID: Int64
    var zone: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ownerID)
        bindings.append(zone)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// Takes the lock of a zone for a push by one of its members, and reads the member's role: no
/// row when the pusher is no member (or the zone does not exist, which only its owner's push
/// creates).
struct LockSharedZoneStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT zones.id, zones.last_position, zone_members.role FROM zones
        JOIN zone_members ON zone_members.zone_id = zones.id AND zone_members.user_id = $3
        WHERE zones.owner_id = $1 AND zones.name = $2
        FOR UPDATE OF zones
        """
    typealias Row = (Int64, Int64, String)

    var ownerID: Int64
    var zone: String
    var memberID: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(ownerID)
        bindings.append(zone)
        bindings.append(memberID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// The client's ledger (a row, if any), then the latest entry of each record the zone holds, one
/// backward index probe per record.
struct ReadLockedStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT first_number, last_number, digest, result, NULL::bigint, NULL::bigint, NULL::bigint,
               NULL::uuid, NULL::text, NULL::bigint, NULL::bool, NULL::text, NULL::text
        FROM client_ledger WHERE zone_id = $1 AND client_id = $2
        UNION ALL
        SELECT NULL::bigint, NULL::bigint, NULL::text, NULL::text, latest.*
        FROM UNNEST($3::uuid[]) AS ids(id)
        CROSS JOIN LATERAL (
            SELECT \(PostgresSyncStorage.entryColumns)
            FROM changes WHERE zone_id = $1 AND record_id = ids.id ORDER BY position DESC LIMIT 1) AS latest
        """
    typealias Row = (Int64?, Int64?, String?, String?, Int64?, Int64?, Int64?, UUID?, String?, Int64?, Bool?, String?, String?)

    var zoneID: Int64
    var clientID: UUID
    var recordIDs: [UUID]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(zoneID)
        bindings.append(clientID)
        bindings.append(recordIDs)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// Everything a push writes: its entries, the zone's head, the client's ledger, its user's stored
/// bytes (the row answers their new total, which the caller checks against the quota before the
/// commit), and the notification every listening instance receives when (and only if) the
/// transaction commits. A push may append nothing (a deletion of what is already deleted): then
/// only the ledger changes, and no one is notified.
struct WritePushStatement: PostgresPreparedStatement {
    static let sql = """
        WITH appended AS (
            INSERT INTO changes (zone_id, position, txn, record_id, entity, version, deleted, fields,
                                 field_versions, committed_at, author_id)
            SELECT $1, p, $2, r, e, v, d, f, fv, $3, $21::bigint
            FROM UNNEST($4::bigint[], $5::uuid[], $6::text[], $7::bigint[], $8::bool[], $9::text[], $10::text[])
                AS t(p, r, e, v, d, f, fv)),
        moved AS (UPDATE zones SET last_position = $11 WHERE id = $1),
        ledger AS (
            INSERT INTO client_ledger (zone_id, client_id, first_number, last_number, digest, result)
            VALUES ($1, $12, $13, $14, $15, $16)
            ON CONFLICT (zone_id, client_id) DO UPDATE SET
                first_number = excluded.first_number, last_number = excluded.last_number,
                digest = excluded.digest, result = excluded.result),
        notified AS (SELECT pg_notify($17, $18) WHERE cardinality($4::bigint[]) > 0),
        used AS (UPDATE users SET stored_bytes = stored_bytes + $19 WHERE id = $20 RETURNING stored_bytes)
        SELECT stored_bytes, (SELECT count(*) FROM notified) FROM used
        """
    typealias Row = (Int64, Int64)

    var zoneID: Int64
    var clientID: UUID
    var plan: PushPlan
    var now: Int64
    var channel: String
    var payload: String
    var addedBytes: Int64
    var ownerID: Int64
    /// The pushing user's key; nil for the zone's owner (the column is NULL for the owner's own
    /// changes, which a feed read then decodes for nothing).
    var authorID: Int64?

    func makeBindings() throws -> PostgresBindings {
        let entries = plan.entries
        var bindings = PostgresBindings(capacity: 21)
        bindings.append(zoneID)
        bindings.append(entries.first?.transaction ?? 0)
        bindings.append(now)
        bindings.append(entries.map(\.position))
        bindings.append(entries.map(\.state.id))
        bindings.append(entries.map(\.state.entity))
        bindings.append(entries.map(\.state.version))
        bindings.append(entries.map(\.state.deleted))
        bindings.append(entries.map(\.fieldsJSON))
        bindings.append(entries.map(\.fieldVersionsJSON))
        bindings.append(plan.lastPosition)
        bindings.append(clientID)
        bindings.append(plan.ledger.firstNumber)
        bindings.append(plan.ledger.lastNumber)
        bindings.append(plan.ledger.digest)
        bindings.append(plan.ledger.result)
        bindings.append(channel)
        bindings.append(payload)
        bindings.append(addedBytes)
        bindings.append(ownerID)
        if let authorID { bindings.append(authorID) } else { bindings.appendNull() }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
