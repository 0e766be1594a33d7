import Foundation

extension UUID {
    /// Reads a UUID from its text form: 36 characters, hexadecimal digits of either case in groups
    /// of 8, 4, 4, 4 and 12, separated by hyphens; nil for anything else.
    ///
    /// Not `UUID(uuidString:)`: on Linux Foundation parses with `sscanf`, which reads a sign, a space
    /// or `0x` inside a group as part of a number, so that a malformed ID names another record
    /// (`" 195f3a2-…"` reads as `195F3A02-…`); and it cost a tenth of applying a page of the feed,
    /// where each reference of each record is read.
    init?(text: String) {
        var text = text
        let uuid = text.withUTF8 { bytes -> uuid_t? in
            guard bytes.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &uuid) { target -> Bool in
                var input = 0
                for index in 0..<16 {
                    if input == 8 || input == 13 || input == 18 || input == 23 {
                        guard bytes[input] == UInt8(ascii: "-") else { return false }
                        input += 1
                    }
                    guard let high = Self.hexDigit(bytes[input]), let low = Self.hexDigit(bytes[input + 1]) else { return false }
                    target[index] = high << 4 | low
                    input += 2
                }
                return true
            }
            return parsed ? uuid : nil
        }
        guard let uuid else { return nil }
        self.init(uuid: uuid)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
