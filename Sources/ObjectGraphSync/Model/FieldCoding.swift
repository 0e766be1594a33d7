import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// How an attribute's stored value travels as a record field, by the attribute's type.
///
/// The server holds fields as JSON and knows no model, so each type has one JSON form, which every
/// client writes and reads the same way: strings, integers and booleans as themselves, `Double` as
/// a number, `Date` as seconds since 1970, `Data` as base64 text, `UUID` and `Decimal` as text (no
/// digit of a decimal is lost), a `Codable` value as the JSON it encodes to, nil as null. A value
/// that does not have its type's form is an error, never a default: it names the record type,
/// record and field.
///
/// A date travels as seconds since 1970, as every client before ObjectGraph's store format 2 sent
/// it, although the store keeps the seconds since 2001 a `Date` holds: converted both ways, it
/// keeps the precision a `Double` of seconds since 1970 has (a fraction of a microsecond today).
enum FieldCoding {
    /// The seconds from 1970 to 2001.
    private static let referenceDateOffset = Date.timeIntervalBetween1970AndReferenceDate

    /// The JSON form of a stored value of an attribute of `type`.
    static func json(_ value: StoredValue, type: AttributeType) throws -> JSONValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.text(let text), .string), (.text(let text), .decimal): return .string(text)
        case (.integer(let integer), .integer): return .integer(integer)
        case (.integer(let integer), .bool): return .bool(integer != 0)
        case (.real(let real), .double):
            guard real.isFinite else { throw FieldCodingError("\(real) has no JSON form") }
            return .double(real)
        case (.real(let real), .date):
            guard real.isFinite else { throw FieldCodingError("\(real) has no JSON form") }
            return .double(real + referenceDateOffset)
        case (.integer(let integer), .double): return .double(Double(integer))
        case (.integer(let integer), .date): return .double(Double(integer) + referenceDateOffset)
        case (.blob(let data), .data): return .string(data.base64EncodedString())
        case (.blob(let data), .uuid):
            guard let uuid = UUID(storedValue: .blob(data)) else { throw FieldCodingError("\(data.count) bytes are not a UUID") }
            return .string(uuid.uuidString)
        case (.text(let text), .uuid):
            guard UUID(text: text) != nil else { throw FieldCodingError("'\(text)' is not a UUID") }
            return .string(text.uppercased())
        case (.blob(let data), .json):
            do {
                return try JSONDecoder().decode(JSONValue.self, from: data)
            } catch {
                throw FieldCodingError("the stored JSON does not parse: \(error)")
            }
        default:
            throw FieldCodingError("\(value) is not a stored value of a \(type.rawValue) attribute")
        }
    }

    /// The stored value of a field's JSON form, for an attribute of `type`.
    static func storedValue(_ json: JSONValue, type: AttributeType, isOptional: Bool) throws -> StoredValue {
        switch (json, type) {
        case (.null, _):
            guard isOptional else { throw FieldCodingError("null for a required attribute") }
            return .null
        case (.string(let text), .string): return .text(text)
        case (.string(let text), .decimal):
            guard Decimal(storedValue: .text(text)) != nil else { throw FieldCodingError("'\(text)' is not a decimal number") }
            return .text(text)
        case (.integer(let integer), .decimal): return .text(String(integer))
        case (.integer(let integer), .integer): return .integer(integer)
        case (.bool(let bool), .bool): return .integer(bool ? 1 : 0)
        case (.double(let real), .double): return .real(real)
        case (.double(let real), .date): return .real(real - referenceDateOffset)
        case (.integer(let integer), .double), (.integer(let integer), .date):
            guard let real = Double(exactly: integer) else { throw FieldCodingError("\(integer) has no exact Double") }
            return .real(type == .date ? real - referenceDateOffset : real)
        case (.double(let real), .integer):
            guard let integer = Int64(exactly: real) else { throw FieldCodingError("\(real) is not an integer") }
            return .integer(integer)
        case (.string(let text), .data):
            guard let data = Data(base64Encoded: text) else { throw FieldCodingError("the text is not base64") }
            return .blob(data)
        case (.string(let text), .uuid):
            guard let uuid = UUID(text: text) else { throw FieldCodingError("'\(text)' is not a UUID") }
            return uuid.storedValue
        case (_, .json):
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return .blob(try encoder.encode(json))
        default:
            throw FieldCodingError("\(json) is not the JSON form of a \(type.rawValue) attribute")
        }
    }
}

/// A value with no field form, or a field with no stored form; the caller names the record and field.
struct FieldCodingError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
