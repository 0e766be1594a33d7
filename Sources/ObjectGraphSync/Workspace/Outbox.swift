import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// The outbox: pushes built from pending records' states and saved before they are sent, then
/// acknowledged (versions, what is no longer pending) or settled (conflicts, by each entity's
/// policy) in one save each. The coordinator sends them.
extension SyncWorkspace {
    /// The batch sent earlier and not acknowledged, if any.
    func pendingBatch() throws -> OutboxBatch? {
        let zone = self.zone.description
        do {
            return try context.fetch(FetchDescriptor<OutboxBatch>(predicate: #Predicate { $0.zone == zone })).first
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }
    /// What the batch in the outbox carries, if there is one.
    func outboxEntries() throws -> [OutboxEntry] {
        guard let batch = try pendingBatch() else { return [] }
        return try JSONDecoder().decode([OutboxEntry].self, from: batch.entries)
    }
    /// The next batch of the zone's pending changes, saved in the outbox with the numbers it uses;
    /// nil when nothing is pending (among `recordIDs`, when given).
    func makeBatch(selecting recordIDs: Set<UUID>?, limit: Int? = nil) throws -> OutboxBatch? {
        let key = zoneKey(zone)
        let batchSize = min(limit ?? self.batchSize, self.batchSize)
        while true {
            let states: [SyncRecordState]
            if let recordIDs {
                // Found by their global IDs, which are the records'.
                states = Array(
                    try recordStates(for: recordIDs).values
                        .filter { $0.isPending && $0.zone == key && $0.heldBackRevision != $0.localRevision }
                        .sorted { $0.localRevision < $1.localRevision }.prefix(batchSize))
            } else {
                var request = FetchDescriptor<SyncRecordState>(
                    predicate: #Predicate { $0.isPending && $0.zone == key && $0.heldBackRevision != $0.localRevision },
                    sortBy: [SortDescriptor(\.localRevision)])
                request.fetchLimit = batchSize
                do {
                    states = Array(try context.fetch(request))
                } catch let error as ObjectGraphError {
                    throw SyncError.store(error)
                }
            }
            let moves = try readyMoves(limit: batchSize - states.count)
            guard !states.isEmpty || !moves.isEmpty else { return nil }
            let client = try clientState()
            var mutations: [Mutation] = []
            var entries: [OutboxEntry] = []
            for state in states where model.shape(forEntity: state.entityName) == nil {
                // A link of a many-to-many relationship, or a record of an entity that no longer
                // syncs (its state goes).
                guard model.membership(forRecordType: state.entityName) != nil,
                    let mutation = try linkMutation(state, number: client.nextMutationNumber + Int64(mutations.count))
                else {
                    if model.membership(forRecordType: state.entityName) == nil { context.delete(state) }
                    continue
                }
                mutations.append(mutation)
                entries.append(OutboxEntry(recordID: state.recordID, revision: state.localRevision, properties: []))
            }
            for (shape, group) in try objectsByShape(of: states) {
                for (state, object) in group {
                    let number = client.nextMutationNumber + Int64(mutations.count)
                    if state.isDeletedLocally || object == nil {
                        guard let baseVersion = state.baseVersion else {
                            context.delete(state)  // the server never had it: nothing to tell
                            continue
                        }
                        mutations.append(.delete(number, entity: shape.recordType, id: state.recordID, baseVersion: baseVersion))
                        entries.append(OutboxEntry(recordID: state.recordID, revision: state.localRevision, properties: []))
                    } else if let object {
                        let properties =
                            state.baseVersion == nil ? shape.fields.map(\.property) : Array(Self.split(state.pendingProperties))
                        var fields = try shape.fields(of: object, properties: properties)
                        // Positions in ordered lists: all of them for a new record, else the pending ones.
                        let positions = shape.positions.map(\.positionProperty)
                            .filter { state.baseVersion == nil || properties.contains($0) }
                        fields.merge(try Self.positionFields(of: state, shape: shape, properties: Set(positions))) { $1 }
                        mutations.append(
                            .upsert(
                                number, entity: shape.recordType, id: state.recordID,
                                baseVersion: state.baseVersion, fields: fields))
                        entries.append(
                            OutboxEntry(
                                recordID: state.recordID, revision: state.localRevision,
                                properties: state.baseVersion == nil ? properties + positions : properties))
                    }
                }
            }
            for (id, move) in moves {
                guard let (mutation, entry) = forwardMutation(move, id: id, number: client.nextMutationNumber + Int64(mutations.count))
                else { continue }
                mutations.append(mutation)
                entries.append(entry)
            }
            guard !mutations.isEmpty else {
                if states.isEmpty { return nil }  // forwards wait for the user's name
                try save()  // states of records the server never had, gone
                continue
            }
            client.nextMutationNumber += Int64(mutations.count)
            let batch = OutboxBatch(
                zone: zone.description, request: try JSONEncoder().encode(PushRequest(clientID: client.clientID, mutations: mutations)),
                entries: try JSONEncoder().encode(entries))
            context.insert(batch)
            try save()
            return batch
        }
    }
    /// The objects of pending records' states, grouped by entity (nil for an object that is gone).
    func objectsByShape(of states: [SyncRecordState]) throws -> [(RecordShape, [(SyncRecordState, (any Entity)?)])] {
        var groups: [(RecordShape, [(SyncRecordState, (any Entity)?)])] = []
        for (entity, group) in Dictionary(grouping: states, by: \.entityName) {
            guard let shape = model.shape(forEntity: entity) else { continue }
            let objects = try self.objects(withGlobalIDs: group.map(\.recordID), of: shape)
            groups.append((shape, group.map { ($0, objects[$0.recordID]) }))
        }
        return groups.sorted { $0.0.entityName < $1.0.entityName }
    }
    /// Records an applied batch: versions, what each record's server state now holds, and which
    /// changes are no longer pending; deletes the batch. One save.
    func acknowledge(_ batch: OutboxBatch, request: PushRequest, entries: [OutboxEntry], result: PushResult) throws {
        let states = try recordStates(for: entries.map(\.recordID))
        let versions = Dictionary(result.applied.map { ($0.number, $0.version) }, uniquingKeysWith: { $1 })
        for (mutation, entry) in zip(request.mutations, entries) {
            if entry.forwardsTo != nil {
                try forwardDone(entry.recordID)
                continue
            }
            guard let state = states[entry.recordID] else { continue }
            switch mutation.operation {
            case .delete:
                if let shape = model.shape(forEntity: state.entityName),
                    let object = try self.object(withGlobalID: entry.recordID, of: shape)
                {
                    deleteMirroring(object)  // marked for deletion, and now deleted on the server
                }
                context.delete(state)
            case .upsert:
                state.baseVersion = versions[mutation.number] ?? state.baseVersion
                var shadow = try Self.fields(state.shadow)
                shadow.merge(mutation.fields) { $1 }
                state.shadow = try Self.data(shadow)
                state.acknowledgedRevision = max(state.acknowledgedRevision, entry.revision)
                if state.localRevision <= entry.revision {
                    state.pendingProperties = ""
                    state.isPending = false
                }
            }
        }
        context.delete(batch)
        try save()
    }
    /// Settles a refused batch: each conflicting record by its entity's policy, against the
    /// server's record the answer carries. Nothing of the batch was applied, so its other records
    /// stay pending and go in the next batch, as do the settled ones that keep local values.
    ///
    /// A server record this device's rules refuse (a value an older client wrote against a rule)
    /// is not written into the object: it is set aside (see ``SetAsideRecord``), and this device's
    /// changes, based on it, are sent again, so that the sync goes on.
    func resolve(
        _ conflicts: [SyncErrorBody.Conflict], of batch: OutboxBatch, request: PushRequest,
        entries: [OutboxEntry]
    ) throws {
        let servers = conflicts.map { FeedChange(position: 0, transaction: 0, record: $0.server) }
        var refused: [RecordVersion: Refusal] = [:]
        var batch = batch
        while true {
            do {
                try settle(conflicts, request: request, entries: entries, keepingLocal: refused)
                let kept = try keepSetAside(servers, refused: refused)
                context.delete(batch)
                try save()
                if let kept { setAsideSaved(kept, refused: refused) }
                return
            } catch {
                guard let found = refusals(in: error, among: servers, refused: refused), !found.isEmpty else { throw error }
                forgetHeldObjects()
                refused.merge(found) { first, _ in first }
                guard let again = try pendingBatch() else { throw error }
                batch = again
            }
        }
    }
    /// Settles each conflict, but those of `refused` server records: for them, this device keeps
    /// its values, based on the server's version.
    func settle(
        _ conflicts: [SyncErrorBody.Conflict], request: PushRequest, entries: [OutboxEntry],
        keepingLocal refused: [RecordVersion: Refusal]
    ) throws {
        let entriesByNumber = Dictionary(
            zip(request.mutations.map(\.number), zip(request.mutations, entries)),
            uniquingKeysWith: { first, _ in first })
        var states = try recordStates(for: entries.map(\.recordID))
        for conflict in conflicts {
            if let (_, entry) = entriesByNumber[conflict.number], entry.forwardsTo != nil {
                try forwardRefused(entry.recordID, server: conflict.server)
                continue
            }
            guard let (mutation, entry) = entriesByNumber[conflict.number], let state = states[entry.recordID] else { continue }
            if refused[RecordVersion(conflict.server)] != nil {
                state.baseVersion = conflict.server.version
                state.feedVersion = max(state.feedVersion, conflict.server.version)
                continue
            }
            if model.membership(forRecordType: state.entityName) != nil {
                settleLink(mutation, state: state, server: conflict.server)
                continue
            }
            guard let shape = model.shape(forEntity: state.entityName) else { continue }
            let object = try self.object(withGlobalID: entry.recordID, of: shape)
            try settle(mutation, state: state, object: object, shape: shape, server: conflict.server, states: &states)
        }
    }
    func settle(
        _ mutation: Mutation, state: SyncRecordState, object: (any Entity)?, shape: RecordShape,
        server: ObjectGraphSyncProtocol.SyncedRecord, states: inout [UUID: SyncRecordState]
    ) throws {
        let rule = shape.configuration.deletionRule
        if server.deleted {
            // The server deleted what this device edited.
            switch rule {
            case .deletionWins:
                if let object { deleteMirroring(object) }
                context.delete(state)
            case .editWins:
                state.baseVersion = server.version  // an upsert based on the tombstone brings the record back
                state.pendingProperties = Self.joined(shape.fields.map(\.property))
            }
            return
        }
        if mutation.operation == .delete {
            // This device deleted what another edited.
            switch rule {
            case .deletionWins:
                state.baseVersion = server.version  // the deletion is sent again, based on the edit
            case .editWins:
                let restored = object ?? insertMirroring(shape, globalID: state.recordID)
                try write(server.fields, into: restored, shape: shape, recordID: state.recordID, skipping: [])
                state.isDeletedLocally = false
                state.isPending = false
                state.pendingProperties = ""
                state.acknowledgedRevision = state.localRevision
                state.baseVersion = server.version
                state.shadow = try Self.data(server.fields)
            }
            return
        }
        guard let object else { return }
        var pending = Self.split(state.pendingProperties)
        let base = try Self.fields(state.shadow)
        for field in shape.fields where pending.contains(field.property) {
            guard let serverValue = server.fields[field.name] else { continue }
            let local = try shape.value(of: field, in: object)
            guard serverValue != base[field.name], serverValue != local else {
                if serverValue == local { pending.remove(field.property) }  // nothing to send
                continue
            }
            let kept: JSONValue
            switch shape.configuration.conflictPolicy {
            case .serverWins: kept = serverValue
            case .clientWins: kept = local
            case .merge(let merge):
                kept = merge(
                    FieldConflict(
                        recordType: shape.recordType, recordID: state.recordID, field: field.name,
                        base: base[field.name], local: local, server: serverValue))
            }
            if kept != local { try write([field.name: kept], into: object, shape: shape, recordID: state.recordID, skipping: []) }
            if kept == serverValue { pending.remove(field.property) }
        }
        // A position both moved: the server's stays (see ``FractionalIndex``).
        for list in shape.positions where pending.contains(list.positionProperty) && server.fields[list.positionField] != nil {
            if server.fields[list.positionField] != base[list.positionField] { pending.remove(list.positionProperty) }
        }
        // The server's other fields, newer than what this device had.
        try write(server.fields, into: object, shape: shape, recordID: state.recordID, skipping: pending)
        try applyPositions(server.fields, of: object, shape: shape, state: state, skipping: pending)
        state.pendingProperties = Self.joined(pending)
        state.isPending = !pending.isEmpty
        if pending.isEmpty { state.acknowledgedRevision = state.localRevision }
        state.baseVersion = server.version
        state.feedVersion = max(state.feedVersion, server.version)
        state.shadow = try Self.data(server.fields)
    }
    /// Fields as a record's state keeps them (none for a record the server never had).
    static func fields(_ data: Data?) throws -> [String: JSONValue] {
        guard let data else { return [:] }
        do {
            return try JSONDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw SyncError.store(
                .invalidBatchOperation(
                    entity: SyncRecordState.entityName, property: "shadow",
                    reason: "a record's saved fields do not decode: \(error)"))
        }
    }
    static func data(_ fields: [String: JSONValue]) throws -> Data {
        var writer = JSONTextWriter()
        do {
            try writer.writeObject(fields) { writer, value in try writer.write(value) }
            return Data(writer.bytes)
        } catch {
            throw SyncError.store(
                .invalidBatchOperation(
                    entity: SyncRecordState.entityName, property: "shadow",
                    reason: "a record's fields do not encode: \(error)"))
        }
    }

    /// Marks `objects` deleted, to be told to the server (two-step deletion); those the server
    /// never had, and no push in flight carries, are deleted at once. Saved.
    func markDeletedRemotely(_ objects: [any Entity]) throws {
        var states = try recordStates(for: objects.map(\.objectGlobalID))
        for object in objects {
            guard let shape = model.shape(forEntity: object.objectID.entityName) else { continue }
            let state =
                try states[object.objectGlobalID]
                ?? newState(object.objectGlobalID, entity: shape.entityName, zone: try zoneKey(of: object, shape: shape), into: &states)
            let isInFlight = try outboxEntries().contains { $0.recordID == state.recordID }
            if state.baseVersion == nil && !isInFlight {
                deleteMirroring(object)  // nothing to tell the server
                context.delete(state)
                continue
            }
            state.isDeletedLocally = true
            state.isPending = true
            state.localRevision += 1
        }
        try save()
    }

    /// The push a batch saved, and the records it carries.
    func contents(of batch: OutboxBatch) throws -> (PushRequest, [OutboxEntry]) {
        do {
            return (
                try JSONDecoder().decode(PushRequest.self, from: batch.request),
                try JSONDecoder().decode([OutboxEntry].self, from: batch.entries)
            )
        } catch {
            throw SyncError.store(
                .invalidBatchOperation(entity: OutboxBatch.entityName, property: nil, reason: "a saved push does not decode: \(error)"))
        }
    }

    /// Drops a batch the server will not take as it is (its numbers were used): its changes, still
    /// pending, go in a batch built again. Saved.
    func drop(_ batch: OutboxBatch) throws {
        context.delete(batch)
        try save()
    }
}
