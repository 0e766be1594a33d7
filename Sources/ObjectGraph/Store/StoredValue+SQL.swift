import Foundation
import GRDB
import GRDBSQLite

/// A stored value as GRDB binds it.
extension StoredValue {
    var databaseValue: DatabaseValue {
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
    init(sqliteStatement statement: SQLiteStatement, column index: CInt) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: self = .text(Self.text(statement, column: index))
        case SQLITE_BLOB: self = .blob(Data(sqliteStatement: statement, index: index))
        default: self = .null
        }
    }

    /// The text of a column that holds text.
    @inline(__always)
    static func text(_ statement: SQLiteStatement, column index: CInt) -> String {
        // `sqlite3_column_text` first, then `sqlite3_column_bytes`: the order SQLite documents for
        // a length that matches the pointer.
        guard let characters = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }
}
