package import Foundation
package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// The row a statement is positioned on, selected with ``EntityMapping/selectList``: its parts are
/// read from the statement's columns when asked for. Valid only while the statement stays on the row.
package struct CurrentRow {
    package let statement: SQLiteStatement
    package let mapping: EntityMapping
    /// The primary key.
    package let key: Int64
    /// The column of each value, by position, when they are not the select list's in order: a
    /// subentity's row read by its parent's query (see ``EntityMapping/subentityColumns``).
    package var columns: [CInt]? = nil

    package init(statement: SQLiteStatement, mapping: EntityMapping, key: Int64, columns: [CInt]? = nil) {
        self.statement = statement
        self.mapping = mapping
        self.key = key
        self.columns = columns
    }

    /// The same row, as a row of `subentity`, whose values are in the columns its parent's query
    /// read for it.
    package func asRow(of subentity: EntityMapping) -> CurrentRow? {
        guard let columns = mapping.subentityColumns[subentity.name] else { return nil }
        return CurrentRow(statement: statement, mapping: subentity, key: key, columns: columns)
    }

    package var version: Int64 { Int64(sqliteStatement: statement, index: 1) }

    /// Initializes `count` values (see ``ObjectState``) from the row's columns.
    package func initializeValues(_ values: PackedValues, count: Int) {
        let storageClasses = mapping.valueStorageClasses
        if let columns {
            for position in 0..<count {
                values.initialize(at: position, to: Self.storedValue(statement, columns[position], storageClasses[position]))
            }
        } else {
            for position in 0..<count {
                values.initialize(at: position, to: Self.storedValue(statement, CInt(2 + position), storageClasses[position]))
            }
        }
        if let files = mapping.externalFiles {
            for slot in mapping.externalSlots where slot < count {
                if let value = Self.fileValue(values[slot], files: files) { values.assign(value, at: slot) }
            }
        }
    }

    /// The value of a file whose name a column holds (see ``ExternalFiles``), mapped into memory;
    /// nil for a value kept in its row, and for a file that cannot be read: its name then stays,
    /// which the attribute's typed read refuses, naming the file (`Data(checkedStoredValue:)`).
    private static func fileValue(_ value: StoredValue, files: ExternalFiles) -> StoredValue? {
        guard case .text(let name) = value, let data = try? files.read(name) else { return nil }
        return .blob(data)
    }

    /// The row's values, copied out.
    package var values: ContiguousArray<StoredValue> {
        let storageClasses = mapping.valueStorageClasses
        var values = ContiguousArray<StoredValue>()
        values.reserveCapacity(storageClasses.count)
        for position in storageClasses.indices {
            values.append(Self.storedValue(statement, columns?[position] ?? CInt(2 + position), storageClasses[position]))
        }
        if let files = mapping.externalFiles {
            for slot in mapping.externalSlots {
                if let value = Self.fileValue(values[slot], files: files) { values[slot] = value }
            }
        }
        return values
    }

    /// The value of a column beyond the select list (a search's rank and snippet), as SQLite holds it.
    package func value(atColumn index: CInt) -> StoredValue {
        StoredValue(sqliteStatement: statement, column: index)
    }

    /// The entity of the row, for an entity with subentities (whose select list reads it last);
    /// nil otherwise, or when the column holds no text.
    package var entityName: String? {
        guard mapping.hierarchy?.hasSubentities == true, columns == nil else { return nil }
        let value = StoredValue(sqliteStatement: statement, column: mapping.selectListCount - 1)
        guard case .text(let name) = value else { return nil }
        return name
    }

    /// The number of columns of the select list: the first column beyond it.
    package var selectListCount: CInt { mapping.selectListCount }

    /// A global ID read from a column beyond the select list; nil unless it holds one.
    package func globalID(atColumn index: CInt) -> UUID? {
        UUID(storedValue: StoredValue(sqliteStatement: statement, column: index))
    }

    /// A column's value as SQLite stored it. The usual case, a value of the storage class its
    /// attribute is written with, is read with that class's accessor; a value of another class (text
    /// where a number belongs, written by another program) is read as it is, never converted by
    /// SQLite (which would turn `'twelve'` into 0): the attribute's typed read then refuses it.
    @inline(__always)
    private static func storedValue(_ statement: SQLiteStatement, _ index: CInt, _ storageClass: StorageClass) -> StoredValue {
        let value = StoredValue.columnValue(statement, index)
        let type = sqlite3_value_type(value)
        guard type == storageClass.rawValue else {
            return type == SQLITE_NULL ? .null : StoredValue(columnValue: value)
        }
        return switch storageClass {
        case .integer: .integer(sqlite3_value_int64(value))
        case .real: .real(sqlite3_value_double(value))
        case .text: .text(StoredValue.text(value))
        case .blob: .blob(StoredValue.blob(value))
        }
    }
}

/// Reads the rows of a query selecting ``EntityMapping/selectList``, straight from the statement's
/// columns.
///
/// This is the hot path of every fetch: it reads each column straight from the statement, once (see
/// ``StoredValue/columnValue(_:_:)``; no `Row` subscripts, no intermediate dictionaries), so a row
/// costs little more than SQLite's own work.
package struct ObjectRows {
    package let mapping: EntityMapping

    /// Calls `body` with each row of the statement, run with `arguments`, whose primary key passes
    /// `including` (checked before anything else is read).
    package func forEach(
        _ statement: Statement, arguments: [DatabaseValue],
        including: (Int64) -> Bool = { _ in true },
        _ body: (CurrentRow) throws -> Void
    ) throws {
        try statement.bind(arguments)
        let sqliteStatement = statement.sqliteStatement
        // A cursor's `forEach` steps the statement in one loop, cheaper per row than `next()`.
        try Row.fetchCursor(statement).forEach { _ in
            let key = Int64(sqliteStatement: sqliteStatement, index: 0)
            guard including(key) else { return }
            try body(CurrentRow(statement: sqliteStatement, mapping: mapping, key: key))
        }
    }
}
