import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Moving records from one zone to another: sharing an object moves it, and what belongs to it,
/// into a zone of its own.
///
/// The server has no move: a zone's feed holds its own records. A move is told as two changes,
/// sent in this order: the records, new in the zone they go to; then, in the zone they left, a
/// forward in place of each one, an upsert whose only field with a value is
/// `SyncedRecord.forwardField` (the others are cleared, so that the old zone keeps nothing of
/// them). A device that reads the
/// forward moves its object to the new zone when it syncs it, and deletes it otherwise; one that
/// reads the new zone first moves it then, and skips the forward. Nothing is ever in no zone, and
/// a crash between the two leaves the forward waiting (``ZoneMove``), sent at the next sync.
extension SyncWorkspace {
    /// Shares `root`: moves it and what belongs to it into `target`, a new zone of the user's own,
    /// in one save (see ``moveRecords(_:to:)``). Returns how many objects moved.
    func move(_ root: any Entity, to target: ZoneID) throws -> Int {
        let client = try clientState(of: target)
        client.role = ZoneRole.owner.rawValue
        let moved = try moveRecords(root, to: target)
        try save()
        return moved
    }

    /// Moves `root` and every object that belongs to it (through to-many relationships with the
    /// cascade delete rule, at any depth) into `target`, with the many-to-many links they own, as
    /// local changes to send with the sync context's next save. Returns how many objects moved.
    @discardableResult
    func moveRecords(_ root: any Entity, to target: ZoneID) throws -> Int {
        let targetKey = zoneKey(target)
        let objects = try belongings(of: root)
        var states = try recordStates(for: objects.map(\.object.objectGlobalID))
        var moved = 0
        var links: [(id: UUID, recordType: String)] = []
        for (object, shape) in objects {
            let id = object.objectGlobalID
            let state = try states[id] ?? newState(id, entity: shape.entityName, zone: zoneKey(of: object, shape: shape), into: &states)
            guard state.zone != targetKey, !state.isDeletedLocally else { continue }
            try noteMove(of: state, recordType: shape.recordType, to: targetKey)
            // New to the target zone: sent whole, from no version.
            state.shadow = nil
            state.pendingProperties = Self.joined(shape.fields.map(\.property) + shape.positions.map(\.positionProperty))
            moved += 1
            // A link lives in its owner's zone: those the object owns go with it.
            let members = try Self.members(state.members)
            for membership in shape.memberships {
                for target in members[membership.property] ?? [] {
                    links.append((LinkID.make(recordType: membership.recordType, source: id, target: target), membership.recordType))
                }
            }
        }
        let linkStates = try recordStates(for: links.map(\.id))
        for (id, recordType) in links {
            guard let state = linkStates[id], state.zone != targetKey, !state.isDeletedLocally else { continue }
            try noteMove(of: state, recordType: recordType, to: targetKey)
            // Its ends and positions, kept in its shadow, are sent whole from no version.
            state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union(["source", "target"]))
        }
        return moved
    }

    /// Moves a record's state to the zone `targetKey` names, new there, and notes the forward its
    /// old zone is owed (unless that zone never had it, or a forward is already owed: the first
    /// move's old zone is the one to tell).
    private func noteMove(of state: SyncRecordState, recordType: String, to targetKey: String) throws {
        let id = state.recordID
        if let move = try storeCall({ try context.objects(withGlobalIDs: [id], as: ZoneMove.self) })[id] {
            move.toZone = targetKey  // moved again before the first move's forward went
        } else if let baseVersion = state.baseVersion {
            let move = ZoneMove(recordType: recordType, fromZone: state.zone, toZone: targetKey, baseVersion: baseVersion)
            try storeCall { try context.insert(move, globalID: id) }
        }
        state.zone = targetKey
        state.baseVersion = nil
        state.feedVersion = 0
        state.localRevision += 1
        state.isPending = true
        changedObjects.append(state)  // for the uploader's predicate
    }

    /// `root` and the objects that belong to it, each once, with their shapes.
    private func belongings(of root: any Entity) throws -> [(object: any Entity, shape: RecordShape)] {
        guard let rootShape = model.shape(forEntity: root.objectID.entityName) else {
            throw SyncError.invalidConfiguration(
                entity: root.objectID.entityName, reason: "it does not sync, so it cannot be shared")
        }
        var found: [(object: any Entity, shape: RecordShape)] = [(root, rootShape)]
        var seen: Set<UUID> = [root.objectGlobalID]
        var index = 0
        while index < found.count {
            let (object, shape) = found[index]
            index += 1
            for relationship in shape.belongings {
                for child in try storeCall({ try object.relatedObjects(forKey: relationship) }) {
                    guard seen.insert(child.objectGlobalID).inserted, let childShape = model.shape(forEntity: child.objectID.entityName)
                    else { continue }
                    found.append((child, childShape))
                }
            }
        }
        return found
    }

    /// The moves out of the zone under way whose forward can be sent: the new zone acknowledged
    /// the record (or it is gone here), at most `limit`.
    func readyMoves(limit: Int) throws -> [(id: UUID, move: ZoneMove)] {
        guard limit > 0, try syncsOtherZones() else { return [] }
        let key = zoneKey(zone)
        var request = FetchDescriptor<ZoneMove>(predicate: #Predicate { $0.fromZone == key })
        request.fetchLimit = limit
        let moves = try storeCall { try context.fetch(request) }
        guard !moves.isEmpty else { return [] }
        let states = try recordStates(for: moves.map(\.objectGlobalID))
        return moves.filter { Self.isReady($0, state: states[$0.objectGlobalID]) }.map { ($0.objectGlobalID, $0) }
    }

    /// Whether a zone has a forward to send: the coordinator then pushes again.
    func hasReadyMoves() throws -> Bool {
        guard try syncsOtherZones() else { return false }
        let moves = try storeCall { try context.fetch(FetchDescriptor<ZoneMove>()) }
        guard !moves.isEmpty else { return false }
        let states = try recordStates(for: moves.map(\.objectGlobalID))
        return moves.contains { Self.isReady($0, state: states[$0.objectGlobalID]) }
    }

    /// Whether a move's forward can go: the new zone acknowledged the record (it has a version
    /// there), or the record is gone here or moved on.
    private static func isReady(_ move: ZoneMove, state: SyncRecordState?) -> Bool {
        guard let state, state.zone == move.toZone else { return true }
        return state.baseVersion != nil
    }

    /// The forward of a move, as a mutation numbered `number`: the record's fields cleared, and
    /// the zone it went to. Nil while the user's name (which names the zone) is not known.
    func forwardMutation(_ move: ZoneMove, id: UUID, number: Int64) -> (Mutation, OutboxEntry)? {
        guard let userName else { return nil }
        let target = zone(forKey: move.toZone)
        let text = ZoneID(target.name, owner: target.owner ?? userName).description
        var fields: [String: JSONValue] = [SyncedRecord.forwardField: .string(text)]
        for field in model.shape(forRecordType: move.recordType)?.fields ?? [] { fields[field.name] = .null }
        if model.membership(forRecordType: move.recordType) != nil {
            fields["source"] = .null
            fields["target"] = .null
        }
        return (
            .upsert(number, entity: move.recordType, id: id, baseVersion: move.baseVersion, fields: fields),
            OutboxEntry(recordID: id, revision: 0, properties: [], forwardsTo: text)
        )
    }

    /// Records that a forward reached the server (or need not: the record is gone there).
    func forwardDone(_ id: UUID) throws {
        if let move = try storeCall({ try context.objects(withGlobalIDs: [id], as: ZoneMove.self) })[id] { context.delete(move) }
    }

    /// A forward refused as stale: sent again from the server's version, unless the record was
    /// deleted there meanwhile (nothing left to forward).
    func forwardRefused(_ id: UUID, server: ObjectGraphSyncProtocol.SyncedRecord) throws {
        guard let move = try storeCall({ try context.objects(withGlobalIDs: [id], as: ZoneMove.self) })[id] else { return }
        if server.deleted { context.delete(move) } else { move.baseVersion = server.version }
    }

    /// Applies a forward read in the zone under way: the object (or the link) follows its record
    /// to the zone it names when this coordinator syncs that zone, and is deleted here otherwise
    /// (out of the user's reach). One that already moved, or that this device never had, is left.
    func applyForward(_ record: ObjectGraphSyncProtocol.SyncedRecord, to target: ZoneID, state: SyncRecordState?) throws {
        guard let state, state.zone == zoneKey(zone) else { return }
        let target = target.relative(to: userName ?? "")
        let shape = model.shape(forRecordType: record.entity)
        if zoneRoles[target] != nil {
            state.zone = zoneKey(target)
            state.baseVersion = nil
            state.feedVersion = 0
            if state.isPending {
                let all = shape.map { $0.fields.map(\.property) + $0.positions.map(\.positionProperty) } ?? ["source", "target"]
                state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union(all))
            }
            return
        }
        if let shape {
            if let object = try object(withGlobalID: record.id, of: shape) { deleteMirroring(object) }
            try dropPendingLinks(from: record.id)
        } else if let (owner, membership) = model.membership(forRecordType: record.entity) {
            let ends = try Self.fields(state.shadow)
            if case .string(let source)? = ends["source"], case .string(let target)? = ends["target"],
                let sourceID = UUID(text: source), let targetID = UUID(text: target)
            {
                try setMembership(membership, of: sourceID, owner, to: targetID, isMember: false)
                try dropPendingLinks(from: sourceID, property: membership.property, to: targetID)
            }
        }
        context.delete(state)
    }
}
