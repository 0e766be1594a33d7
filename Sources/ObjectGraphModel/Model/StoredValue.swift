public import Foundation

/// A value as it is stored in a column: one of SQLite's storage classes.
///
/// Attribute types convert to and from it (see ``AttributeValue``). Its ordering is SQLite's:
/// `null` < numbers < text < blob, so sorting in memory agrees with `ORDER BY` in the store.
public enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension StoredValue: Comparable {
    private var storageRank: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    public static func < (lhs: StoredValue, rhs: StoredValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(l), .integer(r)): return l < r
        case let (.real(l), .real(r)): return l < r
        case let (.integer(l), .real(r)): return Double(l) < r
        case let (.real(l), .integer(r)): return l < Double(r)
        case let (.text(l), .text(r)): return l.utf8.lexicographicallyPrecedes(r.utf8)
        case let (.blob(l), .blob(r)): return l.lexicographicallyPrecedes(r)
        default: return lhs.storageRank < rhs.storageRank
        }
    }
}

extension StoredValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}
