import Foundation
import ObjectGraph
import ObjectGraphSyncProtocol

/// Applying the server's feed to the local objects, in the sync context (saved by the coordinator
/// with the page's cursor): inserts, updates and deletions, references in any order, links,
/// unique values, positions; and reading a zone again from its start.
extension SyncWorkspace {
    /// The cursor is older than the deletions the server keeps: the zone is read again from its
    /// start, each record of the zone the device knows marked unconfirmed until it is seen. Marked
    /// first, in a transaction of its own: a crash before the cursor goes back leaves marks that
    /// nothing acts on.
    func startRefetch(_ client: ClientState) throws {
        let key = zoneKey(zone)
        do {
            _ = try context.batchUpdate(SyncRecordState.self, where: #Predicate { $0.zone == key }, set: [.set(\.isUnconfirmed, to: true)])
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        client.feedCursor = FeedCursor.start.description
        client.isRefetching = true
        try save()
    }
    /// At the end of a refetch, the records the server no longer has were deleted there meanwhile
    /// (their tombstones already purged): deleted here too, unless they have local changes waiting,
    /// which are sent as they are. Saved with the page.
    func finishRefetch(_ client: ClientState) throws {
        let unseen: [SyncRecordState]
        let key = zoneKey(zone)
        do {
            unseen = Array(
                try context.fetch(FetchDescriptor<SyncRecordState>(predicate: #Predicate { $0.isUnconfirmed && $0.zone == key })))
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        for state in unseen {
            state.isUnconfirmed = false
            guard !state.isPending, state.baseVersion != nil, let shape = model.shape(forEntity: state.entityName) else { continue }
            if let object = try self.object(withGlobalID: state.recordID, of: shape) {
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
    /// lets an edit here win. Changes older than what was applied are skipped. A record of a type
    /// this model does not sync (a newer app version's), or a new record with a field of the wrong
    /// form, is left out and noted to be set aside (see ``applySettingAside(_:finishing:)``); a
    /// record whose unique value another object holds merges with it (see ``uniqueClash(of:shape:)``);
    /// a member's position in an ordered list notes the list to sort.
    func apply(_ changes: [FeedChange]) throws {
        guard !changes.isEmpty else { return }
        // The objects first, then the app's changes up to now: an app's save before the read is
        // recorded (its fields are kept), one after it makes this save fail as a conflict.
        try prefetchObjects(of: changes)
        try recordLocalChanges(saving: false)
        var states = try recordStates(for: changes.map(\.record.id))
        let key = zoneKey(zone)
        for change in changes {
            let record = change.record
            let state = states[record.id]
            if let target = record.forwardedTo {
                try applyForward(record, to: target, state: state)
                if state?.isDeleted == true { states[record.id] = nil }
                continue
            }
            if let state, state.zone != key {
                // A record of another zone: it moved there, and this zone's tombstone of it is
                // only the move's other half; a record that comes back here moves back.
                if record.deleted { continue }
                state.zone = key
            }
            if let (owner, membership) = model.membership(forRecordType: record.entity) {
                if let state, state.isUnconfirmed { state.isUnconfirmed = false }
                if let state, record.version <= state.feedVersion || record.version < (state.baseVersion ?? 0) || state.isPending {
                    continue
                }
                try applyLink(record, owner: owner, membership: membership, state: state, states: &states)
                continue
            }
            guard let shape = model.shape(forRecordType: record.entity) else {
                refusedWhileApplying[RecordVersion(record)] = Refusal(
                    field: nil, reason: "Record \(record.entity) \(record.id): this version of the app does not sync \(record.entity)")
                continue
            }
            if let state, state.isUnconfirmed { state.isUnconfirmed = false }
            noteUnknownFields(of: record, shape: shape)
            // A record merged into another, which holds its unique value: it is that one now.
            if unsaved.aliases[record.id] != nil { continue }
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
                if let object = try self.object(withGlobalID: record.id, of: shape) { deleteMirroring(object) }
                if let state { context.delete(state) }
                states[record.id] = nil
                try dropPendingLinks(from: record.id)
                continue
            }
            var losers: [any Entity] = [], yieldsTo: (any Entity)?
            if !shape.uniqueGroups.isEmpty {
                switch try uniqueClash(of: record, shape: shape) {
                case .recordYields(let survivor)?:
                    if case .merge = shape.configuration.uniqueClashPolicy {
                        try merge(record, shape: shape, into: survivor)
                        continue
                    }
                    yieldsTo = survivor  // renamed once written
                case .recordSurvives(let others)?:
                    losers = others
                case .heldInAnotherZone(let field, let holder)?:
                    let holderZone = zone(forKey: try recordStates(for: [holder.objectGlobalID])[holder.objectGlobalID]?.zone ?? "")
                    refusedWhileApplying[RecordVersion(record)] = Refusal(
                        field: field,
                        reason:
                            "Record \(record.entity) \(record.id) of \(zone): its \(field) is held by \(holder.objectGlobalID) of \(holderZone), "
                            + "and objects of two zones are not merged")
                    continue
                case nil:
                    break
                }
            }
            let existing = try self.object(withGlobalID: record.id, of: shape)
            let object = existing ?? insertMirroring(shape, globalID: record.id)
            let recordState = try state ?? newState(record.id, entity: shape.entityName, zone: zoneKey(zone), into: &states)
            let pending = Self.split(recordState.pendingProperties)
            do {
                try write(record.fields, into: object, shape: shape, recordID: record.id, skipping: pending)
            } catch let error as SyncError
                where error.code == .invalidRecord && error.recordID == record.id && existing == nil && state == nil
            {
                // A new record that does not fit: it is left out, as if never read (one this device
                // has, half written, makes the page be applied again without it).
                try unwindInsertion(of: object, state: recordState)
                states[record.id] = nil
                refusedWhileApplying[RecordVersion(record)] = Refusal(field: error.field, reason: "\(error)")
                continue
            }
            var shadow = try Self.fields(recordState.shadow)
            for field in shape.fields where !pending.contains(field.property) {
                if let value = record.fields[field.name] { shadow[field.name] = value }
            }
            recordState.shadow = try Self.data(shadow)
            try applyPositions(record.fields, of: object, shape: shape, state: recordState, skipping: pending)
            if !model.orderedLists(ofOwner: shape.entityName).isEmpty { noteListsToSort(of: object, shape: shape) }
            recordState.feedVersion = record.version
            if !recordState.isPending { recordState.baseVersion = record.version }
            try resolvePendingLinks(to: record.id, object: object)
            if !shape.uniqueGroups.isEmpty {
                for loser in losers where try !rename(loser, shape: shape, clashingWith: object) {
                    try merge(loser, shape: shape, into: object)
                }
                if let survivor = yieldsTo, try !rename(object, shape: shape, clashingWith: survivor) {
                    try merge(object, shape: shape, into: survivor)
                    continue
                }
                try noteUniqueValues(of: object, shape: shape)
            }
        }
    }
    /// Takes back the insertion of a record's object and state, and the links it left waiting.
    private func unwindInsertion(of object: any Entity, state: SyncRecordState) throws {
        let id = object.objectGlobalID
        unsaved.mirrored.inserted.remove(id)
        unsaved.mirrored.written[id] = nil
        unsaved.known.gone(id, entity: object.objectID.entityName)
        context.delete(object)
        context.delete(state)
        try dropPendingLinks(from: id)
    }
    /// Reads set-wise what applying `changes` looks up and writes: the objects of their records,
    /// the targets of their references, the two ends of their links, the links waiting for any of
    /// them and the objects those links start from.
    private func prefetchObjects(of changes: [FeedChange]) throws {
        var globalIDs: [String: [UUID]] = [:]  // by entity
        var linkEnds: [UUID] = []
        for change in changes {
            let record = change.record
            linkEnds.append(record.id)
            if let (owner, membership) = model.membership(forRecordType: record.entity) {
                for (end, entity) in [("source", owner.entityName), ("target", membership.destinationEntity)] {
                    guard case .string(let text)? = record.fields[end], let id = UUID(text: text) else { continue }
                    linkEnds.append(id)
                    globalIDs[entity, default: []].append(id)
                }
                continue
            }
            guard let shape = model.shape(forRecordType: record.entity) else { continue }
            globalIDs[shape.entityName, default: []].append(record.id)
            for field in shape.fields {
                guard case .reference(let destination) = field.kind, case .string(let text)? = record.fields[field.name],
                    let target = UUID(text: text)
                else { continue }
                globalIDs[destination, default: []].append(target)
            }
        }
        try loadAliases(of: linkEnds + globalIDs.values.joined())
        try loadPendingLinks(of: linkEnds)
        for id in linkEnds {
            for link in unsaved.pendingLinks.links(to: id) { globalIDs[link.sourceEntity, default: []].append(link.sourceID) }
        }
        for (entity, ids) in globalIDs {
            if let shape = model.shape(forEntity: entity) { try prefetch(ids, of: shape) }
        }
        try loadUniqueHolders(of: changes)
    }
    /// Writes fields into an object, but those of the properties in `skipped`: attributes in their
    /// stored form, references to the objects they name (kept as pending links when the target is
    /// not here yet, the relationship nil meanwhile). Fields the record does not carry are left.
    func write(
        _ fields: [String: JSONValue], into object: any Entity, shape: RecordShape, recordID: UUID,
        skipping skipped: Set<String>
    ) throws {
        // What is written into an object inserted as the server's needs no note: all of it mirrors.
        let notesWritten = !unsaved.mirrored.inserted.contains(recordID)
        for field in shape.fields where !skipped.contains(field.property) {
            guard let value = fields[field.name] else { continue }
            if notesWritten { unsaved.mirrored.written[recordID, default: []].insert(field.property) }
            switch field.kind {
            case .attribute:
                try shape.write(value, to: field, of: object, recordID: recordID)
            case .reference(let destinationEntity):
                try dropPendingLinks(from: recordID, property: field.property)
                guard case .string(let text) = value else {
                    guard value == .null else {
                        throw SyncError.invalidRecord(
                            recordType: shape.recordType, recordID: recordID, field: field.name,
                            reason: "\(value) is not a record's ID")
                    }
                    try shape.link(object, field, to: nil)
                    continue
                }
                guard let targetID = UUID(text: text), let destination = model.shape(forEntity: destinationEntity) else {
                    throw SyncError.invalidRecord(
                        recordType: shape.recordType, recordID: recordID, field: field.name,
                        reason: "'\(text)' is not a record's ID")
                }
                if let target = try self.object(withGlobalID: unsaved.aliases[targetID] ?? targetID, of: destination) {
                    try shape.link(object, field, to: target)
                } else {
                    // A child before its parent: linked when the parent arrives.
                    try shape.link(object, field, to: nil)
                    addPendingLink(from: recordID, entity: shape.entityName, property: field.property, to: targetID)
                }
            }
        }
    }

    /// Logs, once per record type and field, a field of the feed this model does not sync (a newer
    /// app version's): it is left on the server, and the record applied without it.
    private func noteUnknownFields(of record: SyncedRecord, shape: RecordShape) {
        for name in record.fields.keys where !shape.knownFieldNames.contains(name) {
            guard unknownFieldsLogged.insert("\(record.entity).\(name)").inserted else { continue }
            logger.info(
                "A record of the feed has a field this app version does not sync; it is applied without it",
                metadata: ["recordType": "\(record.entity)", "field": "\(name)", "record": "\(record.id)"])
        }
    }
}
