import Foundation
import GRDB
import ObjectGraph

/// The history as versions before its records kept it, one row per object, for tests of stores an
/// older client wrote: written from what ``ObjectContainer/fetchHistory(_:)`` read, so that the
/// old layout does not depend on how this version packs its records.
enum EarlierHistoryLayout {
    /// A change table keyed by transaction (the first layout), or a rowid table whose rows each
    /// transaction names by range (the second).
    case keyedByTransaction
    case rowRanges

    /// Replaces the store's change table with `history` in this layout, and marks the store as of
    /// format 2, the last that kept it.
    func write(_ history: [HistoryTransaction], _ db: Database) throws {
        try db.execute(sql: "UPDATE Z_METADATA SET value = '2' WHERE key = 'storeFormat'")
        try db.execute(sql: "DROP TABLE Z_CHANGE")
        let columns = """
            Z_SEQUENCE INTEGER NOT NULL, Z_ENTITY TEXT NOT NULL, Z_PK INTEGER NOT NULL,
            Z_KIND INTEGER NOT NULL, Z_UUID BLOB, Z_KEYS TEXT, Z_TOMBSTONE TEXT
            """
        switch self {
        case .keyedByTransaction:
            try db.execute(sql: "CREATE TABLE Z_CHANGE (\(columns), PRIMARY KEY (Z_SEQUENCE, Z_ENTITY, Z_PK)) WITHOUT ROWID")
        case .rowRanges:
            try db.execute(sql: "CREATE TABLE Z_CHANGE (\(columns))")
        }
        for transaction in history {
            // A table without rowid (the first layout) has no ranges.
            let next = "SELECT COALESCE(MAX(rowid), 0) + 1 FROM Z_CHANGE"
            let first = self == .rowRanges ? try Int64.fetchOne(db, sql: next) ?? 1 : 0
            for change in transaction.changes {
                try db.execute(
                    sql: "INSERT INTO Z_CHANGE VALUES (?, ?, ?, ?, ?, ?, ?)",
                    arguments: [
                        transaction.token.sequence, change.entityName, Self.key(of: change.objectID), Self.kind(change.kind),
                        withUnsafeBytes(of: change.globalID.uuid) { Data($0) },
                        change.kind == .update ? change.changedKeys.sorted().joined(separator: ",") : nil,
                        try change.tombstone.flatMap(Self.json)
                    ])
            }
            if self == .rowRanges {
                let end = try Int64.fetchOne(db, sql: next) ?? 1
                try db.execute(
                    sql: "UPDATE Z_TRANSACTION SET Z_FIRSTCHANGE = ?, Z_ENDCHANGE = ? WHERE Z_SEQUENCE = ?",
                    arguments: [first, end, transaction.token.sequence])
            }
        }
        if self == .keyedByTransaction {
            try db.execute(sql: "ALTER TABLE Z_TRANSACTION DROP COLUMN Z_FIRSTCHANGE")
            try db.execute(sql: "ALTER TABLE Z_TRANSACTION DROP COLUMN Z_ENDCHANGE")
        }
    }

    private static func key(of id: ObjectID) -> Int64 {
        Int64(id.description.split(separator: "/").last?.dropFirst() ?? "") ?? 0
    }

    private static func kind(_ kind: HistoryChange.Kind) -> Int {
        switch kind {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    /// The tombstone as SQLite's `json_object` wrote it: NULL when every preserved value is nil,
    /// blobs as hexadecimal text.
    private static func json(_ tombstone: Tombstone) throws -> String? {
        guard tombstone.values.values.contains(where: { !$0.isNull }) else { return nil }
        var object: [String: Any] = [:]
        for (name, value) in tombstone.values {
            switch value {
            case .null: object[name] = NSNull()
            case .integer(let integer): object[name] = integer
            case .real(let real): object[name] = real
            case .text(let text): object[name] = text
            case .blob(let data): object[name] = data.map { String(format: "%02X", $0) }.joined()
            }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
    }
}
