import Algorithms
package import Foundation
package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// Reads rows for contexts, each read one statement outside any transaction of the caller.
///
/// Every SQL statement a context's read needs is built here, and prepared statements are cached per
/// connection. A failed read throws ``StoreError``, never returns "no row": the caller decides what
/// the failure means for its objects (see ``ObjectGraphError/readFailed(_:property:_:)``).
package struct RowReader {
    package let store: SQLiteStore

    /// Runs `body` on a reading connection; an SQLite error becomes a ``StoreError``.
    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        do {
            return try store.readStatement(body)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// Calls `body` with each row (``EntityMapping/selectList``) of a query whose table is aliased
    /// `t0`, when `including` accepts its key.
    package func forEachRow(
        _ query: SQLFragment, mapping: EntityMapping, including: (Int64) -> Bool = { _ in true },
        _ body: (CurrentRow) throws -> Void
    ) throws {
        try read { db in
            try ObjectRows(mapping: mapping).forEach(
                db.cachedStatement(sql: query.sql), arguments: query.arguments, including: including, body)
        }
    }

    /// Reads the row with this key and passes it to `body`; nil if the row does not exist.
    package func row<Result>(key: Int64, mapping: EntityMapping, _ body: (CurrentRow) -> Result) throws -> Result? {
        try read { db in try Self.row(key: key, mapping: mapping, db, body) }
    }

    /// Reads the row with this key in a connection already in use (a write transaction, say).
    package static func row<Result>(
        key: Int64, mapping: EntityMapping, _ db: Database,
        _ body: (CurrentRow) -> Result
    ) throws -> Result? {
        let sql = "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE t0.Z_PK = ?"
        var result: Result?
        try ObjectRows(mapping: mapping).forEach(db.cachedStatement(sql: sql), arguments: [key.databaseValue]) {
            result = body($0)
        }
        return result
    }

    /// The rows of these keys, in key order: a key range when the keys are dense (SQLite walks it
    /// directly), an `IN` list otherwise. `including` sees every key of the range.
    package func forEachRow(
        keys: [Int64], mapping: EntityMapping,
        including: (Int64) -> Bool, _ body: (CurrentRow) throws -> Void
    ) throws {
        guard let low = keys.min(), let high = keys.max() else { return }
        let isDense = high - low < Int64(keys.count) * 2
        let condition =
            isDense
            ? SQLFragment("t0.Z_PK BETWEEN ? AND ?", arguments: [low.databaseValue, high.databaseValue])
            : "t0.Z_PK IN " + SQL.list(keys.map(\.databaseValue))
        let query = SQLFragment(
            "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE ", condition,
            " ORDER BY t0.Z_PK")
        try forEachRow(query, mapping: mapping, including: including, body)
    }

    /// Calls `body` with each row (``EntityMapping/selectList``) of an entity whose global ID is
    /// among `globalIDs`, and that global ID; IDs of no row are left out. A query per
    /// ``SQL/inlineListLimit`` IDs, through the global ID's unique index.
    package func forEachRow(globalIDs: [UUID], mapping: EntityMapping, _ body: (CurrentRow, UUID) throws -> Void) throws {
        let globalIDColumn = mapping.selectListCount  // after the select list
        try read { db in
            for chunk in globalIDs.chunks(ofCount: SQL.inlineListLimit) {
                let ids = SQL.list(chunk.map(\.storedValue.databaseValue))
                let statement = try db.cachedStatement(
                    sql: "SELECT \(mapping.selectList), t0.Z_UUID FROM \(mapping.table) AS t0 WHERE t0.Z_UUID IN " + ids.sql)
                try ObjectRows(mapping: mapping).forEach(statement, arguments: ids.arguments) { row in
                    guard let globalID = row.globalID(atColumn: globalIDColumn) else {
                        throw StoreError(resultCode: .corrupt, message: "\(mapping.name) row \(row.key) has no valid global ID")
                    }
                    try body(row, globalID)
                }
            }
        }
    }

    /// Reads the rows whose column `column` holds one of `values`, a query per chunk of them.
    package func forEachRow(
        whereColumn column: String, isIn values: [StoredValue], mapping: EntityMapping, _ body: (CurrentRow) throws -> Void
    )
        throws
    {
        try read { db in
            for chunk in values.chunks(ofCount: SQL.inlineListLimit) {
                let list = SQL.list(chunk.map(\.databaseValue))
                let statement = try db.cachedStatement(
                    sql: "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE t0.\(SQL.quote(column)) IN " + list.sql)
                try ObjectRows(mapping: mapping).forEach(statement, arguments: list.arguments, body)
            }
        }
    }

    /// A row's global ID; nil if the row does not exist.
    package func globalID(key: Int64, mapping: EntityMapping) throws -> UUID? {
        try read { db in
            try UUID.fetchOne(
                db.cachedStatement(sql: "SELECT Z_UUID FROM \(mapping.table) WHERE Z_PK = ?"),
                arguments: [key])
        }
    }

    /// The entity each row of `keys` is of, rows of a hierarchy's table (see ``EntityHierarchy``):
    /// what an object reached by a relationship to an entity with subentities is an object of. A
    /// key with no row is left out.
    package func entities(ofKeys keys: [Int64], in mapping: EntityMapping) throws -> [Int64: String] {
        guard !keys.isEmpty else { return [:] }
        return try read { db in
            var entities: [Int64: String] = [:]
            for condition in KeySelection(keys).conditions(on: "Z_PK") {
                let rows = try Row.fetchAll(
                    db, sql: "SELECT Z_PK, \(EntityHierarchy.entityColumn) FROM \(mapping.table) WHERE \(condition.sql)",
                    arguments: StatementArguments(condition.arguments))
                for row in rows { entities[row[0]] = row[1] }
            }
            return entities
        }
    }

    /// The first column of a query's rows, as keys.
    package func keys(_ query: SQLFragment) throws -> [Int64] {
        try read { try Self.keys(query, $0) }
    }

    /// The first column of a query's rows, as keys, in a connection already in use.
    package static func keys(_ query: SQLFragment, _ db: Database) throws -> [Int64] {
        // Read column by column like object rows: GRDB's generic fetchAll runs unspecialized here.
        let statement = try db.cachedStatement(sql: query.sql)
        try statement.bind(query.arguments)
        let sqliteStatement = statement.sqliteStatement
        var keys: [Int64] = []
        try Row.fetchCursor(statement).forEach { _ in
            keys.append(Int64(sqliteStatement: sqliteStatement, index: 0))
        }
        return keys
    }

    /// Every row of a query, its first `columns` columns as stored values.
    package func values(_ query: SQLFragment, columns: Int) throws -> [[StoredValue]] {
        try read { db in
            let statement = try db.cachedStatement(sql: query.sql)
            try statement.bind(query.arguments)
            let sqliteStatement = statement.sqliteStatement
            var rows: [[StoredValue]] = []
            try Row.fetchCursor(statement).forEach { _ in
                rows.append((0..<columns).map { StoredValue(sqliteStatement: sqliteStatement, column: CInt($0)) })
            }
            return rows
        }
    }

    /// How SQLite plans a query: the `detail` of each line of `EXPLAIN QUERY PLAN`.
    package func queryPlan(_ query: SQLFragment) throws -> [String] {
        try read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.sql, arguments: StatementArguments(query.arguments))
                .map { $0["detail"] }
        }
    }

    /// The number a `SELECT COUNT(*)` query returns.
    package func count(_ query: SQLFragment) throws -> Int {
        try read { db in
            let statement = try db.cachedStatement(sql: query.sql)
            try statement.bind(query.arguments)
            return try Int.fetchOne(statement) ?? 0  // COUNT(*) always gives one row: never taken
        }
    }

    /// The members of a to-many relationship for each of these owners (at most
    /// ``SQL/inlineListLimit`` of them, none temporary), in the relationship's order when it has one;
    /// `member` makes each from its key.
    // Specialized for IDs here, what the context reads members as: a call from another module
    // could otherwise only reach the generic form.
    @_specialize(exported:true,where Member == ObjectID)
    @_specialize(exported:true,where Member == Int64)
    package func members<Member>(
        of relationship: RelationshipMapping, owners: [Int64],
        _ member: (Int64) -> Member
    ) throws -> [Int64: [Member]] {
        guard !owners.isEmpty else { return [:] }
        let sql: String
        let list = SQL.list(owners.map(\.databaseValue))
        switch relationship.storage {
        // Only ordered relationships sort: sorting the members of hundreds of owners costs more than
        // reading them.
        case let .inverseForeignKey(table, column, orderColumn):
            sql =
                "SELECT \(SQL.quote(column)), Z_PK FROM \(SQL.quote(table)) WHERE \(SQL.quote(column)) IN \(list.sql)"
                + (orderColumn.map { " ORDER BY \(SQL.quote(column)), \(SQL.quote($0)), Z_PK" } ?? "")
        case let .joinTable(table, sourceColumn, targetColumn, orderColumn):
            sql =
                "SELECT \(sourceColumn), \(targetColumn) FROM \(SQL.quote(table)) WHERE \(sourceColumn) IN \(list.sql)"
                + (orderColumn.map { " ORDER BY \(sourceColumn), \($0)" } ?? "")
        case .foreignKey:
            return [:]
        }
        return try read { db in
            let statement = try db.cachedStatement(sql: sql)
            try statement.bind(list.arguments)
            // Rows mostly come grouped by owner (the foreign-key index is walked one owner at a
            // time): a run of one owner's members is gathered in a reused buffer, then stored in an
            // array of its own size. No local function: variables one captures are checked for
            // exclusive access at every use, which cost more than the rest of the loop.
            var grouping = MemberGrouping<Member>(capacity: owners.count)
            try statement.forEachRowDirectly(in: db) { row in
                grouping.append(member(sqlite3_column_int64(row, 1)), of: sqlite3_column_int64(row, 0))
            }
            return grouping.finished()
        }
    }
}

