import Foundation

/// One message of `GET /v1/zones/{zone}/live`, a stream of server-sent events.
///
/// The server writes each message with ``text()``; a client splits the bytes it receives into
/// messages with ``LiveMessage/Parser``, whatever chunks the network cuts them into.
public enum LiveMessage: Sendable, Hashable {
    /// The subscription is in place: every change committed from now on is announced.
    /// Always the first message.
    case listening
    /// The zone's feed moved: read the changes after your cursor.
    case changes(LiveEvent)
    /// Nothing happened for a while; sent so that proxies and clients see the connection alive.
    case keepAlive

    /// The message as server-sent-event text, ending with the blank line that closes it.
    public func text() throws -> String {
        switch self {
        case .listening:
            return ": listening\n\n"
        case .keepAlive:
            return ": tick\n\n"
        case .changes(let event):
            let data = try JSONEncoder().encode(event)
            return "event: changes\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
        }
    }
}

extension LiveMessage {
    /// Splits the live route's bytes into messages, following the server-sent events format:
    /// lines end with LF or CRLF, a blank line ends a message, events of kinds this version
    /// does not know are skipped (a newer server may send them).
    public struct Parser: Sendable {
        private var pending: [UInt8] = []
        private var comment: String?
        private var eventName: String?
        private var data: [String] = []

        public init() {}

        /// Takes the next bytes of the stream and returns the messages they complete.
        ///
        /// - Throws: `DecodingError` when a `changes` event's data is not a ``LiveEvent``.
        public mutating func append(_ bytes: some Sequence<UInt8>) throws -> [LiveMessage] {
            pending.append(contentsOf: bytes)
            var messages: [LiveMessage] = []
            var lineStart = pending.startIndex
            while let newline = pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = pending[lineStart..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                lineStart = newline + 1
                if let message = try take(String(decoding: line, as: UTF8.self)) { messages.append(message) }
            }
            pending.removeSubrange(..<lineStart)
            return messages
        }

        /// Takes one line; a blank line dispatches what the lines before it described.
        private mutating func take(_ line: String) throws -> LiveMessage? {
            guard line.isEmpty else {
                if line.hasPrefix(":") {
                    comment = comment ?? line.dropFirst().trimmingCharacters(in: .whitespaces)
                } else {
                    let (field, value) = Self.field(line)
                    switch field {
                    case "event": eventName = value
                    case "data": data.append(value)
                    default: break  // `id`, `retry` and unknown fields carry nothing we use
                    }
                }
                return nil
            }
            defer { (comment, eventName, data) = (nil, nil, []) }
            if eventName == nil && data.isEmpty {
                switch comment {
                case "listening": return .listening
                case "tick": return .keepAlive
                default: return nil
                }
            }
            guard eventName == "changes" else { return nil }
            return .changes(try JSONDecoder().decode(LiveEvent.self, from: Data(data.joined(separator: "\n").utf8)))
        }

        /// `name: value`, with the one space after the colon not part of the value.
        private static func field(_ line: String) -> (String, String) {
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            return (String(line[..<colon]), String(value))
        }
    }
}
