import Foundation
import GRDBSQLite

/// The floor every side is measured against: the baseline's tables, read and written through
/// SQLite's C API (the system's SQLite, as GRDB links it), with prepared statements, `sqlite3_bind_*`
/// and `sqlite3_column_*`, and rows held as plain structs. Nothing between the caller and SQLite:
/// what the object graph costs beyond this is the price of being an object graph.
final class RawDatabase {
    /// The connection, for code that steps statements itself (``StatementFloor``).
    let handle: OpaquePointer

    /// Opens a file made by ``PlainSQL/openDatabase(at:)``: WAL, `synchronous = NORMAL` (what the
    /// other sides run with), and foreign keys on, for the baseline schema's cascades.
    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw RawSQLiteError(code: code, message: "cannot open \(path)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        guard let statement else { throw RawSQLiteError(code: SQLITE_MISUSE, message: "no statement in \(sql)") }
        return RawStatement(statement, database: self)
    }

    /// Runs `body` in one write transaction.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try inTransaction(beginning: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in one read transaction (one consistent state, as the other sides' reads).
    func read<Result>(_ body: () throws -> Result) throws -> Result {
        try inTransaction(beginning: "BEGIN DEFERRED", body)
    }

    /// Runs `body` between `begin` and a `COMMIT`, rolled back when `body` throws.
    private func inTransaction<Result>(beginning begin: String, _ body: () throws -> Result) throws -> Result {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // The body's error is the one to report; a failed rollback leaves the transaction open,
            // and the next BEGIN fails loudly.
            try? execute("ROLLBACK")
            throw error
        }
    }

    func check(_ code: Int32) throws {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw RawSQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }
}

/// A prepared statement, finalized when released.
final class RawStatement {
    private let handle: OpaquePointer
    private let database: RawDatabase

    fileprivate init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ value: Int64, at index: Int32) throws { try database.check(sqlite3_bind_int64(handle, index, value)) }
    func bind(_ value: Double, at index: Int32) throws { try database.check(sqlite3_bind_double(handle, index, value)) }
    func bindNull(at index: Int32) throws { try database.check(sqlite3_bind_null(handle, index)) }

    func bind(_ value: String, at index: Int32) throws {
        // SQLITE_TRANSIENT: SQLite copies the text, which Swift may release after the call.
        try database.check(sqlite3_bind_text(handle, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)))
    }

    func bind(_ value: Data, at index: Int32) throws {
        // SQLITE_TRANSIENT: SQLite copies the bytes.
        try value.withUnsafeBytes { bytes in
            try database.check(
                sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            )
        }
    }

    func bind(_ value: String?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    func bind(_ value: Double?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Steps once: true when a row is ready to read.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        try database.check(code)
        return code == SQLITE_ROW
    }

    /// Every row the statement returns, each made by `row` while the statement is on it.
    func rows<Row>(reservingCapacity capacity: Int = 0, _ row: (RawStatement) -> Row) throws -> [Row] {
        var rows: [Row] = []
        rows.reserveCapacity(capacity)
        while try step() { rows.append(row(self)) }
        return rows
    }

    /// Runs the statement to its end and readies it for new arguments.
    func run() throws {
        while try step() {}
        try reset()
    }

    func reset() throws {
        try database.check(sqlite3_reset(handle))
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// A blob column's bytes, copied out (an empty blob has no pointer).
    func blob(_ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Calls `body` with a blob column's bytes, in SQLite's buffer (valid until the next step).
    func withBlob<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let bytes = sqlite3_column_blob(handle, column)
        return body(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: bytes)
    }
}

struct RawSQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
}

/// A mood row as a plain struct: what the raw side holds in memory.
struct RawMood {
    var id: Int64
    var text: String
    var rating: Int
    var date: Double
    var remoteIdentifier: String?
    var markedForDeletionDate: Double?
    var countryID: Int64?

    func consume() {
        Sink.consume(
            text, rating, Date(timeIntervalSince1970: date), remoteIdentifier,
            markedForDeletionDate.map(Date.init(timeIntervalSince1970:)))
    }
}

/// The workloads' work, done the raw way on the baseline's schema.
enum RawSQL {
    /// A new file with the baseline's tables (made by GRDB, untimed), opened raw.
    static func openFreshDatabase(at path: String) throws -> RawDatabase {
        do { _ = try PlainSQL.openDatabase(at: path) }  // closed when released
        return try RawDatabase(path: path)
    }

