import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Reading the server's feed and applying it.
///
/// The feed is read page after page from the client's cursor. Each page (whole server transactions)
/// goes to the processors' ``ChangeProcessor/processRemoteChanges(_:in:)`` (the ``Downloader``
/// applies it) and is saved in one transaction with the new cursor, as the sync's: the app's
/// contexts merge it like any save, their observers and monitors hear it, and nothing of it is
/// uploaded again.
extension SyncCoordinator {
    /// Reads the feed to its end.
    func pull() async throws {
        while true {
            let client = try clientState()
            let page: ChangesPage
            do {
                page = try await remote.changes(zone: zone, since: FeedCursor(position: client.feedCursor), limit: batchSize)
            } catch SyncError.server(.mustRefetch, _) {
                try startRefetch(client)
                continue
            }
            for processor in processors {
                try await processor.processRemoteChanges(page.changes, in: self)
            }
            client.feedCursor = page.cursor.position
            if !page.hasMore && client.isRefetching { try finishRefetch(client) }
            try save()
            if !page.hasMore {
                status.update { $0.hasUnreadServerChanges = false }
                return
            }
        }
    }

    /// The cursor is older than the deletions the server keeps: the zone is read again from its
    /// start, each record the device knows marked unconfirmed until it is seen. Marked first, in a
    /// transaction of its own: a crash before the cursor goes back leaves marks that nothing acts on.
    private func startRefetch(_ client: ClientState) throws {
        do {
            _ = try context.batchUpdate(SyncRecordState.self, set: [.set(\.isUnconfirmed, to: true)])
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        client.feedCursor = 0
        client.isRefetching = true
        try save()
    }

    /// At the end of a refetch, the records the server no longer has were deleted there meanwhile
    /// (their tombstones already purged): deleted here too, unless they have local changes waiting,
    /// which are sent as they are. Saved with the page.
    private func finishRefetch(_ client: ClientState) throws {
        let unseen: [SyncRecordState]
        do {
            unseen = Array(try context.fetch(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isUnconfirmed })))
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        for state in unseen {
            state.isUnconfirmed = false
            guard !state.isPending, state.baseVersion != nil, let shape = model.shape(forEntity: state.entityName) else { continue }
            if let object = try shape.objects(withGlobalIDs: [state.recordID], in: context)[state.recordID] {
                deleteMirroring(object)
            }
            context.delete(state)
        }
        client.isRefetching = false
    }

    /// Applies a page of the feed to the local objects, in the sync context (saved by the caller).
    ///
    /// A record the device does not have is inserted under its global ID; one it has gets the
    /// server's fields, except those with local changes not pushed yet (kept, and settled by the
    /// entity's conflict policy when pushed). A tombstone deletes the object, unless the entity
    /// lets an edit here win. Changes older than what was applied are skipped, as are records of
    /// types this model does not sync (a newer app version's).
    func apply(_ changes: [FeedChange]) throws {
        guard !changes.isEmpty else { return }
        var states = try recordStates(for: changes.map(\.record.id))
        var objects: [UUID: any Entity] = [:]
        for (recordType, group) in Dictionary(grouping: changes, by: \.record.entity) {
            guard let shape = model.shape(forRecordType: recordType) else { continue }
            try objects.merge(shape.objects(withGlobalIDs: group.map(\.record.id), in: context)) { first, _ in first }
        }
        for change in changes {
            let record = change.record
            let state = states[record.id]
            if let (owner, membership) = model.membership(forRecordType: record.entity) {
                if let state, state.isUnconfirmed { state.isUnconfirmed = false }
                if let state, record.version <= state.feedVersion || record.version < (state.baseVersion ?? 0) || state.isPending { continue }
                try applyLink(record, owner: owner, membership: membership, state: state, states: &states)
                continue
            }
            guard let shape = model.shape(forRecordType: record.entity) else { continue }
            if let state, state.isUnconfirmed { state.isUnconfirmed = false }
            // Older than what was applied, or than the version this device's own push or a
            // conflict's answer made known: a newer whole record follows in the feed.
            if let state, record.version <= state.feedVersion || record.version < (state.baseVersion ?? 0) { continue }
            if let state, state.isDeletedLocally {
                // Deleted here, not told yet: the push meets the server's change and settles it.
                state.feedVersion = record.version
                continue
            }
            if record.deleted {
                if let state, state.isPending, shape.configuration.deletionRule == .editWins {
                    state.feedVersion = record.version
                    state.baseVersion = record.version  // the edit is sent again, bringing the record back
                    state.pendingProperties = Self.joined(shape.fields.map(\.property))
                    continue
                }
                if let object = objects.removeValue(forKey: record.id) { deleteMirroring(object) }
                if let state { context.delete(state) }
                states[record.id] = nil
                try dropPendingLinks(from: record.id)
                continue
            }
            let object = objects[record.id] ?? insertMirroring(shape, globalID: record.id)
            objects[record.id] = object
            let recordState = state ?? newState(record.id, entity: shape.entityName, into: &states)
            let pending = Self.split(recordState.pendingProperties)
            try write(record.fields, into: object, shape: shape, recordID: record.id, skipping: pending)
            var shadow = try Self.fields(recordState.shadow)
            for field in shape.fields where !pending.contains(field.property) {
                if let value = record.fields[field.name] { shadow[field.name] = value }
            }
            recordState.shadow = try Self.data(shadow)
            recordState.feedVersion = record.version
            if !recordState.isPending { recordState.baseVersion = record.version }
            try resolvePendingLinks(to: record.id, object: object)
        }
    }

