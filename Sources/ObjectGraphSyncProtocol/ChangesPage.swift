/// One change in a zone's feed: a record's state after a pushed mutation, or its tombstone.
public struct FeedChange: Sendable, Hashable, Codable {
    /// The change's position in the zone's feed (increasing in commit order).
    public var position: Int64
    /// The position of the push that made the change: the changes of one push share it and are
    /// never split across pages, so a client can apply a server transaction atomically.
    public var transaction: Int64
    /// The record after the change (every field), or its tombstone.
    public var record: SyncedRecord
    /// The name of the user whose push made the change: in a shared zone, one of its writers or
    /// its owner. Nil from a server older than shared zones.
    public var author: String?

    public init(position: Int64, transaction: Int64, record: SyncedRecord, author: String? = nil) {
        self.position = position
        self.transaction = transaction
        self.record = record
        self.author = author
    }
}

/// The answer to `GET /v1/zones/{zone}/changes?since=CURSOR&limit=N`.
public struct ChangesPage: Sendable, Hashable, Codable {
    /// The changes after the cursor, in commit order, whole transactions only.
    public var changes: [FeedChange]
    /// The cursor to ask from next time.
    public var cursor: FeedCursor
    /// True when more changes follow this page: ask again from `cursor` right away.
    public var hasMore: Bool

    public init(changes: [FeedChange], cursor: FeedCursor, hasMore: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
