import Foundation
import ObjectGraphSyncProtocol

/// A record as the feed last left it: its fields and, for each field, the version that last
/// changed it (which is what lets two devices edit different fields without a conflict).
struct RecordState: Sendable, Equatable {
    var entity: String
    var id: UUID
    var version: Int64
    var deleted: Bool
    var fields: [String: JSONValue]
    var fieldVersions: [String: Int64]

    /// The record as clients see it.
    var synced: SyncedRecord {
        SyncedRecord(entity: entity, id: id, version: version, deleted: deleted, fields: fields)
    }
}

/// One row of a zone's change feed: a record's state after one mutation.
struct FeedEntry: Sendable, Equatable {
    /// The entry's position in its zone's feed.
    var position: Int64
    /// The position of the first entry of the push that wrote it.
    var transaction: Int64
    /// When it was committed, in milliseconds since 1970 (the tombstone horizon is measured on it).
    var committedAt: Int64
    var state: RecordState
    /// `state.fields` and `state.fieldVersions` as stored (JSON text).
    var fieldsJSON: String
    var fieldVersionsJSON: String
}

/// A feed entry as a feed read returns it: the record's fields still as the JSON text stored.
///
/// A feed page is mostly sent on as JSON: keeping the text spares parsing every record and
/// encoding it again (``StoredJSON`` writes the page around the text).
struct StoredChange: Sendable, Equatable {
    var position: Int64
    var transaction: Int64
    var entity: String
    var id: UUID
    var version: Int64
    var deleted: Bool
    var fieldsJSON: String

    /// The change as clients see it, its fields parsed.
    func change() throws -> FeedChange {
        FeedChange(
            position: position, transaction: transaction,
            record: SyncedRecord(
                entity: entity, id: id, version: version, deleted: deleted, fields: try StoredJSON.fields(from: fieldsJSON)))
    }
}

/// One page of a zone's feed, as stored.
struct FeedPage: Sendable, Equatable {
    var changes: [StoredChange]
    var cursor: FeedCursor
    var hasMore: Bool

    /// The page as clients see it.
    func decoded() throws -> ChangesPage {
        ChangesPage(changes: try changes.map { try $0.change() }, cursor: cursor, hasMore: hasMore)
    }
}
