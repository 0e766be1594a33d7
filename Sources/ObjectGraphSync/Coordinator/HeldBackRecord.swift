public import Foundation

/// A local record the server refused to take as it is: its fields are larger than the server's
/// limit for one record (its `maxRecordBytes`, 256 KiB of JSON by default; a value kept in a file
/// with `@Attribute(.externalStorage)` travels in its record, as base64 text). The rest of the zone
/// is sent without it; the record is sent again at its next local change (a smaller value).
///
/// Nothing is lost: the object keeps its value here, and the record stays pending. Show it, and
/// let the user make it smaller, or raise the server's limit (`--max-record-bytes`).
///
/// ```swift
/// for held in try sync.heldBackRecords() {
///     print("\(held.entity) \(held.id) is not sent: \(held.reason)")
/// }
/// ```
public struct HeldBackRecord: Sendable, Hashable, Identifiable {
    /// The record's ID: the object's global ID.
    public var id: UUID
    /// The object's entity.
    public var entity: String
    /// The server's refusal, naming the record and its size against the limit.
    public var reason: String

    /// A held-back record.
    public init(id: UUID, entity: String, reason: String) {
        self.id = id
        self.entity = entity
        self.reason = reason
    }
}
