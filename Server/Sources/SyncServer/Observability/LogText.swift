import Logging

extension Logger.MetadataValue {
    /// Text a request supplied (a cursor, a zone, a name, a path, a message quoting them), as a
    /// log value that cannot end its line or pose as another field: quoted, with quotes,
    /// backslashes, control characters and line separators escaped, and cut at `limit` characters.
    static func requestText(_ text: some StringProtocol, limit: Int = 300) -> Self {
        var escaped = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            if count > limit {
                escaped += "…"
                break
            }
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}":
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return .string(escaped + "\"")
    }
}
