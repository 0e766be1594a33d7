package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// SQLite's storage classes, as attributes are written; each one's raw value is SQLite's code for
/// its datatype (`sqlite3_column_type`), so that a column read checks its value's class at once.
package enum StorageClass: CInt, Sendable {
    case integer = 1  // SQLITE_INTEGER
    case real = 2  // SQLITE_FLOAT
    case text = 3  // SQLITE_TEXT
    case blob = 4  // SQLITE_BLOB

    package init(_ type: AttributeType) {
        switch type {
        case .string, .decimal: self = .text
        case .integer, .bool: self = .integer
        case .double, .date: self = .real
        case .data, .uuid, .json: self = .blob
        }
    }
}

extension StoredValue {
    package init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(string)
        case .blob(let data): self = .blob(data)
        }
    }
}
