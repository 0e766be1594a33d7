import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Many-to-many relationships, synced link by link (see ``RecordShape/Membership``).
///
/// A link is a record of its own, identified by its two ends (``LinkID``): adding a member is an
/// upsert of the link, removing it a deletion, so that two devices changing the same relationship
/// change different records and keep each other's changes. The owner's record state remembers its
/// members as last recorded; a local change of the relationship is compared with them to find the
/// links it adds and removes. A link whose end is not on the device yet waits as a pending link.
extension SyncWorkspace {
    // MARK: Local changes

    /// Records the links a local change of `object`'s owned relationships added and removed.
    func recordMemberships(of object: any Entity, _ memberships: [RecordShape.Membership], owner: SyncRecordState) throws {
        var recorded = try Self.members(owner.members)
        var changes: [(membership: RecordShape.Membership, target: UUID, isAdded: Bool)] = []
        for membership in memberships {
            let current: Set<UUID>
            do {
                current = Set(try object.relatedObjects(forKey: membership.property).map(\.objectGlobalID))
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
            let before = recorded[membership.property] ?? []
            changes += current.subtracting(before).map { (membership, $0, true) }
            changes += before.subtracting(current).map { (membership, $0, false) }
            recorded[membership.property] = current
        }
        owner.members = try Self.data(recorded)
        try recordLinkChanges(owner: owner, changes)
    }

    /// Records the removal of every link of an owner deleted here.
    func recordRemovalOfLinks(of owner: SyncRecordState, shape: RecordShape) throws {
        let recorded = try Self.members(owner.members)
        let changes = shape.memberships.flatMap { membership in
            (recorded[membership.property] ?? []).map { (membership: membership, target: $0, isAdded: false) }
        }
        try recordLinkChanges(owner: owner, changes)
    }

    /// A link lives in its owner's zone.
    private func recordLinkChanges(
        owner ownerState: SyncRecordState,
        _ changes: [(membership: RecordShape.Membership, target: UUID, isAdded: Bool)]
    ) throws {
        guard !changes.isEmpty else { return }
        let owner = ownerState.recordID
        let ids = changes.map { LinkID.make(recordType: $0.membership.recordType, source: owner, target: $0.target) }
        var states = try recordStates(for: ids)
        for (change, id) in zip(changes, ids) {
            let state: SyncRecordState
            if change.isAdded {
                state = try states[id] ?? newState(id, entity: change.membership.recordType, zone: ownerState.zone, into: &states)
                state.isDeletedLocally = false
                // Sent whole (its ends, and the positions the order gives it after this).
                state.shadow = try Self.data(["source": .string(owner.uuidString), "target": .string(change.target.uuidString)])
                state.pendingProperties = Self.joined(["source", "target"])
            } else {
                guard let existing = states[id] else { continue }  // never recorded: nothing to remove
                state = existing
                state.isDeletedLocally = true
            }
            state.localRevision += 1
            state.isPending = true
            changedObjects.append(state)
        }
    }

    // MARK: Pushing

    /// The mutation that sends a link's pending change; nil when there is nothing to send (a link
    /// removed before the server heard of it: its state goes). A link added sends all its fields;
    /// a link only moved in an ordered list sends the positions that changed, so that two devices
    /// moving it in the two lists it is in do not overwrite each other.
    func linkMutation(_ state: SyncRecordState, number: Int64) throws -> Mutation? {
        if state.isDeletedLocally {
            guard let baseVersion = state.baseVersion else {
                context.delete(state)
                return nil
            }
            return .delete(number, entity: state.entityName, id: state.recordID, baseVersion: baseVersion)
        }
        var fields = try Self.fields(state.shadow)
        let pending = Self.split(state.pendingProperties)
        if state.baseVersion != nil, !pending.isEmpty, !pending.contains("source") {
            fields = fields.filter { pending.contains($0.key) }
        }
        return .upsert(number, entity: state.entityName, id: state.recordID, baseVersion: state.baseVersion, fields: fields)
    }

    /// A link this device changed that the server changed too: this device's change stands (a
    /// membership edit is its own, and so is a move in an ordered list), sent again from the
    /// server's version; a link both added, at the same places, is simply there.
    func settleLink(_ mutation: Mutation, state: SyncRecordState, server: ObjectGraphSyncProtocol.SyncedRecord) {
        state.baseVersion = server.version
        state.feedVersion = max(state.feedVersion, server.version)
        let isSettled =
            switch mutation.operation {
            case .delete: server.deleted
            case .upsert:
                !server.deleted
                    && mutation.fields.allSatisfy { name, value in
                        name == "source" || name == "target" || server.fields[name] == value
                    }
            }
        state.isPending = !isSettled
        if isSettled {
            state.acknowledgedRevision = state.localRevision
            state.pendingProperties = ""
        } else if mutation.operation == .upsert, server.deleted {
            // Removed meanwhile: the link is made again, whole (a move alone carries no ends).
            state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union(["source", "target"]))
        }
    }

