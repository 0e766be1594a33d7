/// What `GET /v1/zones/{zone}/live` sends, as server-sent events: the zone's feed moved.
///
/// Each event is `event: changes` with this value as JSON in `data:` (see ``LiveMessage``); a
/// client reads the changes after its own cursor when the event's cursor is past it.
public struct LiveEvent: Sendable, Hashable, Codable {
    /// The zone's feed position when the event was sent.
    public var cursor: FeedCursor

    public init(cursor: FeedCursor) {
        self.cursor = cursor
    }
}