    /// Inserts moods `range` of the dataset, creating the continent and countries first if the
    /// tables are empty (as ``PlainSQL/insert(_:of:into:)`` does).
    static func insert(_ range: Range<Int>, of dataset: Dataset, into db: RawDatabase) throws {
        try db.transaction {
            let count = try db.prepare("SELECT COUNT(*) FROM country")
            _ = try count.step()
            if count.int64(0) == 0 {
                try db.execute("INSERT INTO continent (id, name) VALUES (1, '\(Dataset.continentName)')")
                let country = try db.prepare("INSERT INTO country (id, name, continentId) VALUES (?, ?, 1)")
                for index in 0..<dataset.countryCount {
                    try country.bind(Int64(index + 1), at: 1)
                    try country.bind(dataset.countryName(index), at: 2)
                    try country.run()
                }
            }
            let mood = try db.prepare(
                """
                INSERT INTO mood (text, rating, date, remoteIdentifier, markedForDeletionDate, countryId)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
            for index in range {
                try mood.bind(dataset.text(index), at: 1)
                try mood.bind(Int64(dataset.rating(index)), at: 2)
                try mood.bind(dataset.date(index).timeIntervalSince1970, at: 3)
                try mood.bind(dataset.remoteIdentifier(index), at: 4)
                try mood.bind(dataset.markedForDeletionDate(index)?.timeIntervalSince1970, at: 5)
                try mood.bind(Int64(dataset.countryIndex(index) + 1), at: 6)
                try mood.run()
            }
        }
    }

    /// The moods a query over `mood` returns (its columns in ``PlainSQL/moodColumns`` order), as
    /// structs.
    static func moods(_ db: RawDatabase, sql: String) throws -> [RawMood] {
        try db.read {
            try db.prepare(sql).rows { statement in
                RawMood(
                    id: statement.int64(0), text: statement.text(1) ?? "", rating: Int(statement.int64(2)),
                    date: statement.double(3), remoteIdentifier: statement.text(4),
                    markedForDeletionDate: statement.isNull(5) ? nil : statement.double(5),
                    countryID: statement.isNull(6) ? nil : statement.int64(6))
            }
        }
    }

    /// Reads every mood of a query one row at a time, holding none: the batched iteration's floor.
    static func iterate(_ db: RawDatabase, sql: String) throws {
        try db.read {
            let statement = try db.prepare(sql)
            while try statement.step() {
                Sink.consume(
                    statement.text(1) ?? "", Int(statement.int64(2)), Date(timeIntervalSince1970: statement.double(3)),
                    statement.text(4), statement.isNull(5) ? nil : Date(timeIntervalSince1970: statement.double(5)))
            }
        }
    }

    /// Changes the rating of the first `count` moods.
    static func update(count: Int, in db: RawDatabase) throws {
        try db.transaction {
            let rows = try db.prepare("SELECT id, rating FROM mood LIMIT \(count)")
                .rows(reservingCapacity: count) { (id: $0.int64(0), rating: $0.int64(1)) }
            let update = try db.prepare("UPDATE mood SET rating = ? WHERE id = ?")
            for row in rows {
                try update.bind(row.rating % 5 + 1, at: 1)
                try update.bind(row.id, at: 2)
                try update.run()
            }
        }
    }

    /// Gives the first `count` moods the texts `text` makes of their positions.
    static func rename(count: Int, to text: (Int) -> String, in db: RawDatabase) throws {
        try db.transaction {
            let ids = try db.prepare("SELECT id FROM mood LIMIT \(count)").rows(reservingCapacity: count) { $0.int64(0) }
            let update = try db.prepare("UPDATE mood SET text = ? WHERE id = ?")
            for (index, id) in ids.enumerated() {
                try update.bind(text(index), at: 1)
                try update.bind(id, at: 2)
                try update.run()
            }
        }
    }

    /// Deletes the first `count` moods, one statement per mood (the object graph deletes objects).
    static func deleteMoods(count: Int, in db: RawDatabase) throws {
        try db.transaction {
            let keys = try db.prepare("SELECT id FROM mood ORDER BY id LIMIT \(count)")
                .rows(reservingCapacity: count) { $0.int64(0) }
            let delete = try db.prepare("DELETE FROM mood WHERE id = ?")
            for key in keys {
                try delete.bind(key, at: 1)
                try delete.run()
            }
        }
    }

    /// Checks what a deletion left in the tables.
    static func verifyCounts(in db: RawDatabase, continents: Int, countries: Int, moods: Int) throws {
        for (table, expected) in [("continent", continents), ("country", countries), ("mood", moods)] {
            let count = try db.prepare("SELECT COUNT(*) FROM \(table)")
            _ = try count.step()
            try WorkloadError.check(table, Int(count.int64(0)), expected)
        }
    }

    /// Every mood, by country name then date, with its country's name: the monitored list's rows.
    static func list(_ db: RawDatabase) throws -> [ListRow] {
        try listRows(
            db,
            sql: """
                SELECT mood.id, mood.text, mood.rating, mood.date, country.name FROM mood
                LEFT JOIN country ON country.id = mood.countryId ORDER BY country.name, mood.date, mood.id
                """)
    }

    /// The moods rated 5, by date.
    static func topRated(_ db: RawDatabase) throws -> [ListRow] {
        try listRows(db, sql: "SELECT mood.id, mood.text, mood.rating, mood.date, NULL FROM mood WHERE rating = 5 ORDER BY date, id")
    }

    /// One country's moods by date.
    static func country(_ countryID: Int, _ db: RawDatabase) throws -> [ListRow] {
        try listRows(
            db,
            sql: """
                SELECT mood.id, mood.text, mood.rating, mood.date, NULL FROM mood
                WHERE mood.countryId = \(countryID) ORDER BY mood.date, mood.id
                """)
    }

    /// The rows of a list query (id, text, rating, date, country name).
    static func listRows(_ db: RawDatabase, sql: String) throws -> [ListRow] {
        try db.read {
            try db.prepare(sql).rows { statement in
                ListRow(
                    id: statement.int64(0), text: statement.text(1) ?? "", rating: Int(statement.int64(2)),
                    date: statement.double(3), country: statement.text(4))
            }
        }
    }

    /// Sets the rating of the rows with these keys.
    static func setRatings(_ ids: [Int64], to rating: Int, in db: RawDatabase) throws {
        try db.transaction {
            let statement = try db.prepare("UPDATE mood SET rating = ? WHERE id = ?")
            for id in ids {
                try statement.bind(Int64(rating), at: 1)
                try statement.bind(id, at: 2)
                try statement.run()
            }
        }
    }

    /// One integer a statement returns.
    static func integer(_ db: RawDatabase, sql: String) throws -> Int64 {
        let statement = try db.prepare(sql)
        _ = try statement.step()
        return statement.int64(0)
    }
}
