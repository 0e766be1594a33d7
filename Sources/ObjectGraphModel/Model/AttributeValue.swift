public import Foundation

/// The kinds of attribute a schema knows, each with its column representation.
public enum AttributeType: String, Sendable, Hashable, Codable {
    /// `String`, stored as TEXT.
    case string
    /// `Int`, `Int64`, `Int32`…, stored as INTEGER.
    case integer
    /// `Double`, `Float`, stored as a REAL value (in a column without affinity, so that -0.0 keeps
    /// its sign); NaN is refused at save.
    case double
    /// `Bool`, stored as INTEGER 0 or 1.
    case bool
    /// `Date`, stored as the seconds since 2001 it holds (`timeIntervalSinceReferenceDate`), a REAL
    /// value read back bit for bit; NaN is refused at save.
    case date
    /// `Data`, stored as BLOB.
    case data
    /// `UUID`, stored as a 16-byte BLOB.
    case uuid
    /// `Decimal`, stored as TEXT so no digit is lost; compared exactly in predicates and sorts (as
    /// `Decimal` compares, never as a `Double`); NaN is refused at save.
    case decimal
    /// A `Codable` value, stored as JSON in a BLOB.
    case json

    /// The column's declared type. Reals have none: a REAL column stores a whole number as an
    /// integer, and -0.0 comes back as 0.0; without affinity a real stays the 8 bytes it was.
    package var sqlType: String {
        switch self {
        case .string, .decimal: "TEXT"
        case .integer, .bool: "INTEGER"
        case .double, .date: ""
        case .data, .uuid, .json: "BLOB"
        }
    }
}

/// A type that can be the value of an entity's attribute.
///
/// Built in: `String`, `Int`, `Int64`, `Int32`, `Int16`, `Double`, `Float`, `Bool`, `Date`, `Data`,
/// `UUID`, `Decimal`, and optionals of each. `RawRepresentable` enums conform by declaring it
/// (`enum Weather: String, AttributeValue, CaseIterable { … }`), and `Codable` values by adopting
/// ``CodableAttribute``.
public protocol AttributeValue: Sendable {
    /// How the value is stored.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a valid value (true only for `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// The value read when a stored value is missing or unreadable, for example from an object whose
    /// row was deleted by another context. Zero, empty, or the first case.
    static var defaultValue: Self { get }
    /// Whether the type has any value at all: false only for an enum without a case, which a schema
    /// refuses (it has no ``defaultValue`` to read). True by default.
    static var isInhabited: Bool { get }
    /// Creates the value from its stored form, or returns `nil` if the stored form does not fit.
    init?(storedValue: StoredValue)
    /// The stored form of the value.
    var storedValue: StoredValue { get }
    /// Creates the value from its stored form, or throws why the stored form does not fit.
    ///
    /// ObjectGraph calls it only once ``AttributeValue/init(storedValue:)`` returned nil, to name the reason in
    /// ``ObjectGraphError/unreadableValue(_:property:reason:)``. The default throws an error that
    /// shows the stored value and the type; ``CodableAttribute`` throws its decoder's error.
    init(checkedStoredValue: StoredValue) throws
    /// The stored form of the value, or the error that keeps it from being stored: what ObjectGraph
    /// writes, and what predicates and batch operations compare and set.
    ///
    /// The default returns ``AttributeValue/storedValue``; ``CodableAttribute`` throws its encoder's error, which
    /// a save reports as ``ValidationFailure/Reason/unstorableValue(reason:)``.
    func checkedStoredValue() throws -> StoredValue
}

extension AttributeValue {
    public static var isOptionalAttribute: Bool { false }
    public static var isInhabited: Bool { true }

    public init(checkedStoredValue: StoredValue) throws {
        guard let value = Self(storedValue: checkedStoredValue) else {
            throw StoredValueMismatch(stored: checkedStoredValue, typeName: "\(Self.self)")
        }
        self = value
    }

