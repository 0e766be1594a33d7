import Foundation
import GRDB

/// One object's row as selected with ``EntityMapping/selectList``, decoded.
struct DecodedRow {
    var key: Int64
    var globalID: UUID
    var version: Int64
    var attributes: ContiguousArray<StoredValue>
    var toOne: ContiguousArray<ObjectID?>
}

/// Reads the rows of a query selecting ``EntityMapping/selectList``, straight from the statement's
/// columns.
///
/// This is the hot path of every fetch: it reads each column with GRDB's statement-level initializers
/// (no `Row` subscripts, no intermediate dictionaries), so a row costs little more than SQLite's own work.
struct ObjectRows {
    let mapping: EntityMapping
    let store: SQLiteStore

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
        let attributeCount = mapping.attributeColumns.count
        var attributes = ContiguousArray<StoredValue>()
        attributes.reserveCapacity(attributeCount)
        let storageClasses = mapping.attributeStorageClasses
        for column in 0..<attributeCount {
            attributes.append(Self.storedValue(statement, CInt(3 + column), storageClasses[column]))
        }
        let destinations = mapping.toOneDestinations
        var toOne = ContiguousArray<ObjectID?>()
        toOne.reserveCapacity(destinations.count)
        for (slot, destination) in destinations.enumerated() {
            let key = Int64.fromStatement(statement, atUncheckedIndex: CInt(3 + attributeCount + slot))
            toOne.append(key.map { ObjectID(entity: destination, key: $0, store: store.identity) })
        }
        return DecodedRow(
            key: Int64(sqliteStatement: statement, index: 0),
            globalID: UUID.fromStatement(statement, atUncheckedIndex: 1) ?? GlobalIDs.placeholder,
            version: Int64(sqliteStatement: statement, index: 2),
            attributes: attributes, toOne: toOne)
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
