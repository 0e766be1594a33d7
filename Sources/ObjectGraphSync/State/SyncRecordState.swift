public import Foundation
public import ObjectGraph

/// What this device knows of one record's sync: the server's version and fields as last seen, and
/// the local changes the server has not acknowledged. One per synced object, kept until the server
/// knows of its deletion.
///
/// Written by the sync's own saves, in the transaction that changes what it describes: a page of the
/// feed with the objects it changes, an acknowledgment with the versions it gives. Public so that a
/// change processor can select records by it (the ``Uploader`` selects the pending ones); its state
/// is the sync's to change.
///
/// A state has the global ID of its record (``recordID``): the global ID's unique index finds it and
/// keeps it one per record, with no index of its own to write.
@Entity("ObjectGraphSyncRecordState") public final class SyncRecordState {
    /// The record: the object's global ID, which the state shares.
    public var recordID: UUID { objectGlobalID }
    /// The object's entity.
    public internal(set) var entityName: String
    /// The server's version that the local changes are based on: sent with them, so that the
    /// server refuses a change of a field it changed since. Nil for a record the server never had.
    var baseVersion: Int64?
    /// The highest version of the record applied from the feed: older changes are skipped.
    var feedVersion: Int64 = 0
    /// The fields as last known from the server, as a JSON object: for the properties with pending
    /// local changes, as they were when those changes began (the base of a three-way merge).
    var shadow: Data?
    /// The properties changed here that the server has not acknowledged, comma-separated.
    var pendingProperties = ""
    /// Counts local changes; those up to `acknowledgedRevision` are on the server.
    var localRevision: Int64 = 0
    var acknowledgedRevision: Int64 = 0
    /// Whether local changes wait for the server (`localRevision > acknowledgedRevision`): a flag,
    /// so that the uploader finds pending records through an index.
    @Attribute(.indexed) public internal(set) var isPending = false
    /// Whether the object was deleted here and the server is still to be told.
    public internal(set) var isDeletedLocally = false
    /// For an object whose entity owns many-to-many links: the members of each such relationship
    /// as last recorded (JSON, relationship name to global IDs), which the next local change of
    /// the relationship is compared with to find the links it adds and removes.
    var members: Data?
    /// While the zone is read again from its start (the server's answer 410): whether the record
    /// was not seen yet. One still unseen at the end was deleted on the server meanwhile.
    var isUnconfirmed = false
    /// For a member of ordered relationships: its position in each owner's list, as this device
    /// has it (JSON, position field to ``FractionalIndex`` key).
    var positions: Data?

    /// The local revision the server refused as too large (see ``HeldBackRecord``): the record
    /// is not sent again until a new local change gives it another revision. Zero when none was.
    var heldBackRevision: Int64 = 0
    /// The server's refusal of that revision.
    var heldBackReason: String?

    /// The zone the record lives in: empty for the coordinator's own zone, else the zone's
    /// ``ZoneID`` text (see ``SyncWorkspace/zoneKey(_:)``). A record lives in one zone.
    var zone = ""

    init(entityName: String, zone: String) {
        self.entityName = entityName
        self.zone = zone
    }
}
