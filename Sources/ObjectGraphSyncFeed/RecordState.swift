public import Foundation
public import ObjectGraphSyncProtocol

/// A record as the feed last left it: its fields and, for each field, the version that last
/// changed it (which is what lets two devices edit different fields without a conflict).
public struct RecordState: Sendable, Equatable {
    /// The record's entity.
    public var entity: String
    /// The record's identifier.
    public var id: UUID
    /// Its version: 1 when created, one more at each change.
    public var version: Int64
    /// Whether it is a tombstone.
    public var deleted: Bool
    /// Its fields (none for a tombstone).
    public var fields: [String: JSONValue]
    /// For each field, the version that last set it.
    public var fieldVersions: [String: Int64]

    /// A record's state as a storage read it back.
    public init(
        entity: String, id: UUID, version: Int64, deleted: Bool, fields: [String: JSONValue], fieldVersions: [String: Int64]
    ) {
        self.entity = entity
        self.id = id
        self.version = version
        self.deleted = deleted
        self.fields = fields
        self.fieldVersions = fieldVersions
    }

    /// The record as clients see it.
    public var synced: SyncedRecord {
        SyncedRecord(entity: entity, id: id, version: version, deleted: deleted, fields: fields)
    }
}

/// One row of a zone's change feed: a record's state after one mutation.
public struct FeedEntry: Sendable, Equatable {
    /// The entry's position in its zone's feed.
    public var position: Int64
    /// The position of the first entry of the push that wrote it.
    public var transaction: Int64
    /// When it was committed, in milliseconds since 1970 (the tombstone horizon is measured on it).
    public var committedAt: Int64
    /// The record after the mutation.
    public var state: RecordState
    /// `state.fields` as stored (JSON text, ``StoredJSON``'s canonical form).
    public var fieldsJSON: String
    /// `state.fieldVersions` as stored (JSON text).
    public var fieldVersionsJSON: String

    /// An entry as a storage read it back.
    public init(
        position: Int64, transaction: Int64, committedAt: Int64, state: RecordState, fieldsJSON: String,
        fieldVersionsJSON: String
    ) {
        self.position = position
        self.transaction = transaction
        self.committedAt = committedAt
        self.state = state
        self.fieldsJSON = fieldsJSON
        self.fieldVersionsJSON = fieldVersionsJSON
    }

    /// The entry as a feed read returns it.
    public var change: StoredChange {
        StoredChange(
            position: position, transaction: transaction, entity: state.entity, id: state.id, version: state.version,
            deleted: state.deleted, fieldsJSON: fieldsJSON)
    }
}

/// A feed entry as a feed read returns it: the record's fields still as the JSON text stored.
///
/// A feed page is mostly sent on as JSON: keeping the text spares parsing every record and
/// encoding it again (``StoredJSON`` writes the page around the text).
public struct StoredChange: Sendable, Equatable {
    /// The entry's position in its zone's feed.
    public var position: Int64
    /// The position of the first entry of the push that wrote it.
    public var transaction: Int64
    /// The record's entity.
    public var entity: String
    /// The record's identifier.
    public var id: UUID
    /// The record's version after the mutation.
    public var version: Int64
    /// Whether the mutation deleted the record.
    public var deleted: Bool
    /// The record's fields as stored (JSON text).
    public var fieldsJSON: String
    /// The name of the user whose push made the change.
    public var author: String?

    /// A change as a storage read it.
    public init(
        position: Int64, transaction: Int64, entity: String, id: UUID, version: Int64, deleted: Bool, fieldsJSON: String,
        author: String? = nil
    ) {
        self.position = position
        self.transaction = transaction
        self.entity = entity
        self.id = id
        self.version = version
        self.deleted = deleted
        self.fieldsJSON = fieldsJSON
        self.author = author
    }

    /// The change as clients see it, its fields parsed.
    public func change() throws -> FeedChange {
        FeedChange(
            position: position, transaction: transaction,
            record: SyncedRecord(
                entity: entity, id: id, version: version, deleted: deleted, fields: try StoredJSON.fields(from: fieldsJSON)),
            author: author)
    }
}

/// One page of a zone's feed, as stored.
public struct FeedPage: Sendable, Equatable {
    /// The page's changes, whole pushes only.
    public var changes: [StoredChange]
    /// Where the next page starts.
    public var cursor: FeedCursor
    /// Whether more changes follow.
    public var hasMore: Bool

    /// A page of `changes`.
    public init(changes: [StoredChange], cursor: FeedCursor, hasMore: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
    }

    /// The page as clients see it.
    public func decoded() throws -> ChangesPage {
        ChangesPage(changes: try changes.map { try $0.change() }, cursor: cursor, hasMore: hasMore)
    }
}
