package import Foundation
package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// A stored value as GRDB binds it.
extension StoredValue {
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }
}

/// A stored value read from a statement's column.
extension StoredValue {
    /// The value of a column of the row `statement` is on, of the storage class SQLite stored it
    /// with, never converted. Text is read with its length in bytes, whole (GRDB's text reads stop
    /// at the first NUL character, as C strings do).
    package init(sqliteStatement statement: SQLiteStatement, column index: CInt) {
        self.init(columnValue: Self.columnValue(statement, index))
    }

    /// The value SQLite holds for a column of the current row (`sqlite3_column_value`): the column
    /// is looked up once, where each `sqlite3_column_*` call (its type, then its contents) looks it
    /// up again. Read it with ``init(columnValue:)`` before the statement steps again.
    ///
    /// SQLite calls this value unprotected: reading it with `sqlite3_value_*` skips the connection's
    /// mutex, which `sqlite3_column_*` take. GRDB opens its connections without one (multi-thread
    /// mode) and uses each from one thread at a time, so both reads are equally safe; asserted here.
    @inline(__always)
    package static func columnValue(_ statement: SQLiteStatement, _ index: CInt) -> OpaquePointer? {
        assert(
            sqlite3_db_mutex(sqlite3_db_handle(statement)) == nil,
            "a connection with its own mutex could be used by another thread while a column value is read")
        return sqlite3_column_value(statement, index)
    }

    /// A column value (see ``columnValue(_:_:)``), of the storage class SQLite stored it with.
    package init(columnValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT: self = .text(Self.text(value))
        case SQLITE_BLOB: self = .blob(Self.blob(value))
        default: self = .null
        }
    }

    /// The text of a column value that holds text.
    @inline(__always)
    package static func text(_ value: OpaquePointer?) -> String {
        // The pointer first, then the length: the order SQLite documents for a length that matches it.
        guard let characters = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    /// The bytes of a column value that holds a blob (an empty blob has no pointer).
    @inline(__always)
    package static func blob(_ value: OpaquePointer?) -> Data {
        guard let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }
}
