import GRDB

/// SQLite's storage classes, as attributes are written.
enum StorageClass: Sendable {
    case integer, real, text, blob

    init(_ type: AttributeType) {
        switch type {
        case .string, .decimal: self = .text
        case .integer, .bool: self = .integer
        case .double, .date: self = .real
        case .data, .uuid, .json: self = .blob
        }
    }
}

extension StoredValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(string)
        case .blob(let data): self = .blob(data)
        }
    }
}
