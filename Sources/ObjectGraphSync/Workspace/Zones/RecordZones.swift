import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Which zone each record lives in.
///
/// A record lives in one zone, kept in its state (``SyncRecordState``): the zone whose feed brought
/// it, or, for an object made here, its parent's: the object it belongs to through a reference
/// whose inverse deletes it in cascade (a mood of a shared country is shared with it). An object
/// with no such parent lives in the coordinator's own zone.
extension SyncWorkspace {
    /// How a record state names `zone`: empty for the coordinator's own zone (so that the states
    /// of a store made before shared zones need no rewriting), else the zone's text.
    func zoneKey(_ zone: ZoneID) -> String {
        zone == home ? "" : zone.description
    }

    /// The zone a state's key names.
    func zone(forKey key: String) -> ZoneID {
        key.isEmpty ? home : ZoneID(parsing: key) ?? home
    }

    /// The key of the zone an object made here lives in: its parent's (found through the parent's
    /// state, or its own parent when the parent is new too), else the coordinator's own.
    func zoneKey(of object: any Entity, shape: RecordShape?) throws -> String {
        try parentZoneKey(of: object, shape: shape) ?? ""
    }

    /// The key of the zone of `object`'s parent (or of the nearest ancestor the sync knows); nil for
    /// an object with no parent, or while the store syncs no other zone.
    func parentZoneKey(of object: any Entity, shape: RecordShape?) throws -> String? {
        guard try syncsOtherZones(), var current = shape.map({ (object, $0) }) else { return nil }
        var seen: Set<UUID> = [object.objectGlobalID]
        var hasParent = false
        while let (parent, parentShape) = try storeCall({ try model.parent(of: current.0, shape: current.1) }),
            seen.insert(parent.objectGlobalID).inserted
        {
            hasParent = true
            if let state = try recordStates(for: [parent.objectGlobalID])[parent.objectGlobalID] { return state.zone }
            current = (parent, parentShape)
        }
        return hasParent ? "" : nil
    }

    /// Whether the store syncs a zone beside the coordinator's own; looked up once, then kept as
    /// zones are joined.
    func syncsOtherZones() throws -> Bool {
        if let hasOtherZones { return hasOtherZones }
        let home = self.home.description
        let found = try storeCall { try context.fetchCount(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone != home })) > 0 }
        hasOtherZones = found
        return found
    }
}
