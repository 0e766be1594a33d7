import Foundation
import GRDB
import Logging
import ObjectGraphSyncProtocol
import PostgresNIO

/// The baseline: the same records written and read as plain SQL through the same driver, with no
/// sync bookkeeping (no versions, no ledger, no conflict checks, no log of past states). An upsert
/// merges the fields it carries into the stored ones, as the server's field-wise update does, and
/// moves the row to the end of the sequence, so that reading after a sequence number sees every
/// change: the least a store must do to hand out changes since a point.
protocol PlainStore: Sendable {
    /// Writes a batch of upserts in one transaction.
    func upsert(zone: String, _ mutations: [Mutation]) async throws
    /// Reads up to `limit` rows of a zone after `after` in write order: (rows read, last row's key).
    func read(zone: String, after: Int64, limit: Int) async throws -> (count: Int, last: Int64)
}

/// Plain SQLite through GRDB.
struct PlainSQLite: PlainStore {
    let pool: DatabasePool

    init(path: String) throws {
        pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS records (
                        seq INTEGER PRIMARY KEY, zone TEXT NOT NULL, id BLOB NOT NULL, entity TEXT NOT NULL,
                        fields TEXT NOT NULL, UNIQUE (zone, id));
                    CREATE INDEX IF NOT EXISTS records_by_zone ON records (zone, seq);
                    """)
        }
    }

    func upsert(zone: String, _ mutations: [Mutation]) async throws {
        let rows = try mutations.map { ($0.id, $0.entity, try JSONEncoder().encode($0.fields)) }
        try await pool.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO records (zone, id, entity, fields) VALUES (?, ?, ?, ?)
                    ON CONFLICT (zone, id) DO UPDATE SET
                        fields = json_patch(fields, excluded.fields), seq = (SELECT MAX(seq) + 1 FROM records)
                    """)
            for (id, entity, fields) in rows {
                try statement.execute(arguments: [zone, id, entity, String(decoding: fields, as: UTF8.self)])
            }
        }
    }

    func read(zone: String, after: Int64, limit: Int) async throws -> (count: Int, last: Int64) {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT seq, id, entity, fields FROM records WHERE zone = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [zone, after, limit])
            return (rows.count, rows.last?["seq"] ?? after)
        }
    }
}

/// Plain PostgreSQL through PostgresNIO.
struct PlainPostgres: PlainStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the table; `client` must be running.
    static func prepare(_ client: PostgresClient, logger: Logger) async throws -> PlainPostgres {
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS plain_records (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, zone TEXT NOT NULL, id UUID NOT NULL,
                entity TEXT NOT NULL, fields JSONB NOT NULL, UNIQUE (zone, id))
            """, logger: logger)
        try await client.query(
            "CREATE INDEX IF NOT EXISTS plain_records_by_zone ON plain_records (zone, seq)", logger: logger)
        return PlainPostgres(client: client, logger: logger)
    }

    func upsert(zone: String, _ mutations: [Mutation]) async throws {
        let ids = mutations.map(\.id), entities = mutations.map(\.entity)
        let fields = try mutations.map { String(decoding: try JSONEncoder().encode($0.fields), as: UTF8.self) }
        // One statement per batch, as the server's own insert of feed entries.
        try await client.query(
            """
            INSERT INTO plain_records (zone, id, entity, fields)
            SELECT \(zone), id, entity, fields::jsonb FROM UNNEST(\(ids)::uuid[], \(entities)::text[], \(fields)::text[])
                AS batch(id, entity, fields)
            ON CONFLICT (zone, id) DO UPDATE SET fields = plain_records.fields || excluded.fields, seq = DEFAULT
            """, logger: logger)
    }

    func read(zone: String, after: Int64, limit: Int) async throws -> (count: Int, last: Int64) {
        let rows = try await client.query(
            """
            SELECT seq, id, entity, fields::text FROM plain_records
            WHERE zone = \(zone) AND seq > \(after) ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        var count = 0, last = after
        for try await (seq, _, _, _) in rows.decode((Int64, UUID, String, String).self) {
            count += 1
            last = seq
        }
        return (count, last)
    }
}