/// Members gathered by owner from rows that mostly come one owner at a time.
private struct MemberGrouping<Member> {
    private var membersByOwner: [Int64: [Member]] = [:]
    private var owner: Int64?
    private var run: [Member] = []

    package init(capacity: Int) {
        membersByOwner.reserveCapacity(capacity)
    }

    package mutating func append(_ member: Member, of rowOwner: Int64) {
        if rowOwner != owner {
            storeRun()
            owner = rowOwner
        }
        run.append(member)
    }

    package mutating func finished() -> [Int64: [Member]] {
        storeRun()
        return membersByOwner
    }

    private mutating func storeRun() {
        guard let owner else { return }
        if membersByOwner[owner] == nil {
            membersByOwner[owner] = Array(run)
        } else {
            membersByOwner[owner]?.append(contentsOf: run)
        }
        run.removeAll(keepingCapacity: true)
    }
}

extension RowReader {
    /// The keys of the rows of a ``DelayedDeletable`` entity that are marked for deletion.
    package func markedKeys(of mapping: EntityMapping) throws -> [Int64] {
        guard let slot = mapping.markedForDeletionSlot else { return [] }
        return try keys(
            SQLFragment(
                "SELECT Z_PK FROM \(mapping.table) WHERE \(mapping.quotedAttributeColumns[slot]) IS NOT NULL"))
    }
}