    @inlinable
    public func checkedStoredValue() throws -> StoredValue { storedValue }
}

/// A stored value that does not convert to the type asked for.
package struct StoredValueMismatch: Error, CustomStringConvertible {
    package init(stored: StoredValue, typeName: String, explanation: String? = nil) {
        self.stored = stored
        self.typeName = typeName
        self.explanation = explanation
    }

    package let stored: StoredValue
    package let typeName: String
    /// Why, when more can be said than that the value is not of the type.
    package let explanation: String?

    package var description: String {
        if let explanation { return explanation }
        return stored.isNull ? "NULL is stored, and \(typeName) has no nil" : "\(stored) is not a \(typeName)"
    }
}

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }
    public static var defaultValue: String { "" }
    public init?(storedValue: StoredValue) {
        switch storedValue {
        case .text(let value): self = value
        case .integer(let value): self = String(value)
        case .real(let value): self = String(value)
        default: return nil
        }
    }
    /// The text in Unicode Normalization Form C: canonically equivalent text is stored byte for byte
    /// the same, so that SQLite's byte order and equality are Swift's. `"e\u{301}"` reads back as
    /// `"\u{E9}"`, the same `String` to Swift.
    public var storedValue: StoredValue { .text(precomposed) }
}

extension String {
    /// The text in Unicode Normalization Form C, as Swift's own comparisons normalize it: equal to
    /// `self` (`==`), and equal byte for byte to every string canonically equivalent to it.
    ///
    /// ObjectGraph stores text in this form: SQLite compares text as bytes, which for NFC text is
    /// exactly Swift's order and equality (Swift orders strings by their NFC scalars, and UTF-8
    /// keeps scalar order), so an index on a text column serves equality, ranges and sorts with
    /// the answers Swift gives.
    package var precomposed: String {
        // Scalars below U+0300 are all in NFC and compose with nothing before them; in UTF-8 they
        // are the bytes below 0xCC. Most text, ASCII and Latin-1 among it, stops here.
        let mayCompose = utf8.withContiguousStorageIfAvailable(Self.holdsScalarsFromU0300)
        if mayCompose == false { return self }
        let normalized = String(decoding: _nfcCodeUnits, as: UTF8.self)
        return normalized.utf8.elementsEqual(utf8) ? self : normalized
    }

    /// Whether UTF-8 `bytes` hold a byte from 0xCC up (a scalar from U+0300, which may compose
    /// with what precedes it). ASCII is skipped eight bytes at a time.
    @inline(__always)
    private static func holdsScalarsFromU0300(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            offset += 8
        }
        while offset < raw.count {
            if raw[offset] >= 0xCC { return true }
            offset += 1
        }
        return false
    }
}

/// A NaN: SQLite has no NaN (it stores NULL instead), and no NaN orders or equals anything, so a
/// value holding one is refused at save rather than read back as nil or zero.
package struct NotANumber: Error, CustomStringConvertible {
    package init(typeName: String) { self.typeName = typeName }

    package let typeName: String
    package var description: String { "NaN cannot be stored (SQLite has no NaN: a \(typeName) NaN would read back as NULL)" }
}

extension BinaryInteger where Self: AttributeValue {
    public static var attributeType: AttributeType { .integer }
    public static var defaultValue: Self { 0 }
    @inlinable
    public init?(storedValue: StoredValue) {
        switch storedValue {
        case .integer(let value): self.init(exactly: value)
        case .real(let value): self.init(exactly: value)
        default: return nil
        }
    }
    @inlinable
    public var storedValue: StoredValue { .integer(Int64(truncatingIfNeeded: self)) }
}

