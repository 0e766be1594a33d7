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

    var change: FeedChange {
        FeedChange(position: position, transaction: transaction, record: state.synced)
    }
}
