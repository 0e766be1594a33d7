/// A position in a zone's change feed, as the server hands it out.
///
/// Clients treat it as opaque text: they store the last one they received and send it back as
/// `since`. Its text is `0` for the start of every feed, and otherwise the position and a tag of
/// the zone it was given out for (`42.9f1c03ab`), so that the server refuses a cursor sent to
/// another zone instead of reading that zone from a position that means nothing there.
public struct FeedCursor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The position: every change in the feed has one, increasing in commit order within a zone.
    /// Positions of one zone's cursors compare; a client may use them to tell which is further.
    public var position: Int64
    /// The zone the cursor was given out for, as only the server interprets it; nil for the start.
    public var zoneTag: UInt32?

    public init(position: Int64, zoneTag: UInt32?) {
        self.position = position
        self.zoneTag = zoneTag
    }

    /// The beginning of every feed.
    public static let start = FeedCursor(position: 0, zoneTag: nil)

    /// Reads a cursor from its text form; `nil` when the text is not one.
    public init?(_ text: String) {
        if text == "0" {
            self = .start
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = parts[0].first, first != "0", first != "+", first != "-",
            let position = Int64(parts[0]), parts[1].utf8.count == 8,
            parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let tag = UInt32(parts[1], radix: 16)
        else { return nil }
        self.init(position: position, zoneTag: tag)
    }

    /// The cursor's text form, for `since=` and for storage.
    public var description: String {
        guard let zoneTag else { return String(position) }  // "0": only the start has no tag
        let hex = String(zoneTag, radix: 16)
        return "\(position)." + String(repeating: "0", count: 8 - hex.count) + hex
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let cursor = FeedCursor(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a feed cursor: \(text)")
        }
        self = cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
