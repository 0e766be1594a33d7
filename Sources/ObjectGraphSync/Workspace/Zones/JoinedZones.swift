import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// The zones the store syncs beside the coordinator's own, as the store records them: a client
/// state each (its cursor, its client ID, the user's role), made when the zone is first read.
extension SyncWorkspace {
    /// The zones other than the coordinator's own that the store has a client state for, with the
    /// role the user last had in each.
    func joinedZones() throws -> [ZoneID: ZoneRole] {
        let home = self.home.description
        let states = try storeCall { try context.fetch(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone != home })) }
        var zones: [ZoneID: ZoneRole] = [:]
        for state in states {
            guard let zone = ZoneID(parsing: state.zone) else { continue }
            zones[zone] = ZoneRole(rawValue: state.role) ?? .reader
        }
        return zones
    }

    /// The cursor of `zone`'s feed as stored, without making a client state; nil for a zone not
    /// read yet or a cursor of an older server's form.
    func storedCursor(of zone: ZoneID) throws -> FeedCursor? {
        let key = zone.description
        return try storeCall { try context.fetch(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone == key })).first?.cursor }
    }

    /// Records the user's role in `zone`; a zone the user may only read loses the changes made
    /// here that the server has not taken (see ``discardPendingChanges(of:)``): those made while
    /// the user could write, and those made where no coordinator's save rule refused them (another
    /// process on the store). Saved when anything changed.
    func setRole(_ role: ZoneRole, of zone: ZoneID) throws {
        let client = try clientState(of: zone)
        var changed = false
        if client.role != role.rawValue {
            client.role = role.rawValue
            changed = true
        }
        if !role.canWrite, try hasPendingChanges(in: zone) {
            try discardPendingChanges(of: zone)
            changed = true
        }
        if changed { try save() }
    }

    /// Whether a record of `zone` has changes the server has not taken.
    private func hasPendingChanges(in zone: ZoneID) throws -> Bool {
        let key = zoneKey(zone)
        var request = FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.zone == key })
        request.fetchLimit = 1
        return try storeCall { try context.fetchCount(request) > 0 }
    }

    /// Takes back the changes made here to a zone the user may no longer write to: objects the
    /// server never had go, the others are read again from the zone's start, which rewrites the
    /// server's fields over the local ones and brings back what was deleted here. Saved with the
    /// caller's save; the refetch is begun (see ``startRefetch(_:)``).
    func discardPendingChanges(of zone: ZoneID) throws {
        let key = zoneKey(zone)
        let pending = try storeCall {
            try context.fetch(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isPending && $0.zone == key }))
        }
        for state in pending {
            guard state.baseVersion != nil else {
                // Never on the server: the object and its state go.
                if let shape = model.shape(forEntity: state.entityName), let object = try object(withGlobalID: state.recordID, of: shape) {
                    deleteMirroring(object)
                }
                context.delete(state)
                continue
            }
            state.isPending = false
            state.isDeletedLocally = false
            state.pendingProperties = ""
            state.acknowledgedRevision = state.localRevision
            state.feedVersion = 0  // read again as new: the server's fields are written back
        }
        let batchZone = zone.description
        for batch in try storeCall({ try context.fetch(FetchDescriptor<OutboxBatch>(predicate: #Predicate { $0.zone == batchZone })) }) {
            context.delete(batch)
        }
        let previous = self.zone
        self.zone = zone
        defer { self.zone = previous }
        try startRefetch(try clientState(of: zone))
    }

    /// Takes a zone the user no longer belongs to off this device: its objects are deleted (the
    /// app's contexts and monitors see deletions, as when another device deletes them), with the
    /// records' states, the client state and any push waiting. Nothing of it is sent. Saved.
    func leave(_ zone: ZoneID) throws {
        let key = zoneKey(zone)
        guard !key.isEmpty else { return }
        let states = try storeCall { try context.fetch(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.zone == key })) }
        var byEntity: [String: [UUID]] = [:]
        for state in states { byEntity[state.entityName, default: []].append(state.recordID) }
        for (entity, ids) in byEntity {
            guard let shape = model.shape(forEntity: entity) else { continue }
            for object in try objects(withGlobalIDs: ids, of: shape).values { deleteMirroring(object) }
        }
        for state in states { context.delete(state) }
        for entry in try storeCall({ try context.fetch(FetchDescriptor<SetAsideEntry>(predicate: #Predicate { $0.zone == key })) }) {
            context.delete(entry)
        }
        setAside = nil  // counted again
        let text = zone.description
        for batch in try storeCall({ try context.fetch(FetchDescriptor<OutboxBatch>(predicate: #Predicate { $0.zone == text })) }) {
            context.delete(batch)
        }
        for client in try storeCall({ try context.fetch(FetchDescriptor<ClientState>(predicate: #Predicate { $0.zone == text })) }) {
            context.delete(client)
        }
        try save()
    }

    /// The records of the zones the user may only read, with their zone: what the save rule that
    /// refuses local edits of them looks up.
    func readOnlyRecords(in zones: some Sequence<ZoneID>) throws -> [UUID: ZoneID] {
        var records: [UUID: ZoneID] = [:]
        for zone in zones {
            let key = zoneKey(zone)
            let states = try storeCall { try context.fetch(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.zone == key })) }
            for state in states { records[state.recordID] = zone }
        }
        return records
    }
}
