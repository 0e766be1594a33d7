import ObjectGraphSyncProtocol

/// Reads JSON text into `JSONValue`s: the fields and field versions the server stored.
///
/// It reads any JSON (PostgreSQL's own text of older `jsonb` columns has spaces) as
/// `JSONDecoder` reads it from the wire: a whole number (`2`, `2.0`, `1e3`) is an integer when
/// an `Int64` holds it, any other a double. Reading a record's state back is most of an update's work, and through `JSONDecoder`
/// each value cost a thrown error per kind it was not.
struct JSONTextReader {
    /// Text that is not JSON, or a number no `Double` holds.
    struct Malformed: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "Stored JSON is malformed at byte \(offset): \(reason)." }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The value `text` holds, which must be the whole text.
    static func value(of text: String) throws -> JSONValue {
        var reader = JSONTextReader(text)
        let value = try reader.readValue()
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.malformed("text after the value") }
        return value
    }

    /// The members of the object `text` holds.
    static func object(of text: String) throws -> [String: JSONValue] {
        guard case .object(let members) = try value(of: text) else {
            throw Malformed(offset: 0, reason: "not an object")
        }
        return members
    }

    /// The members of the object of integers `text` holds.
    static func integers(of text: String) throws -> [String: Int64] {
        try object(of: text).mapValues { value in
            guard case .integer(let integer) = value else { throw Malformed(offset: 0, reason: "not an integer") }
            return integer
        }
    }

    private mutating func readValue() throws -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw malformed("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try readObject())
        case UInt8(ascii: "["): return .array(try readArray())
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try readLiteral("null"); return .null
        default: return try readNumber()
        }
    }

    private mutating func readObject() throws -> [String: JSONValue] {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if take(UInt8(ascii: "}")) { return members }
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw malformed("a key should be here") }
            let key = try readString()
            skipSpace()
            guard take(UInt8(ascii: ":")) else { throw malformed("':' should follow a key") }
            members[key] = try readValue()
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw malformed("',' or '}' should be here") }
        return members
    }

    private mutating func readArray() throws -> [JSONValue] {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return elements }
        repeat {
            elements.append(try readValue())
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw malformed("',' or ']' should be here") }
        return elements
    }

    private mutating func readString() throws -> String {
        index += 1
        let start = index
        // Most strings have no escape: they are their bytes.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        guard index < bytes.count else { throw malformed("a string does not end") }
        var utf8 = Array(bytes[start..<index])
        while bytes[index] == UInt8(ascii: "\\") {
            index += 1
            guard index < bytes.count else { throw malformed("a string does not end") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"): utf8.append(contentsOf: try readUnicodeEscape())
            default: throw malformed("\\\(Character(Unicode.Scalar(escape))) is not an escape")
            }
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                utf8.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { throw malformed("a string does not end") }
        }
        index += 1
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The scalar of `\uXXXX` (after the `u`), or of a surrogate pair `\uD83E\uDDED`, as UTF-8.
    private mutating func readUnicodeEscape() throws -> String.UTF8View {
        var code = try readHex4()
        if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        {
            index += 2
            let low = try readHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw malformed("a surrogate pair is broken") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw malformed("a lone surrogate") }
        return String(Character(scalar)).utf8
    }

    private mutating func readHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw malformed("\\u needs four hexadecimal digits") }
        index += 4
        return code
    }

    private mutating func readNumber() throws -> JSONValue {
        let start = index
        var isInteger = true
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): break
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"): isInteger = false
            default: break scan
            }
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard !text.isEmpty, let double = Double(text), double.isFinite else {
            throw Malformed(offset: start, reason: text.isEmpty ? "a value should be here" : "\(text) is not a number")
        }
        // As Foundation's decoder (the wire's) reads it: a whole number is an integer.
        if let integer = Int64(exactly: double) { return .integer(integer) }
        return .double(double)
    }

    private mutating func readLiteral(_ literal: String) throws {
        let count = literal.utf8.count
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(literal.utf8) else {
            throw malformed("not a JSON value")
        }
        index += count
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    private func malformed(_ reason: String) -> Malformed {
        Malformed(offset: index, reason: reason)
    }
}