    /// Writes fields into an object, but those of the properties in `skipped`: attributes in their
    /// stored form, references to the objects they name (kept as pending links when the target is
    /// not here yet, the relationship nil meanwhile). Fields the record does not carry are left.
    func write(_ fields: [String: JSONValue], into object: any Entity, shape: RecordShape, recordID: UUID,
               skipping skipped: Set<String>) throws {
        for field in shape.fields where !skipped.contains(field.property) {
            guard let value = fields[field.name] else { continue }
            mirrored.written[recordID, default: []].insert(field.property)
            switch field.kind {
            case .attribute:
                try shape.write(value, to: field, of: object, recordID: recordID)
            case .reference(let destinationEntity):
                try dropPendingLink(from: recordID, property: field.property)
                guard case .string(let text) = value else {
                    guard value == .null else {
                        throw SyncError.invalidRecord(recordType: shape.recordType, recordID: recordID, field: field.name,
                                                      reason: "\(value) is not a record's ID")
                    }
                    try shape.link(object, field, to: nil)
                    continue
                }
                guard let targetID = UUID(uuidString: text), let destination = model.shape(forEntity: destinationEntity) else {
                    throw SyncError.invalidRecord(recordType: shape.recordType, recordID: recordID, field: field.name,
                                                  reason: "'\(text)' is not a record's ID")
                }
                if let target = try destination.objects(withGlobalIDs: [targetID], in: context)[targetID] {
                    try shape.link(object, field, to: target)
                } else {
                    // A child before its parent: linked when the parent arrives.
                    try shape.link(object, field, to: nil)
                    context.insert(PendingLink(sourceID: recordID, sourceEntity: shape.entityName, property: field.property,
                                               targetID: targetID))
                }
            }
        }
    }

    // MARK: Pending links

    /// Settles the links that were waiting for `id`, now here as `object`: references to it, and
    /// memberships it is an end of (kept waiting while the other end is still missing).
    private func resolvePendingLinks(to id: UUID, object: any Entity) throws {
        for link in try pendingLinks(#Predicate { $0.targetID == id || $0.sourceID == id }) {
            guard let shape = model.shape(forEntity: link.sourceEntity) else {
                context.delete(link)
                continue
            }
            if let membership = shape.membership(forProperty: link.property) {
                if try setMembership(membership, of: link.sourceID, shape, to: link.targetID, isMember: true) { context.delete(link) }
            } else if link.targetID == id {
                if let field = shape.field(forProperty: link.property),
                   let source = try shape.objects(withGlobalIDs: [link.sourceID], in: context)[link.sourceID] {
                    mirrored.written[link.sourceID, default: []].insert(field.property)
                    try shape.link(source, field, to: object)
                }
                context.delete(link)
            }
        }
    }

    private func dropPendingLink(from sourceID: UUID, property: String) throws {
        for link in try pendingLinks(#Predicate { $0.sourceID == sourceID && $0.property == property }) {
            context.delete(link)
        }
    }

    func dropPendingLinks(from sourceID: UUID, property: String, to targetID: UUID) throws {
        for link in try pendingLinks(#Predicate { $0.sourceID == sourceID && $0.property == property && $0.targetID == targetID }) {
            context.delete(link)
        }
    }

    private func dropPendingLinks(from sourceID: UUID) throws {
        for link in try pendingLinks(#Predicate { $0.sourceID == sourceID }) { context.delete(link) }
    }

    private func pendingLinks(_ predicate: Predicate<PendingLink>) throws -> [PendingLink] {
        do {
            return Array(try context.fetch(FetchDescriptor(predicate: predicate)))
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }
}