    // MARK: Applying the feed

    /// Applies a link record from the feed: the member added or removed, the owner's recorded members
    /// kept in step (so that the change is not taken for a local one), a pending link when an end
    /// is not here yet.
    func applyLink(
        _ record: ObjectGraphSyncProtocol.SyncedRecord, owner shape: RecordShape, membership: RecordShape.Membership,
        state: SyncRecordState?, states: inout [UUID: SyncRecordState]
    ) throws {
        let fields = record.deleted ? try Self.fields(state?.shadow) : record.fields
        guard case .string(let sourceText)? = fields["source"], case .string(let targetText)? = fields["target"],
            let source = UUID(text: sourceText), let target = UUID(text: targetText)
        else {
            if record.deleted { return }  // a link this device never had
            throw SyncError.invalidRecord(
                recordType: record.entity, recordID: record.id, field: "source",
                reason: "a link's source and target must be records' IDs")
        }
        if record.deleted {
            try setMembership(membership, of: source, shape, to: target, isMember: false)
            if let state { context.delete(state) }
            states[record.id] = nil
            try dropPendingLinks(from: source, property: membership.property, to: target)
            return
        }
        let linkState = try state ?? newState(record.id, entity: record.entity, zone: zoneKey(zone), into: &states)
        // The server's fields, but the positions this device moved and has not sent yet.
        var kept = record.fields
        if linkState.isPending {
            let local = try Self.fields(linkState.shadow)
            for name in Self.split(linkState.pendingProperties) where name.hasSuffix("Position") { kept[name] = local[name] }
        }
        linkState.shadow = try Self.data(kept)
        linkState.feedVersion = record.version
        if !linkState.isPending { linkState.baseVersion = record.version }
        if try !setMembership(membership, of: source, shape, to: target, isMember: true) {
            addPendingLink(from: source, entity: shape.entityName, property: membership.property, to: target)
        }
    }

    /// Adds or removes a member of an owner's relationship, and records it as the owner's; returns
    /// false when an end is not on this device.
    @discardableResult
    func setMembership(
        _ membership: RecordShape.Membership, of ownerID: UUID, _ shape: RecordShape, to targetID: UUID,
        isMember: Bool
    ) throws -> Bool {
        guard let destination = model.shape(forEntity: membership.destinationEntity),
            let owner = try self.object(withGlobalID: ownerID, of: shape),
            let target = try self.object(withGlobalID: targetID, of: destination)
        else { return false }
        do {
            var members = try owner.relatedObjects(forKey: membership.property)
            let index = members.firstIndex { $0.objectID == target.objectID }
            if isMember, index == nil {
                members.append(target)
                try owner.setRelatedObjects(members, forKey: membership.property)
            } else if !isMember, let index {
                members.remove(at: index)
                try owner.setRelatedObjects(members, forKey: membership.property)
            }
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        if isMember { noteLinkListsToSort(owner: owner, target: target, membership) }
        var ownerStates = try recordStates(for: [ownerID])
        let ownerState = try ownerStates[ownerID] ?? newState(ownerID, entity: shape.entityName, zone: zoneKey(zone), into: &ownerStates)
        var recorded = try Self.members(ownerState.members)
        if isMember {
            recorded[membership.property, default: []].insert(targetID)
        } else {
            recorded[membership.property]?.remove(targetID)
        }
        ownerState.members = try Self.data(recorded)
        return true
    }

    // MARK: Recorded members

    static func members(_ data: Data?) throws -> [String: Set<UUID>] {
        try fields(data).compactMapValues { value -> Set<UUID>? in
            guard case .array(let items) = value else { return nil }
            return Set(items.compactMap { if case .string(let text) = $0 { UUID(text: text) } else { nil } })
        }
    }

    static func data(_ members: [String: Set<UUID>]) throws -> Data {
        try data(members.mapValues { ids in .array(ids.map(\.uuidString).sorted().map(JSONValue.string)) })
    }
}
