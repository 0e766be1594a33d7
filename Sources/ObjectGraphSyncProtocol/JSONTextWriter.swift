public import Foundation

/// Writes JSON text in one canonical form: object keys sorted, strings escaped as RFC 8259
/// requires and no more, numbers in Swift's shortest form that reads back as the same value.
///
/// The server writes the fields it stores and hashes with it, and the sync client the fields it
/// keeps of each record: equal values give equal bytes, and writing costs a pass over the value
/// (Foundation's `JSONEncoder` costs several times more for the small objects both write by the
/// million).
///
/// ```swift
/// var writer = JSONTextWriter()
/// try writer.writeObject(fields) { writer, value in try writer.write(value) }
/// let text = writer.text
/// ```
public struct JSONTextWriter: Sendable {
    /// A number JSON cannot hold (infinity or NaN).
    public struct NonFiniteNumber: Error, CustomStringConvertible {
        /// The number.
        public var value: Double
        public var description: String { "\(value) is not a number JSON can hold." }
    }

    /// The text written so far, as UTF-8.
    public var bytes: [UInt8] = []

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A writer with nothing written.
    public init() {}

    /// Writes a value; throws ``NonFiniteNumber`` for a number JSON cannot hold.
    public mutating func write(_ value: JSONValue) throws {
        switch value {
        case .null: writeNull()
        case .bool(let flag): write(flag)
        case .integer(let integer): write(integer)
        case .double(let double):
            guard double.isFinite else { throw NonFiniteNumber(value: double) }
            // Swift's shortest form that reads back as the same Double ("0.1", "1e-05").
            bytes.append(contentsOf: double.description.utf8)
        case .string(let string): write(string)
        case .array(let elements): try writeArray(elements) { writer, element in try writer.write(element) }
        case .object(let members): try writeObject(members) { writer, member in try writer.write(member) }
        }
    }

    /// A UUID as its `uuidString`, quoted (formatted here: `uuidString` goes through `printf`).
    public mutating func write(_ uuid: UUID) {
        let hex = Array("0123456789ABCDEF".utf8)
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: uuid.uuid) { raw in
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes an integer.
    public mutating func write(_ integer: Int64) {
        bytes.append(contentsOf: String(integer).utf8)
    }

    /// Writes `true` or `false`.
    public mutating func write(_ flag: Bool) {
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    /// Writes `null`.
    public mutating func writeNull() {
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes a string, quoted and escaped.
    public mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes go in at once.
        let needsEscape = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscape else {
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `"key":`, preceded by a comma unless it is the object's first.
    public mutating func writeKey(_ key: String, first: Bool = true) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes an object, its keys sorted, each value by `writeValue`.
    @inlinable public mutating func writeObject<Value>(
        _ members: [String: Value], _ writeValue: (inout JSONTextWriter, Value) throws -> Void
    ) rethrows {
        bytes.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.sorted().enumerated() {
            writeKey(key, first: index == 0)
            // The key comes from `members`: the lookup cannot miss.
            if let value = members[key] { try writeValue(&self, value) }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes an array, each element by `writeElement`.
    @inlinable public mutating func writeArray<Element>(
        _ elements: [Element], _ writeElement: (inout JSONTextWriter, Element) throws -> Void
    ) rethrows {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try writeElement(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
