/// Reads JSON text (RFC 8259) into ``JSONValue``s, strictly, at a cost that follows the text's
/// length whatever its shape.
///
/// The server reads every push body and every stored record with it. Foundation's `JSONDecoder`
/// decodes a ``JSONValue`` by trying each kind in turn, and each miss is a thrown error: a body of
/// four megabytes of empty arrays cost seconds of CPU, where the same size of strings cost a few
/// milliseconds. Here every byte is looked at once.
///
/// It refuses, naming the byte where: anything RFC 8259 does not allow (a trailing comma, `+1`,
/// `01`, a raw control character or invalid UTF-8 in a string, a lone surrogate), a key that
/// appears twice in one object (which of the two would win is not something two readers agree
/// on), nesting deeper than ``maximumDepth``, and a whole number written without a fraction or an
/// exponent that an `Int64` cannot hold (it would otherwise become a `Double` and come back as
/// another number). Other numbers read as Foundation reads them: a whole number an `Int64` holds
/// is an integer (`2`, `2.0`, `1e3`), any other a `Double`.
///
/// ```swift
/// let value = try JSONTextReader.value(of: #"{"rating": 4, "tags": ["calm"]}"#)
/// ```
public struct JSONTextReader {
    /// Text that is not JSON this reader accepts.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where, as a byte offset into the text.
        public var offset: Int
        /// What is wrong there.
        public var reason: String

        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }

        public var description: String { "The JSON is malformed at byte \(offset): \(reason)." }
    }

    /// How deeply arrays and objects may nest: deeper text is refused rather than read by a
    /// recursion whose depth the sender chooses.
    public static let maximumDepth = 128

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value the UTF-8 `bytes` hold, which must be the whole text (spaces around it aside).
    public static func value(of bytes: [UInt8]) throws(Malformed) -> JSONValue {
        var reader = JSONTextReader(bytes)
        let value = try reader.readValue()
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.malformed("text follows the value") }
        return value
    }

    /// The value `text` holds, which must be the whole text.
    public static func value(of text: String) throws(Malformed) -> JSONValue {
        try value(of: Array(text.utf8))
    }

    /// The members of the object `text` holds.
    public static func object(of text: String) throws(Malformed) -> [String: JSONValue] {
        guard case .object(let members) = try value(of: text) else {
            throw Malformed(offset: 0, reason: "the text is not an object")
        }
        return members
    }

    /// The members of the object of integers `text` holds.
    public static func integers(of text: String) throws(Malformed) -> [String: Int64] {
        var integers: [String: Int64] = [:]
        for (key, value) in try object(of: text) {
            guard case .integer(let integer) = value else {
                throw Malformed(offset: 0, reason: "the member \"\(key)\" is not an integer")
            }
            integers[key] = integer
        }
        return integers
    }

    // MARK: Values

    private mutating func readValue() throws(Malformed) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw malformed("a value should be here") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try readObject())
        case UInt8(ascii: "["): return .array(try readArray())
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try readLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw malformed("a value should be here")
        }
    }

    private mutating func enter() throws(Malformed) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw malformed("arrays and objects nest deeper than \(Self.maximumDepth) levels")
        }
        index += 1
    }

    private mutating func readObject() throws(Malformed) -> [String: JSONValue] {
        try enter()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        skipSpace()
        if take(UInt8(ascii: "}")) { return members }
        repeat {
            skipSpace()
            let keyOffset = index
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw malformed("a key should be here") }
            let key = try readString()
            skipSpace()
            guard take(UInt8(ascii: ":")) else { throw malformed("':' should follow a key") }
            let value = try readValue()
            guard members.updateValue(value, forKey: key) == nil else {
                throw Malformed(offset: keyOffset, reason: "the key \"\(key.prefix(100))\" appears twice in one object")
            }
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw malformed("',' or '}' should be here") }
        return members
    }

    private mutating func readArray() throws(Malformed) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
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

    // MARK: Strings

    private mutating func readString() throws(Malformed) -> String {
        let start = index
        index += 1
        var utf8: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else { throw Malformed(offset: start, reason: "a string does not end") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw malformed("a control character must be escaped in a string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            utf8.append(contentsOf: bytes[runStart..<index])
            index += 1
            guard index < bytes.count else { throw Malformed(offset: start, reason: "a string does not end") }
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
            default: throw Malformed(offset: index - 2, reason: "\\\(Character(Unicode.Scalar(escape))) is not an escape")
            }
            runStart = index
        }
        let string: String?
        if utf8.isEmpty {
            // Most strings have no escape: they are their bytes, checked to be UTF-8.
            string = String(validating: bytes[runStart..<index], as: UTF8.self)
        } else {
            utf8.append(contentsOf: bytes[runStart..<index])
            string = String(validating: utf8, as: UTF8.self)
        }
        guard let string else { throw Malformed(offset: start, reason: "a string is not valid UTF-8") }
        index += 1
        return string
    }

    /// The scalar of `\uXXXX` (after the `u`), or of a surrogate pair `\uD83E\uDDED`, as UTF-8.
    private mutating func readUnicodeEscape() throws(Malformed) -> String.UTF8View {
        let start = index - 2
        var code = try readHex4()
        if (0xD800..<0xDC00).contains(code) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw Malformed(offset: start, reason: "a high surrogate is not followed by a low one")
            }
            index += 2
            let low = try readHex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw Malformed(offset: start, reason: "a high surrogate is not followed by a low one")
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw Malformed(offset: start, reason: "a lone low surrogate") }
        return String(Character(scalar)).utf8
    }

    private mutating func readHex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw malformed("\\u needs four hexadecimal digits") }
        var code: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("\\u needs four hexadecimal digits")
            }
            code = code << 4 | UInt32(digit)
        }
        index += 4
        return code
    }

    // MARK: Numbers

    /// A number as RFC 8259 writes it: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
    private mutating func readNumber() throws(Malformed) -> JSONValue {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            if index < bytes.count, isDigit(bytes[index]) { throw malformed("a number does not start with 0") }
        } else {
            guard skipDigits() else { throw malformed("a digit should be here") }
        }
        var isWritten = true  // as an integer: no fraction, no exponent
        if take(UInt8(ascii: ".")) {
            isWritten = false
            guard skipDigits() else { throw malformed("a digit should follow the decimal point") }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            isWritten = false
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard skipDigits() else { throw malformed("a digit should follow the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isWritten {
            guard let integer = Int64(text) else {
                throw Malformed(
                    offset: start,
                    reason: "\(text.prefix(40)) is beyond the 64-bit integer range (send it as a string to keep every digit)")
            }
            return .integer(integer)
        }
        guard let double = Double(text), double.isFinite else {
            throw Malformed(offset: start, reason: "\(text.prefix(40)) is beyond the range of a 64-bit floating-point number")
        }
        // As Foundation's decoder (the wire's) reads it: a whole number is an integer.
        if let integer = Int64(exactly: double) { return .integer(integer) }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Skips digits; false when there was none.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index > start
    }

    // MARK: Bytes

    private mutating func readLiteral(_ literal: StaticString) throws(Malformed) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<index + count].elementsEqual(expected)
        }
        guard matches else { throw malformed("a value should be here") }
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
