package import Foundation
import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// The Swift type an SQL function reads its values as, passed to it as a number: the type the
/// predicate computes or compares with, so that the function runs Swift's own operation of that
/// type (`Int16` overflows where `Int` does not; `Float` rounds where `Double` does not).
package enum SQLValueKind: Int64, Sendable {
    case int = 1
    case int32, int16, double, float, decimal, text, date, uuid

    /// The kind of a Swift type (its wrapped type, for an optional; its raw value's, for an
    /// enum); nil for a type SQL functions do not read.
    package init?(_ type: Any.Type) {
        let type = unwrappedType(type)
        switch type {
        case is Int.Type, is Int64.Type: self = .int
        case is Int32.Type: self = .int32
        case is Int16.Type: self = .int16
        case is Double.Type: self = .double
        case is Float.Type: self = .float
        case is Decimal.Type: self = .decimal
        case is String.Type, is Substring.Type, is Character.Type: self = .text
        case is Date.Type: self = .date
        case is UUID.Type: self = .uuid
        default:
            guard let raw = rawValueType(of: type), let kind = SQLValueKind(raw) else { return nil }
            self = kind
        }
    }

    /// Whether its values can be NaN.
    package var isFloatingPoint: Bool { self == .double || self == .float || self == .date }

    /// The kind as an SQL argument.
    package var sql: SQLFragment { SQLFragment("\(rawValue)") }
}

/// The type an optional wraps (through every level of optionality); the type itself otherwise.
package func unwrappedType(_ type: Any.Type) -> Any.Type {
    guard let optional = type as? any OptionalType.Type else { return type }
    return unwrappedType(optional.wrappedType)
}

/// The raw value type of a `RawRepresentable` type; nil for another type.
package func rawValueType(of type: Any.Type) -> Any.Type? {
    func raw<T: RawRepresentable>(_: T.Type) -> Any.Type { T.RawValue.self }
    guard let representable = type as? any RawRepresentable.Type else { return nil }
    return raw(representable)
}

/// `Optional`, whatever it wraps: to see through an optional type at run time.
package protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    package static var wrappedType: Any.Type { Wrapped.self }
}

/// A type SQL functions read and return as the Swift value it is, from the stored value SQLite
/// holds: with the conversion an attribute of that type makes when an object is read
/// (``AttributeValue/init(storedValue:)``), so that a row and its object compute alike.
package protocol SQLValue: AttributeValue, Comparable {
    /// How a NaN of the type is passed between functions (SQLite has none); nil for a type without.
    static var nanValue: Self? { get }
    var isNaNValue: Bool { get }
}

extension SQLValue {
    package static var nanValue: Self? { nil }
    package var isNaNValue: Bool { false }
}

extension Int: SQLValue {}
extension Int32: SQLValue {}
extension Int16: SQLValue {}
extension String: SQLValue {}
extension UUID: SQLValue {}
extension Decimal: SQLValue {}

extension Double: SQLValue {
    package static var nanValue: Double? { .nan }
    package var isNaNValue: Bool { isNaN }
}

extension Float: SQLValue {
    package static var nanValue: Float? { .nan }
    package var isNaNValue: Bool { isNaN }
}

extension Date: SQLValue {
    package static var nanValue: Date? { Date(timeIntervalSinceReferenceDate: .nan) }
    package var isNaNValue: Bool { timeIntervalSinceReferenceDate.isNaN }
}
