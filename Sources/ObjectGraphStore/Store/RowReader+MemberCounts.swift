import Algorithms
import GRDB
import GRDBSQLite

/// Counting the members of one-to-many relationships in the store, without reading them: what
/// `count(of:)` and the delete rules that count ask, corrected by the context for what it has not
/// saved. Each returns nil for a relationship stored otherwise (a join table), which it does not
/// count.
///
/// The statements step through SQLite alone (``Statement/forEachRowDirectly(in:_:)``): a deletion
/// pass counts for hundreds of owners, and GRDB's generic fetching of one number costs more than
/// SQLite's counting of a hundred index entries. An owner's members are counted one owner at a
/// time: SQLite counts them in the index, where a `GROUP BY` over a list of owners sorts them
/// first, and returning each row to count it here costs twice as much.
extension RowReader {
    /// How many rows of a one-to-many relationship's destination name each of `owners` in their
    /// foreign key, counted in the foreign key's index alone: no row of the table is read. One
    /// statement per owner, in one read.
    package func storedMemberCounts(of relationship: RelationshipMapping, owners: [Int64]) throws -> [Int64: Int]? {
        guard case let .inverseForeignKey(table, column, _) = relationship.storage else { return nil }
        var counts: [Int64: Int] = [:]
        counts.reserveCapacity(owners.count)
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM \(SQL.quote(table)) WHERE \(SQL.quote(column)) = ?")
            statement.prepareForDirectBinding()
            for owner in owners {
                try statement.bind(key: owner, at: 1)
                try statement.forEachRowDirectly(in: db) { row in counts[owner] = Int(sqlite3_column_int64(row, 0)) }
            }
        }
        return counts
    }

    /// The owner that each of these rows of a one-to-many relationship's destination names in its
    /// foreign key (nil for none), by key; a key with no row is left out. Runs of consecutive keys
    /// are read as ranges, the others through lists (``KeySelection``).
    package func storedOwners(of relationship: RelationshipMapping, keys: [Int64]) throws -> [Int64: Int64?]? {
        guard case let .inverseForeignKey(table, column, _) = relationship.storage else { return nil }
        var owners: [Int64: Int64?] = [:]
        guard !keys.isEmpty else { return owners }
        owners.reserveCapacity(keys.count)
        let select = "SELECT Z_PK, \(SQL.quote(column)) FROM \(SQL.quote(table)) WHERE "
        try read { db in
            for condition in KeySelection(keys).conditions(on: "Z_PK") {
                let statement = try db.cachedStatement(sql: select + condition.sql)
                try statement.bind(condition.arguments)
                try statement.forEachRowDirectly(in: db) { row in owners[sqlite3_column_int64(row, 0)] = Self.owner(in: row) }
            }
        }
        return owners
    }

    /// Calls `body` with the key of each row of a one-to-many relationship's destination marked for
    /// deletion in the store (its `markColumn`, quoted, set) and the owner its foreign key names
    /// (nil for none): the rows found through the mark's index.
    package func forEachMarkedRow(
        of relationship: RelationshipMapping, markColumn: String, _ body: (_ key: Int64, _ owner: Int64?) -> Void
    ) throws -> Bool {
        guard case let .inverseForeignKey(table, column, _) = relationship.storage else { return false }
        try read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT Z_PK, \(SQL.quote(column)) FROM \(SQL.quote(table)) WHERE \(markColumn) IS NOT NULL")
            try statement.bind([])
            try statement.forEachRowDirectly(in: db) { row in body(sqlite3_column_int64(row, 0), Self.owner(in: row)) }
        }
        return true
    }

    /// The foreign key in column 1 of a row: nil for NULL.
    private static func owner(in row: OpaquePointer) -> Int64? {
        sqlite3_column_type(row, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(row, 1)
    }
}
