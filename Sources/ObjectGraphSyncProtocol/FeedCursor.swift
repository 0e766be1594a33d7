/// A position in a zone's change feed, as the server hands it out.
///
/// Clients treat it as opaque: they store the last one they received and send it back as
/// `since`. `FeedCursor.start` reads a zone from its beginning.
public struct FeedCursor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The position: every change in the feed has one, increasing in commit order within a zone.
    public var position: Int64

    public init(position: Int64) {
        self.position = position
    }

    /// The beginning of every feed.
    public static let start = FeedCursor(position: 0)

    /// Reads a cursor from its text form; `nil` when the text is not one.
    public init?(_ text: String) {
        guard let position = Int64(text), position >= 0 else { return nil }
        self.position = position
    }

    /// The cursor's text form, for `since=` and for storage.
    public var description: String { String(position) }

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