extension Int: AttributeValue {}
extension Int64: AttributeValue {}
extension Int32: AttributeValue {}
extension Int16: AttributeValue {}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    public static var defaultValue: Double { 0 }
    public init?(storedValue: StoredValue) {
        switch storedValue {
        case .real(let value): self = value
        // Read from a REAL column an integer never comes back (SQLite's affinity made it a real when
        // it was written), so no stored value is rounded here.
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
    public var storedValue: StoredValue { .real(self) }
    /// The stored form; throws for NaN, which SQLite cannot store (see ``AttributeType/double``).
    public func checkedStoredValue() throws -> StoredValue {
        guard !isNaN else { throw NotANumber(typeName: "Double") }
        return .real(self)
    }
}

extension Float: AttributeValue {
    public static var attributeType: AttributeType { .double }
    public static var defaultValue: Float { 0 }
    public init?(storedValue: StoredValue) {
        guard let value = Double(storedValue: storedValue) else { return nil }
        self = Float(value)
    }
    public var storedValue: StoredValue { .real(Double(self)) }
    /// The stored form; throws for NaN, which SQLite cannot store (see ``AttributeType/double``).
    public func checkedStoredValue() throws -> StoredValue {
        guard !isNaN else { throw NotANumber(typeName: "Float") }
        return .real(Double(self))
    }
}

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .bool }
    public static var defaultValue: Bool { false }
    public init?(storedValue: StoredValue) {
        guard case .integer(let value) = storedValue else { return nil }
        self = value != 0
    }
    public var storedValue: StoredValue { .integer(self ? 1 : 0) }
}

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }
    public static var defaultValue: Date { Date(timeIntervalSince1970: 0) }
    public init?(storedValue: StoredValue) {
        guard let seconds = Double(storedValue: storedValue) else { return nil }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
    /// The seconds since 2001 the date holds, exactly: a conversion to seconds since 1970 and back
    /// would round them (`Date(timeIntervalSinceReferenceDate: 0.1)` would read back 0.100000024).
    public var storedValue: StoredValue { .real(timeIntervalSinceReferenceDate) }
    /// The stored form; throws for a date of NaN seconds, which SQLite cannot store.
    public func checkedStoredValue() throws -> StoredValue {
        guard !timeIntervalSinceReferenceDate.isNaN else { throw NotANumber(typeName: "Date") }
        return .real(timeIntervalSinceReferenceDate)
    }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .data }
    public static var defaultValue: Data { Data() }
    public init?(storedValue: StoredValue) {
        guard case .blob(let value) = storedValue else { return nil }
        self = value
    }
    /// Text where bytes belong is, for an attribute stored outside the rows
    /// (`@Attribute(.externalStorage)`), the name of a file the store could not read.
    public init(checkedStoredValue: StoredValue) throws {
        if case .text(let name) = checkedStoredValue {
            throw StoredValueMismatch(
                stored: checkedStoredValue, typeName: "Data",
                explanation: "the value is stored outside the row, in file \(name) beside the store, which cannot be read")
        }
        guard case .blob(let value) = checkedStoredValue else {
            throw StoredValueMismatch(stored: checkedStoredValue, typeName: "Data")
        }
        self = value
    }
    public var storedValue: StoredValue { .blob(self) }
}

extension UUID: AttributeValue {
    public static var attributeType: AttributeType { .uuid }
    public static var defaultValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public init?(storedValue: StoredValue) {
        switch storedValue {
        case .blob(let data) where data.count == 16:
            let bytes = [UInt8](data)
            self.init(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        case .text(let string):
            self.init(uuidString: string)
        default:
            return nil
        }
    }
    public var storedValue: StoredValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }
}

extension Decimal: AttributeValue {
    public static var attributeType: AttributeType { .decimal }
    public static var defaultValue: Decimal { 0 }
    public init?(storedValue: StoredValue) {
        switch storedValue {
        case .text("NaN"): self = .nan  // how `description` writes it, which `Decimal(string:)` does not read
        case .text(let string):
            // `Decimal(string:)` reads the number a text starts with ("12abc" gives 12): only a text
            // that is a number as a whole is one.
            guard Self.isNumber(string) else { return nil }
            self.init(string: string, locale: Locale(identifier: "en_US_POSIX"))
        case .integer(let value): self.init(value)
        case .real(let value): self.init(value)
        default: return nil
        }
    }
    public var storedValue: StoredValue { .text(description) }
    /// The stored form; throws for NaN, which orders and equals nothing as a number must.
    public func checkedStoredValue() throws -> StoredValue {
        guard !isNaN else { throw NotANumber(typeName: "Decimal") }
        return .text(description)
    }

