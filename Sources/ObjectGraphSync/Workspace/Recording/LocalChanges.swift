import Foundation
import ObjectGraph

/// Local changes, read from the store's persistent history into the records' states.
///
/// The history is written in the transaction of every save (any context, any process), so it is the
/// durable list of what changed. The coordinator reads it after the last transaction it recorded,
/// leaves out its own, and saves the records' states with the new position in one transaction: a
/// crash before that save reads the same transactions again, and recording them twice changes
/// nothing that matters (a property already pending stays pending).
extension SyncWorkspace {
    /// Records the local changes committed since the last look: their records become pending. With
    /// `saving` false, the recording is saved with what the caller saves next (a page of the feed).
    func recordLocalChanges(saving: Bool = true) throws {
        let client = try clientState(of: home)
        if registeredHistoryPosition == nil { try registerHistoryPosition(client.historySequence) }
        let head: Int64
        do {
            head = try container.lastHistoryToken()?.sequence ?? 0
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        guard head > client.historySequence else { return }
        var request = HistoryRequest(
            after: HistoryToken(sequence: client.historySequence), entityNames: model.entityNames,
            fetchLimit: batchSize)
        request.excludedAuthors = [SyncCoordinator.author]  // the sync's own saves, left unread
        while true {
            let transactions: [HistoryTransaction]
            do {
                transactions = try container.fetchHistory(request)
            } catch let error as ObjectGraphError where error.code == .historyExpired {
                // Purged before the sync read it (by a build that ignores its consumers): the
                // changes are found from what the sync last knew of each record instead.
                try recoverPurgedChanges()
                client.historySequence = head
                unsaved.historyPositionToRegister = head
                if saving { try save() }
                return
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
            let changes = transactions.flatMap(\.changes)
            try record(
                changes.map { change in
                    LocalChange(
                        kind: change.kind, globalID: change.globalID, entityName: change.entityName,
                        changedKeys: change.changedKeys, object: change.kind == .delete ? nil : context.object(with: change.objectID))
                })
            if let last = transactions.last {
                request.token = last.token
                client.historySequence = last.token.sequence
            }
            if transactions.count < batchSize {
                // The transactions after the last one read touched no entity that syncs.
                client.historySequence = max(client.historySequence, head)
            }
            unsaved.historyPositionToRegister = client.historySequence
            if transactions.count < batchSize {
                if saving { try save() }
                return
            }
            if saving { try save() }
        }
    }

    /// A local change to record: one of the history, or a reaction of the app's rules to the sync's
    /// own changes (see ``recordConsequences()``).
    struct LocalChange {
        var kind: HistoryChange.Kind
        var globalID: UUID
        var entityName: String
        var changedKeys: Set<String>
        /// The object, in the sync context; nil for a deletion or an object gone since.
        var object: (any Entity)?
    }

    /// Makes the records of `changes` pending: their changed fields, their deletion, the links
    /// their memberships' changes add and remove.
    func record(_ changes: [LocalChange]) throws {
        guard !changes.isEmpty else { return }
        var states = try recordStates(for: changes.map(\.globalID))
        var ordered: [ObjectID: (owner: any Entity, lists: Set<RecordShape.OrderedList>)] = [:]
        var orderedLinks: [ListToSort: (owner: any Entity, side: RecordShape.LinkSide, membership: RecordShape.Membership)] = [:]
        var reparented: [(object: any Entity, zone: String)] = []
        for change in changes {
            guard let shape = model.shape(forEntity: change.entityName) else { continue }
            for (owner, list) in try orderedListsTouched(by: change, shape: shape) {
                ordered[owner.objectID, default: (owner, [])].lists.insert(list)
            }
            for touched in orderedLinkListsTouched(by: change, shape: shape) {
                orderedLinks[ListToSort(owner: touched.owner.objectID, side: touched.side, of: touched.membership)] = touched
            }
            let state: SyncRecordState
            switch change.kind {
            case .insert, .update:
                let properties =
                    change.kind == .insert
                    ? shape.fields.map(\.property) : change.changedKeys.filter { shape.field(forProperty: $0) != nil }
                let memberships =
                    change.kind == .insert
                    ? shape.memberships : shape.memberships.filter { change.changedKeys.contains($0.property) }
                let object = change.object
                // Every processor hears of the object, whatever changed: its predicate decides
                // (a two-step deletion's mark is a local-only attribute, for the remote deleter).
                if let object { changedObjects.append(object) }
                if !memberships.isEmpty, let object, !object.isDeleted {
                    let owner =
                        try states[change.globalID]
                        ?? newState(change.globalID, entity: shape.entityName, zone: try zoneKey(of: object, shape: shape), into: &states)
                    try recordMemberships(of: object, memberships, owner: owner)
                }
                guard !properties.isEmpty else { continue }
                state =
                    try states[change.globalID]
                    ?? newState(
                        change.globalID, entity: shape.entityName, zone: try change.object.map { try zoneKey(of: $0, shape: shape) } ?? "",
                        into: &states)
                state.pendingProperties = Self.joined(Self.split(state.pendingProperties).union(properties))
                // Given a parent in another zone, an object joins it (with what belongs to it).
                if change.kind == .update, let object, !object.isDeleted,
                    shape.parentReferences.contains(where: { change.changedKeys.contains($0.property) }),
                    let parentZone = try parentZoneKey(of: object, shape: shape), parentZone != state.zone
                {
                    reparented.append((object, parentZone))
                }
            case .delete:
                // An object the server never heard of needs no word; its state goes when pushed.
                guard let existing = states[change.globalID] else { continue }
                state = existing
                state.isDeletedLocally = true
                try recordRemovalOfLinks(of: state, shape: shape)
            }
            state.localRevision += 1
            state.isPending = true
            changedObjects.append(state)
        }
        for (object, zone) in reparented { try moveRecords(object, to: self.zone(forKey: zone)) }
        // Last, once every member has its state: the positions of the lists that changed.
        for (owner, lists) in ordered.values {
            for list in lists { try recordOrder(of: owner, list) }
        }
        for (owner, side, membership) in orderedLinks.values { try recordLinkOrder(of: owner, side: side, membership) }
    }

    /// The name the sync registers as a consumer of the history under: one per zone.
    var historyConsumerName: String { "\(SyncCoordinator.author).\(home)" }

    /// Records in the store how far the sync read the history, so that a purge does not pass it.
    /// Done after the save that moved it: a crash between the two leaves the registered position
    /// behind, which only holds back a purge.
    func registerHistoryPosition(_ sequence: Int64) throws {
        guard sequence != registeredHistoryPosition else { return }
        try storeCall {
            try container.setHistoryPosition(sequence > 0 ? HistoryToken(sequence: sequence) : nil, ofConsumer: historyConsumerName)
        }
        registeredHistoryPosition = sequence
    }

    /// Records as pending every local change the history no longer holds: an object with no state
    /// is new, one whose synced fields differ from what the sync last knew of its record (its
    /// shadow) is changed, a record whose object is gone was deleted, and memberships are compared
    /// with those last recorded. Reads every synced object: only after a purge passed the sync.
    func recoverPurgedChanges() throws {
        var changes: [LocalChange] = []
        var present = Set<UUID>()
        for shape in model.shapes {
            let objects = try storeCall { try shape.type.allObjects(in: context, batchSize: batchSize) }
            let states = try recordStates(for: objects.map(\.objectGlobalID))
            for object in objects {
                let id = object.objectGlobalID
                present.insert(id)
                guard let state = states[id] else {
                    changes.append(LocalChange(kind: .insert, globalID: id, entityName: shape.entityName, changedKeys: [], object: object))
                    continue
                }
                let known = try Self.fields(state.shadow)
                var keys = Set(shape.memberships.map(\.property) + model.orderedLists(ofOwner: shape.entityName).map(\.relationship))
                for field in shape.fields where try shape.value(of: field, in: object) != known[field.name] {
                    keys.insert(field.property)
                }
                changes.append(LocalChange(kind: .update, globalID: id, entityName: shape.entityName, changedKeys: keys, object: object))
            }
        }
        let states = try storeCall { try context.fetch(FetchDescriptor<SyncRecordState>()) }
        for state in states where !present.contains(state.recordID) && !state.isDeletedLocally {
            // A record the server has (or that waits to be sent) whose object is gone; a link's
            // state, or a set-aside record discarded here, names no entity that syncs.
            guard model.shape(forEntity: state.entityName) != nil, state.baseVersion != nil || state.isPending else { continue }
            changes.append(LocalChange(kind: .delete, globalID: state.recordID, entityName: state.entityName, changedKeys: [], object: nil))
        }
        try record(changes)
    }

    /// Gives every object of the entities that sync a pending state, when the client first syncs a
    /// store that already holds objects (whose history may have been purged).
    func adoptExistingObjects() throws {
        var objectsByEntity: [String: [any Entity]] = [:]
        for shape in model.shapes {
            let objects: [any Entity]
            do {
                objects = try shape.type.allObjects(in: context, batchSize: batchSize)
            } catch let error as ObjectGraphError {
                throw SyncError.store(error)
            }
            // An entity's objects include its subentities': each is adopted by its own shape.
            let own = objects.filter { $0.objectID.entityName == shape.entityName }
            objectsByEntity[shape.entityName] = own
            var states = try recordStates(for: own.map(\.objectGlobalID))
            for object in own where states[object.objectGlobalID] == nil {
                let state = try newState(object.objectGlobalID, entity: shape.entityName, zone: "", into: &states)
                state.pendingProperties = Self.joined(shape.fields.map(\.property))
                state.localRevision = 1
                state.isPending = true
                if !shape.memberships.isEmpty { try recordMemberships(of: object, shape.memberships, owner: state) }
            }
            for list in model.orderedLists(ofOwner: shape.entityName) {
                for object in objects { try recordOrder(of: object, list) }
            }
        }
        // Last, once every link has its state: the order of the ordered many-to-many lists.
        for shape in model.shapes {
            for membership in shape.memberships {
                for side in membership.orderedSides {
                    let entity = side == .source ? shape.entityName : membership.destinationEntity
                    for object in objectsByEntity[entity] ?? [] { try recordLinkOrder(of: object, side: side, membership) }
                }
            }
        }
    }

    // MARK: Records' states

    /// The states of these records, by record ID, read set-wise.
    func recordStates(for recordIDs: some Sequence<UUID>) throws -> [UUID: SyncRecordState] {
        do {
            return try context.objects(withGlobalIDs: recordIDs, as: SyncRecordState.self)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
    }

    /// A new state for a record of `zone` (a ``zoneKey(_:)``), under the record's global ID.
    func newState(_ recordID: UUID, entity: String, zone: String, into states: inout [UUID: SyncRecordState]) throws
        -> SyncRecordState
    {
        let state = SyncRecordState(entityName: entity, zone: zone)
        do {
            try context.insert(state, globalID: recordID)
        } catch let error as ObjectGraphError {
            throw SyncError.store(error)
        }
        states[recordID] = state
        return state
    }

    static func split(_ properties: String) -> Set<String> {
        Set(properties.split(separator: ",").map(String.init))
    }

    static func joined(_ properties: some Sequence<String>) -> String {
        properties.sorted().joined(separator: ",")
    }
}
