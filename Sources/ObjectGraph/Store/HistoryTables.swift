import GRDB

/// The tables of the persistent history: one row per committed transaction, and one per object it
/// inserted, updated or deleted.
///
/// `Z_TRANSACTION.Z_SEQUENCE` is `AUTOINCREMENT`: SQLite commits one write transaction at a time and
/// never reuses a number, so sequences grow in commit order, across processes, and a reader that
/// remembers the last one it read never skips a transaction. `Z_ORIGIN` names the container that
/// wrote it, so that a container can tell its own commits from other processes' (see
/// ``HistoryWatcher``).
enum HistoryTables {
    static let transactions = "Z_TRANSACTION"
    static let changes = "Z_CHANGE"

    /// What a change row records, as stored in `Z_CHANGE.Z_KIND`.
    enum Kind: Int64 {
        case insert = 1
        case update = 2
        case delete = 3
    }

    /// Whether the store has every history table and column this version writes.
    static func areCurrent(_ db: Database) throws -> Bool {
        guard try db.tableExists(transactions), try db.tableExists(changes) else { return false }
        return try db.columns(in: transactions).contains { $0.name == "Z_ORIGIN" }
    }

    /// Creates what is missing; a store from before the change table gets it, and its transaction
    /// table gets the origin column (older transactions have none: they are nobody's in this process).
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(transactions) (
                Z_SEQUENCE INTEGER PRIMARY KEY AUTOINCREMENT, Z_AUTHOR TEXT, Z_TIMESTAMP REAL NOT NULL,
                Z_ORIGIN TEXT)
            """)
        if try !db.columns(in: transactions).contains(where: { $0.name == "Z_ORIGIN" }) {
            try db.execute(sql: "ALTER TABLE \(transactions) ADD COLUMN Z_ORIGIN TEXT")
        }
        // Keyed by transaction first: rows are appended at the end of the tree, and reading after a
        // token is a range scan.
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(changes) (
                Z_SEQUENCE INTEGER NOT NULL, Z_ENTITY TEXT NOT NULL, Z_PK INTEGER NOT NULL,
                Z_KIND INTEGER NOT NULL, Z_UUID BLOB, Z_KEYS TEXT, Z_TOMBSTONE TEXT,
                PRIMARY KEY (Z_SEQUENCE, Z_ENTITY, Z_PK)) WITHOUT ROWID
            """)
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TIMESTAMP ON \(transactions) (Z_TIMESTAMP)")
    }
}
