import Foundation
import ObjectGraph

/// A record moved out of a zone here, whose old zone is still to be told: once the new zone holds
/// the record, the old one gets a forward in its place (see `SyncedRecord.forwardField`), so
/// that the devices reading it move the object rather than delete it. It has its record's global
/// ID. Made in the transaction of the move, deleted in the one that records the forward's
/// acknowledgment.
@Entity("ObjectGraphSyncZoneMove") final class ZoneMove {
    /// The record's type, as the old zone's feed names it.
    var recordType: String
    /// The zone the record left (a ``SyncWorkspace/zoneKey(_:)``).
    var fromZone: String
    /// The zone the record went to (a ``SyncWorkspace/zoneKey(_:)``).
    var toZone: String
    /// The old zone's version of the record, which the forward is based on.
    var baseVersion: Int64

    init(recordType: String, fromZone: String, toZone: String, baseVersion: Int64) {
        self.recordType = recordType
        self.fromZone = fromZone
        self.toZone = toZone
        self.baseVersion = baseVersion
    }
}
