import Foundation
package import GRDB
import ObjectGraphModel

extension SQL {
    /// How many values a list binds one placeholder each; longer lists are bound as one argument.
    /// Every chunked loop of ObjectGraph stays at or under it, so its statements keep their
    /// placeholders (and SQLite's plan for them).
    package static let inlineListLimit = 500

    /// The right-hand side of an `IN` or `NOT IN` condition holding `values`, with its arguments:
    /// `(?, ?, ?)`, or, past ``inlineListLimit`` values, `(SELECT value FROM json_each(?))` with
    /// the values as one JSON array. Either way the statement binds at most ``inlineListLimit``
    /// variables, whatever the number of values: no SQLite build's variable limit is reachable.
    ///
    /// JSON has no blobs nor non-finite numbers; a long list holding one is written as SQL
    /// literals (hex for blobs), which bind no variable either.
    package static func list(_ values: [DatabaseValue]) -> SQLFragment {
        guard values.count > inlineListLimit else {
            return SQLFragment("(" + placeholders(values.count) + ")", arguments: values)
        }
        if let json = jsonArray(values) {
            return SQLFragment("(SELECT value FROM json_each(?))", arguments: [json.databaseValue])
        }
        return SQLFragment("(" + values.map(literal).joined(separator: ", ") + ")")
    }

    /// The values as a JSON array, or nil if one of them has no JSON form.
    private static func jsonArray(_ values: [DatabaseValue]) -> String? {
        var json = "["
        json.reserveCapacity(values.count * 8)
        for (position, value) in values.enumerated() {
            if position > 0 { json += "," }
            switch value.storage {
            case .null: json += "null"
            case .int64(let integer): json += String(integer)
            case .double(let real):
                guard real.isFinite else { return nil }
                json += "\(real)"
            case .string(let text): appendJSONString(text, to: &json)
            case .blob: return nil
            }
        }
        return json + "]"
    }

    private static func appendJSONString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20: json += String(format: "\\u%04x", scalar.value)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }

    /// An SQL literal for a value: numbers as written, text quoted, blobs in hex.
    package static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let integer): String(integer)
        case .double(let real):
            real.isNaN ? "NULL" : real.isInfinite ? (real < 0 ? "-9e999" : "9e999") : "\(real)"
        case .string(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
