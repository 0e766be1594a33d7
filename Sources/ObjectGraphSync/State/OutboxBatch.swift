import Foundation
import ObjectGraph

/// A push the client is sending and the server has not acknowledged: saved before it is sent, so
/// that after a crash or a lost answer the very same batch (same client, same mutation numbers)
/// is sent again, which the server applies once. Deleted in the transaction that records its
/// acknowledgment.
@Entity("ObjectGraphSyncOutboxBatch") final class OutboxBatch {
    var zone: String
    /// The push request, as sent (JSON).
    var request: Data
    /// For each mutation, what it carries of its record's local state (JSON, see `OutboxEntry`).
    var entries: Data

    init(zone: String, request: Data, entries: Data) {
        self.zone = zone
        self.request = request
        self.entries = entries
    }
}

/// What one mutation of an outbox batch carries: the revision of its record it was built from,
/// and the properties it sends with their field values (the server's fields once acknowledged).
struct OutboxEntry: Codable, Sendable {
    var recordID: UUID
    var revision: Int64
    var properties: [String]
    /// For a forward left in a zone the record moved out of (see ``ZoneMove``): the zone it moved
    /// to, as the forward names it. Nil for a record's own change.
    var forwardsTo: String?
}
