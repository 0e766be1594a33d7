import Foundation
import GRDB

/// One object's row as selected with ``EntityMapping/selectList``, decoded.
struct DecodedRow {
    var key: Int64
    var globalID: UUID
    var version: Int64
    /// Laid out as ``ObjectState/values``: attributes, then to-one keys.
    var values: ContiguousArray<StoredValue>
}

/// Reads the rows of a query selecting ``EntityMapping/selectList``, straight from the statement's
/// columns.
///
/// This is the hot path of every fetch: it reads each column with GRDB's statement-level initializers
/// (no `Row` subscripts, no intermediate dictionaries), so a row costs little more than SQLite's own work.
struct ObjectRows {
    let mapping: EntityMapping

    /// Calls `body` with each row of the statement, run with `arguments`, whose primary key passes
    /// `including` (checked before the rest of the row is decoded).
    func forEach(_ statement: Statement, arguments: [DatabaseValue],
                 including: (Int64) -> Bool = { _ in true },
                 _ body: (DecodedRow) throws -> Void) throws {
        try statement.bind(arguments)
        let cursor = try Row.fetchCursor(statement)
        let sqliteStatement = statement.sqliteStatement
        while try cursor.next() != nil {
            guard including(Int64(sqliteStatement: sqliteStatement, index: 0)) else { continue }
            try body(decode(sqliteStatement))
        }
    }

    /// The current row of a stepped statement.
    func decode(_ statement: SQLiteStatement) -> DecodedRow {
        let storageClasses = mapping.valueStorageClasses
        var values = ContiguousArray<StoredValue>()
        values.reserveCapacity(storageClasses.count)
        for (position, storageClass) in storageClasses.enumerated() {
            values.append(Self.storedValue(statement, CInt(3 + position), storageClass))
        }
        return DecodedRow(
            key: Int64(sqliteStatement: statement, index: 0),
            globalID: UUID.fromStatement(statement, atUncheckedIndex: 1) ?? GlobalIDs.placeholder,
            version: Int64(sqliteStatement: statement, index: 2),
            values: values)
    }

    /// A column's value, read with the accessor of the storage class its attribute is written with
    /// (SQLite converts a value stored otherwise, as it does for any typed read).
    @inline(__always)
    private static func storedValue(_ statement: SQLiteStatement, _ index: CInt, _ storageClass: StorageClass) -> StoredValue {
        switch storageClass {
        case .integer: Int64.fromStatement(statement, atUncheckedIndex: index).map(StoredValue.integer) ?? .null
        case .real: Double.fromStatement(statement, atUncheckedIndex: index).map(StoredValue.real) ?? .null
        case .text: String.fromStatement(statement, atUncheckedIndex: index).map(StoredValue.text) ?? .null
        case .blob: StoredValue(DatabaseValue(sqliteStatement: statement, index: index))
        }
    }
}
