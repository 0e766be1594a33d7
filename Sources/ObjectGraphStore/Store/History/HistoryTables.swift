package import GRDB
import ObjectGraphModel

/// The tables of the persistent history: one row per committed transaction, and one record per
/// entity and kind of change it made (for an update, per set of changed properties).
///
/// `Z_TRANSACTION.Z_SEQUENCE` is `AUTOINCREMENT`: SQLite commits one write transaction at a time and
/// never reuses a number, so sequences grow in commit order, across processes, and a reader that
/// remembers the last one it read never skips a transaction. `Z_ORIGIN` names the container that
/// wrote it, so that a container can tell its own commits from other processes' (see
/// ``HistoryWatcher``).
///
/// A record names its objects packed (``HistoryPacking``): `Z_COUNT` keys as runs in `Z_PKS`, their
/// global IDs in `Z_UUIDS` (insertions and deletions; an update's are its rows', found when the
/// history is read), a deletion's tombstones as a JSON array in `Z_TOMBSTONES`. A save of 10,000
/// objects writes one record, not 10,000 rows, and reads nothing back to write it (see
/// ``HistoryRecords``). The records are appended to a plain rowid table with no index; a
/// transaction's records are the rows `Z_FIRSTCHANGE ..< Z_ENDCHANGE`, noted when it begins and when
/// it ends (a rowid is the largest so far plus one, and the table is only ever purged from its
/// oldest rows; see ``RowWriter/purgeHistory(through:before:)``).
package enum HistoryTables {
    package static let transactions = "Z_TRANSACTION"
    package static let changes = "Z_CHANGE"

    /// What a change row records, as stored in `Z_CHANGE.Z_KIND`.
    package enum Kind: Int64 {
        case insert = 1
        case update = 2
        case delete = 3
    }

    /// The rowid the next change row gets.
    package static let nextChange = "(SELECT COALESCE(MAX(rowid), 0) + 1 FROM \(changes))"

    /// Whether the store has every history table and column this version writes.
    package static func areCurrent(_ db: Database) throws -> Bool {
        guard try db.tableExists(transactions), try db.tableExists(changes) else { return false }
        let columns = Set(try db.columns(in: transactions).map(\.name))
        guard columns.contains("Z_ORIGIN") && columns.contains("Z_ENDCHANGE") else { return false }
        guard try db.columns(in: changes).contains(where: { $0.name == "Z_PKS" }) else { return false }
        return try db.tableExists(HistoryConsumers.table)
    }

    /// The last sequence number given to a transaction, purged or not; 0 before the first.
    package static func lastSequence(_ db: Database) throws -> Int64 {
        // AUTOINCREMENT keeps the largest number it gave in sqlite_sequence (from the first insert
        // on), which a purge leaves.
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = '\(transactions)'")) ?? 0
    }

    /// Empties the history, as a purge through its last transaction does, for writes it cannot
    /// describe: a migration stage's code writes rows directly. Every reader after an earlier
    /// token then learns that it missed something (``ObjectGraphError/Code/historyExpired``) and
    /// reads the current state, instead of missing the stage's changes; the sync client finds
    /// them from what it last knew of each record.
    package static func markGap(_ db: Database) throws {
        guard try db.tableExists(transactions), try db.tableExists(changes) else { return }
        try db.execute(sql: "DELETE FROM \(changes)")
        try db.execute(sql: "DELETE FROM \(transactions)")
    }

    /// The last sequence number purged; 0 when none was. Sequences are given without a gap (a
    /// transaction rolled back gives its number back) and purged from the oldest, so every number
    /// before the first kept one, or every number given when none is kept, was purged.
    package static func purgedThrough(_ db: Database) throws -> Int64 {
        if let first = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(Z_SEQUENCE) FROM \(transactions)")) {
            return first - 1
        }
        return try lastSequence(db)
    }

    /// Creates what is missing. A store from before the change table gets it; its transaction table
    /// gets the origin column (older transactions have none: they are nobody's in this process); a
    /// change table of one row per object (before the records) is rewritten as records.
    package static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(transactions) (
                    Z_SEQUENCE INTEGER PRIMARY KEY AUTOINCREMENT, Z_AUTHOR TEXT, Z_TIMESTAMP REAL NOT NULL,
                    Z_ORIGIN TEXT, Z_FIRSTCHANGE INTEGER NOT NULL DEFAULT 0, Z_ENDCHANGE INTEGER NOT NULL DEFAULT 0)
                """)
        let columns = Set(try db.columns(in: transactions).map(\.name))
        if !columns.contains("Z_ORIGIN") {
            try db.execute(sql: "ALTER TABLE \(transactions) ADD COLUMN Z_ORIGIN TEXT")
        }
        for column in ["Z_FIRSTCHANGE", "Z_ENDCHANGE"] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(transactions) ADD COLUMN \(column) INTEGER NOT NULL DEFAULT 0")
        }
        let rowsPerObject = try db.tableExists(changes) && db.columns(in: changes).contains { $0.name == "Z_PK" }
        if rowsPerObject {
            try db.execute(sql: "ALTER TABLE \(changes) RENAME TO Z_CHANGE_PER_OBJECT")
        }
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(changes) (
                    Z_SEQUENCE INTEGER NOT NULL, Z_ENTITY TEXT NOT NULL, Z_KIND INTEGER NOT NULL, Z_KEYS TEXT,
                    Z_COUNT INTEGER NOT NULL, Z_PKS BLOB NOT NULL, Z_UUIDS BLOB, Z_TOMBSTONES TEXT)
                """)
        if rowsPerObject { try HistoryRecordsUpgrade.run(from: "Z_CHANGE_PER_OBJECT", db) }
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TIMESTAMP ON \(transactions) (Z_TIMESTAMP)")
        try HistoryConsumers.create(db)
    }

    /// Gives each transaction the range of its records, from the records' `Z_SEQUENCE` (an empty
    /// range where it has none), after the change table was rewritten.
    static func assignChangeRanges(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TEMP TABLE Z_FIRST (Z_SEQUENCE INTEGER PRIMARY KEY, first INTEGER NOT NULL);
                INSERT INTO temp.Z_FIRST SELECT Z_SEQUENCE, MIN(rowid) FROM \(changes) GROUP BY Z_SEQUENCE;
                UPDATE \(transactions) SET
                    Z_FIRSTCHANGE = COALESCE((SELECT first FROM temp.Z_FIRST f WHERE f.Z_SEQUENCE >= \(transactions).Z_SEQUENCE
                                              ORDER BY f.Z_SEQUENCE LIMIT 1), \(nextChange)),
                    Z_ENDCHANGE = COALESCE((SELECT first FROM temp.Z_FIRST f WHERE f.Z_SEQUENCE > \(transactions).Z_SEQUENCE
                                            ORDER BY f.Z_SEQUENCE LIMIT 1), \(nextChange));
                DROP TABLE temp.Z_FIRST;
                """)
    }
}