    /// Whether `text` is a decimal number and nothing else: a sign, digits with at most one point
    /// among them, and an exponent.
    private static func isNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func skipDigits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits = skipDigits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            digits += skipDigits()
        }
        guard digits > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard skipDigits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    public static var defaultValue: Wrapped? { nil }
    @inlinable
    public init?(storedValue: StoredValue) {
        if case .null = storedValue {
            self = .none
        } else if let value = Wrapped(storedValue: storedValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
    @inlinable
    public var storedValue: StoredValue { self?.storedValue ?? .null }
    public init(checkedStoredValue: StoredValue) throws {
        self = checkedStoredValue.isNull ? nil : try Wrapped(checkedStoredValue: checkedStoredValue)
    }
    @inlinable
    public func checkedStoredValue() throws -> StoredValue { try self?.checkedStoredValue() ?? .null }
}

// MARK: - Enums

extension AttributeValue where Self: RawRepresentable, RawValue: AttributeValue {
    public static var attributeType: AttributeType { RawValue.attributeType }
    @inlinable
    public init?(storedValue: StoredValue) {
        guard let raw = RawValue(storedValue: storedValue) else { return nil }
        self.init(rawValue: raw)
    }
    @inlinable
    public var storedValue: StoredValue { rawValue.storedValue }
}

extension AttributeValue where Self: RawRepresentable, RawValue: AttributeValue, Self: CaseIterable {
    /// The first declared case.
    public static var defaultValue: Self {
        // An enum with no case has no value to return; a schema refuses an attribute of one (see
        // `isInhabited`), so no object of a container reads it. Checked all the same: reading it
        // is a clear trap, never undefined behaviour.
        guard let first = allCases.first else {
            preconditionFailure("\(Self.self) has no case, so it has no default value; an attribute cannot be of this type")
        }
        return first
    }

    /// False for an enum without a case.
    public static var isInhabited: Bool { !allCases.isEmpty }
}

// MARK: - Codable values

/// A `Codable` value stored as JSON.
///
/// ```swift
/// struct Location: CodableAttribute { var latitude: Double; var longitude: Double
///     static let defaultValue = Location(latitude: 0, longitude: 0) }
/// ```
public protocol CodableAttribute: AttributeValue, Codable {}

extension CodableAttribute {
    public static var attributeType: AttributeType { .json }

    /// The value the JSON decodes to; nil when it does not decode (ObjectGraph then calls
    /// ``init(checkedStoredValue:)`` for the decoder's error, and reports it).
    public init?(storedValue: StoredValue) {
        // Optional by contract: the reason is asked for separately, on the rare failure.
        guard let value = try? Self(checkedStoredValue: storedValue) else { return nil }
        self = value
    }

    public init(checkedStoredValue: StoredValue) throws {
        let data: Data
        switch checkedStoredValue {
        case .blob(let blob): data = blob
        case .text(let text): data = Data(text.utf8)
        default: throw StoredValueMismatch(stored: checkedStoredValue, typeName: "JSON of \(Self.self)")
        }
        self = try JSONDecoder().decode(Self.self, from: data)
    }

    /// The JSON, keys sorted; NULL for a value whose encoding throws. ObjectGraph never stores
    /// this NULL: it writes through ``checkedStoredValue()``, which throws the encoder's error.
    public var storedValue: StoredValue {
        (try? checkedStoredValue()) ?? .null
    }

    public func checkedStoredValue() throws -> StoredValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return .blob(try encoder.encode(self))
    }
}
