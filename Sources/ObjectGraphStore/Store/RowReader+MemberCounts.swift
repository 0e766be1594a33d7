import Algorithms
import GRDB
import GRDBSQLite

extension RowReader {
    /// The keys of the rows of a one-to-many relationship's destination that name each of `owners`
    /// in their foreign key, by owner (an owner no row names is left out): what a count of members
    /// starts from, read from the foreign key's index alone (it holds the rows' keys), without
    /// making an ID of any. A statement per ``SQL/inlineListLimit`` owners, all in one read,
    /// stepped through SQLite alone. Nil for a relationship stored otherwise (a join table).
    ///
    /// Keys rather than `COUNT(*)`: the context hides members as it sees them (deleted, marked for
    /// deletion as it last read the marks, moved), which a number counted by the store at another
    /// moment than the context's own reads cannot be corrected for exactly.
    package func storedMemberKeys(of relationship: RelationshipMapping, owners: [Int64]) throws -> [Int64: [Int64]]? {
        guard case let .inverseForeignKey(table, column, _) = relationship.storage else { return nil }
        let select = "SELECT \(SQL.quote(column)), Z_PK FROM \(SQL.quote(table)) WHERE \(SQL.quote(column))"
        return try read { db in
            var grouping = MemberGrouping<Int64>(capacity: owners.count)
            for chunk in owners.chunks(ofCount: SQL.inlineListLimit) {
                let list = SQL.list(chunk.map(\.databaseValue))
                let statement = try db.cachedStatement(sql: chunk.count == 1 ? select + " = ?" : select + " IN " + list.sql)
                try statement.bind(list.arguments)
                try statement.forEachRowDirectly(in: db) { row in
                    grouping.append(sqlite3_column_int64(row, 1), of: sqlite3_column_int64(row, 0))
                }
            }
            return grouping.finished()
        }
    }
}
