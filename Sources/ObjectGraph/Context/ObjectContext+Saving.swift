import Foundation
import OrderedCollections

/// Saving: hooks, validation, then every change in one SQLite transaction. The context's objects are
/// only updated after the transaction commits, so a failed save leaves store and context as they were.
extension ObjectContext {

    /// Writes every change since the last save, atomically.
    ///
    /// Runs pending delete rules, calls `willSave()` on changed objects, validates (required values,
    /// uniqueness, relationship counts, deny rules and the objects' own `validateFor…` hooks), writes in
    /// one transaction, and calls `didSave()`.
    ///
    /// A changed object whose row another context saved since this one read it is a conflict,
    /// settled by the ``mergePolicy``.
    ///
    /// - Throws: ``ObjectGraphError/validationFailed(_:)`` listing every failure,
    ///   ``ObjectGraphError/conflict(_:)`` for conflicts under the ``MergePolicy/error`` policy,
    ///   ``ObjectGraphError/readFailed(_:property:_:)`` when a read made since the last save failed
    ///   (or the delete rules of a deleted object cannot read what they need), or
    ///   ``ObjectGraphError/store(_:)``. Nothing is written when it throws.
    public func save() throws {
        let use = beginUse()
        defer { use.end() }
        if !deferredErrors.isEmpty {
            let error = deferredErrors.removeFirst()
            throw error
        }
        processPendingChanges()  // merging other contexts' saves first
        // Nothing is written over what could not be read: the caller learns of it here.
        try throwReadFailures()
        guard hasChanges else { return }
        willSaveObservers.post(WillSave(
            insertedObjectIDs: Set(inserted.values.lazy.filter { !$0._$state.isDeleted }.map(\.objectID)),
            updatedObjectIDs: Set(updatedObjects.map(\.objectID)),
            deletedObjectIDs: Set(deleted.values.lazy.filter { !$0._$state.isInserted }.map(\.objectID)),
            author: name))
        runWillSaveHooks()
        try validate()
        let plan = makePlan()
        // Read before the commit makes the current values the committed ones.
        var keySets = ChangedKeySets()
        var updatedKeys: [ObjectID: Set<String>] = [:]
        for state in updated.values.lazy.map(\._$state) where !state.isInserted && !state.isDeleted {
            let keys = keySets.changedKeys(of: state)
            if !keys.isEmpty { updatedKeys[state.id] = keys }
        }
        let written = try write(plan, updatedKeys: updatedKeys)
        commit(plan, newKeys: written.newKeys)
        for (state, slot) in written.unwritten {  // the merge policy kept the store's links: read them again
            state.toMany[slot] = .fault
            forgetCachedMembers(of: state)
        }
        apply(written.resolutions)
        let didSave = DidSave(
            insertedObjectIDs: Set(plan.inserts.map(\.id)),
            updatedObjectIDs: written.updatedKeys,
            deletedObjectIDs: Set(plan.deletes.map(\.id)),
            author: name, sequence: written.sequence, date: written.date)
        coordinator.didCommit(didSave, from: inbox)
        didSaveObservers.post(didSave)
        postObjectsDidChange()  // objects the merge policy refreshed or found deleted
    }

    private var changedObjects: [any Entity] {
        Array(inserted.values) + Array(updated.values) + Array(deleted.values)
    }

    /// `willSave` may change more objects; they get their `willSave` too.
    private func runWillSaveHooks() {
        var notified: Set<StateKey> = []
        for _ in 0..<100 {
            let pending = changedObjects.filter { !notified.contains(StateKey($0._$state)) }
            guard !pending.isEmpty else { return }
            for object in pending {
                notified.insert(StateKey(object._$state))
                object.willSave()
            }
            processLocalChanges()
        }
    }

    // MARK: Validation

    private func validate() throws {
        var failures: [ValidationFailure] = []
        for object in changedObjects {
            let state = object._$state
            guard let mapping = state.mapping else { continue }
            func fail(_ property: String?, _ reason: ValidationFailure.Reason) {
                failures.append(ValidationFailure(entity: mapping.name, objectID: state.id, property: property, reason: reason))
            }
            if state.isDeleted {
                guard !state.isInserted else { continue }
                for (slot, relationship) in mapping.toManyRelationships.enumerated()
                where relationship.description.deleteRule == .deny {
                    let remaining = try loadedMembers(of: state, slot: slot).filter { !isDeletedHere($0) }.count
                    if remaining > 0 { fail(relationship.name, .deleteDenied(count: remaining)) }
                }
                for (slot, relationship) in mapping.toOneRelationships.enumerated()
                where relationship.description.deleteRule == .deny {
                    if let id = state.relatedID(at: slot), !isDeletedHere(id) { fail(relationship.name, .deleteDenied(count: 1)) }
                }
                do { try object.validateForDelete() } catch { fail(nil, .custom("\(error)")) }
                continue
            }
            if state.isFault { continue }
            if let deletable = object as? any DelayedDeletable, type(of: deletable).propagatesDeleteRulesWhenMarked,
               deletable.changedForDelayedDeletion {
                // The deny rules of an object being marked, as its deletion would meet them later.
                for (slot, relationship) in mapping.toManyRelationships.enumerated() where relationship.description.deleteRule == .deny {
                    let members = unmarked(try loadedMembers(of: state, slot: slot), destination: mapping.toManyDestinations[slot],
                                           owner: state, property: relationship.name)
                    let remaining = members.count { !isDeletedHere($0) }
                    if remaining > 0 { fail(relationship.name, .deleteDenied(count: remaining)) }
                }
                for (slot, relationship) in mapping.toOneRelationships.enumerated() where relationship.description.deleteRule == .deny {
                    if let id = state.relatedID(at: slot), !isDeletedHere(id),
                       !isHiddenAsMarked(id, owner: state, property: relationship.name) {
                        fail(relationship.name, .deleteDenied(count: 1))
                    }
                }
            }
            // A value that could not be encoded was not written: named as such, not as missing.
            let unstorable = state.unstorableValues
            for (index, reason) in unstorable.sorted(by: { $0.key < $1.key }) {
                fail(state.entity.propertyNames[index], .unstorableValue(reason: reason))
            }
            for (slot, attribute) in mapping.description.attributes.enumerated()
            where !attribute.isOptional && state.value(atPosition: slot).isNull
                && (unstorable.isEmpty || unstorable[state.entity.layout.attributeProperties[slot]] == nil) {
                fail(attribute.name, .missingValue)
            }
            // A link to an object deleted here would outlive its row.
            for (slot, relationship) in mapping.toOneRelationships.enumerated() {
                if let id = state.relatedID(at: slot), isDeletedHere(id) { fail(relationship.name, .relatedObjectDeleted(id)) }
            }
            for (slot, relationship) in mapping.toManyRelationships.enumerated()
            where state.isInserted || state.changedToMany[slot] != nil {
                let description = relationship.description
                guard description.minimumCount != nil || description.maximumCount != nil else { continue }
                let count = try loadedMembers(of: state, slot: slot).filter { !isDeletedHere($0) }.count
                if let minimum = description.minimumCount, count < minimum {
                    fail(description.name, .tooFewObjects(count: count, minimum: minimum))
                }
                if let maximum = description.maximumCount, count > maximum {
                    fail(description.name, .tooManyObjects(count: count, maximum: maximum))
                }
            }
            do {
                if state.isInserted { try object.validateForInsert() } else { try object.validateForUpdate() }
            } catch {
                fail(nil, .custom("\(error)"))
            }
        }
        if !failures.isEmpty { throw ObjectGraphError.validationFailed(causesFirst(failures)) }
    }

    /// The failures with refused deletions first, as the cause: an object of the save that still
    /// points to an object whose deletion a deny rule refused is a consequence of that deletion, not
    /// reported apart.
    private func causesFirst(_ failures: [ValidationFailure]) -> [ValidationFailure] {
        func isDenial(_ failure: ValidationFailure) -> Bool {
            if case .deleteDenied = failure.reason { true } else { false }
        }
        let denied = Set(failures.lazy.filter(isDenial).map(\.objectID))
        guard !denied.isEmpty else { return failures }
        let others = failures.filter { failure in
            if case .relatedObjectDeleted(let id) = failure.reason { return !denied.contains(id) }
            return !isDenial(failure)
        }
        return failures.filter(isDenial) + others
    }


    // MARK: Plan

    struct SavePlan {
        var inserts: [ObjectState] = []
        var updates: [ObjectState] = []
        var deletes: [ObjectState] = []
        /// Objects whose to-many relationships changed, with the changed slots.
        var relationshipChanges: [ObjectState] = []
        var all: [any Entity] = []
    }

    private func makePlan() -> SavePlan {
        var plan = SavePlan()
        for object in inserted.values where !object._$state.isDeleted {
            plan.inserts.append(object._$state)
            plan.all.append(object)
        }
        for object in updated.values where !object._$state.isDeleted && !object._$state.isInserted {
            let state = object._$state
            if state.hasColumnChanges || changesManyToMany(state) { plan.updates.append(state) }
            plan.all.append(object)
        }
        for object in deleted.values where !object._$state.isInserted {
            plan.deletes.append(object._$state)
            plan.all.append(object)
        }
        plan.relationshipChanges = (plan.inserts + updated.values.map(\._$state))
            .filter { !$0.isDeleted && !$0.changedToMany.isEmpty }
        return plan
    }

    // MARK: Writing

    /// What a plan's transaction wrote.
    private struct WrittenPlan {
        /// The primary keys given to inserted objects, by temporary key.
        var newKeys: [Int64: Int64]
        /// The conflicts the merge policy resolved.
        var resolutions: [ConflictResolution]
        /// The relationships whose changes the merge policy discarded.
        var unwritten: [(ObjectState, slot: Int)]
        /// The updated objects, with the properties actually written.
        var updatedKeys: [ObjectID: Set<String>]
        /// The transaction's record in the history.
        var sequence: Int64
        var date: Date
    }

    /// Runs the plan in one transaction, with its record in the persistent history.
    private func write(_ plan: SavePlan, updatedKeys: [ObjectID: Set<String>]) throws -> WrittenPlan {
        do {
            return try store.write { writer in
                let date = Date()
                let sequence = try writer.recordTransaction(author: name, date: date, origin: coordinator.origin)
                let inserts = byEntity(plan.inserts)
                for (mapping, group) in inserts {
                    try writer.allocateKeys(group.map(\.id.key), for: mapping)
                }
                // Deletions, then updates, then insertions: a unique value that a deleted or updated
                // row gives up can be taken by another row of the same save.
                for (mapping, group) in byEntity(plan.deletes) {
                    try writer.delete(keys: KeySelection(group.map(\.id.key)), mapping: mapping)
                }
                try releaseUniqueValues(of: plan.updates, writer)
                var conflicts: [SaveConflict] = []
                var resolutions: [ConflictResolution] = []
                for state in plan.updates {
                    guard let conflict = try updateRow(state, writer) else { continue }
                    if mergePolicy == .error {
                        conflicts.append(conflict)
                    } else {
                        resolutions.append(try resolve(state, writer))
                    }
                }
                if !conflicts.isEmpty { throw ObjectGraphError.conflict(conflicts) }
                var written = updatedKeys
                for resolution in resolutions { resolution.removeUnwrittenKeys(from: &written) }
                try recordUpdates(written, writer)
                for state in plan.inserts {
                    guard let mapping = state.mapping else { continue }
                    try writer.insert(state, id: state.id, globalID: state.globalID ?? GlobalIDs.next(), mapping: mapping)
                }
                // Links and positions once every row exists: an ordered member inserted by this
                // save gets its position (an UPDATE of a row not written yet changes nothing).
                let unwritten = try writeToMany(
                    plan.relationshipChanges, resolutions: RelationshipResolutions(policy: mergePolicy, resolved: resolutions),
                    writer)
                for (mapping, group) in inserts {
                    try writer.recordChanges(.insert, keys: KeySelection(group.compactMap { writer.permanentKey($0.id.key) }),
                                             mapping: mapping)
                }
                return WrittenPlan(newKeys: writer.newKeys, resolutions: resolutions, unwritten: unwritten,
                                   updatedKeys: written, sequence: sequence, date: date)
            }
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    /// Records updated objects in the history, a statement per entity and set of changed keys (a
    /// save that edits many objects mostly changes the same properties of each).
    private func recordUpdates(_ updates: [ObjectID: Set<String>], _ writer: RowWriter) throws {
        // Found by equality, which is immediate for the sets a save shares (see ChangedKeySets).
        var groups: [ObjectIdentifier: [(keys: Set<String>, rows: [Int64])]] = [:]
        for (id, keys) in updates where !keys.isEmpty {
            let entity = ObjectIdentifier(id.entity)
            if let index = groups[entity]?.firstIndex(where: { $0.keys == keys }) {
                groups[entity]?[index].rows.append(id.key)
            } else {
                groups[entity, default: []].append((keys, [id.key]))
            }
        }
        for (entity, byKeys) in groups {
            guard let mapping = store.mapping(forIdentifier: entity) else { continue }
            for (keys, rows) in byKeys {
                try writer.recordChanges(.update, keys: KeySelection(rows), changedKeys: keys.sorted().joined(separator: ","),
                                         mapping: mapping)
            }
        }
    }

    /// Objects grouped by entity, for the statements that take many rows of one table.
    private func byEntity(_ states: [ObjectState]) -> [(EntityMapping, [ObjectState])] {
        Dictionary(grouping: states) { $0.mapping?.index ?? -1 }
            .compactMap { index, group in index >= 0 ? (store.mappings[index], group) : nil }
    }

    /// Clears the unique columns that updated rows change, before any row is written: SQLite checks
    /// a unique index at each statement, so two rows exchanging values (or one taking the value
    /// another gives up) would otherwise fail on whichever is written first. A row changed
    /// elsewhere since it was read is left alone: its conflict is resolved as usual.
    private func releaseUniqueValues(of updates: [ObjectState], _ writer: RowWriter) throws {
        for state in updates where !state.isFault {
            guard let mapping = state.mapping, let committed = state.committedValues else { continue }
            let released = mapping.uniqueAttributeSlots.filter { state.value(atPosition: $0) != committed[$0] }
            guard !released.isEmpty else { continue }
            try writer.clear(released, ofRow: state.id.key, ifVersion: state.version, mapping: mapping)
        }
    }

    /// Writes the changed columns if the row still has the version this context read; otherwise
    /// returns the conflict.
    private func updateRow(_ state: ObjectState, _ writer: RowWriter) throws -> SaveConflict? {
        guard let mapping = state.mapping else { return nil }
        let committed = state.committedValues
        let changed = committed.map { committed in committed.indices.filter { state.value(atPosition: $0) != committed[$0] } } ?? []
        // A fault (changed only through inverses) was never read: there is no version to compare,
        // and its link changes apply on top of the store's links whatever happened since.
        let readVersion = state.isFault ? nil : state.version
        guard try !writer.update(state, id: state.id, positions: changed, ifVersion: readVersion,
                                 bumpingVersion: changesManyToMany(state), mapping: mapping) else { return nil }
        let current = try writer.version(ofRow: state.id.key, mapping: mapping)
        return SaveConflict(objectID: state.id, staleVersion: state.version, currentVersion: current)
    }

    // MARK: After commit

    /// Makes the saved state the context's committed state. Runs only after the transaction committed.
    private func commit(_ plan: SavePlan, newKeys: [Int64: Int64]) {
        var permanent: [Int64: ObjectID] = [:]
        permanent.reserveCapacity(newKeys.count)
        for state in plan.inserts {
            guard let key = newKeys[state.id.key] else { continue }
            let id = ObjectID(entity: state.entity, key: key, store: store.identity)
            permanent[state.id.key] = id
            registry.unregister(state.id)
            state.id = id
            registry.register(state)
            state.version = 1
            state.isInserted = false
        }
        func remap(_ id: ObjectID?) -> ObjectID? {
            guard let id, id.isTemporary else { return id }
            return permanent[id.key] ?? id
        }
        for object in plan.all {
            let state = object._$state
            if !permanent.isEmpty {
                // Rebuilt only where a temporary ID appears: most links point to saved objects.
                for position in state.entity.layout.attributeCount..<state.valueCount {
                    if case .integer(let key) = state.value(atPosition: position), key < 0, let saved = newKeys[key] {
                        state.write(.integer(saved), atPosition: position)
                    }
                }
                for slot in state.toMany.indices {
                    if case .loaded(let members) = state.toMany[slot], members.contains(where: \.isTemporary) {
                        state.toMany[slot] = .loaded(OrderedSet(members.compactMap(remap)))
                    } else if case let .pending(added, removed) = state.toMany[slot] {
                        state.toMany[slot] = .pending(added: OrderedSet(added.compactMap(remap)),
                                                      removed: Set(removed.compactMap(remap)))
                    }
                }
            }
            if state.isDeleted {
                registry.unregister(state.id)
                state.attach(to: nil, mapping: nil)
                continue
            }
            if state.isUpdated && (state.hasColumnChanges || changesManyToMany(state)) { state.version += 1 }
            state.isUpdated = false
            state.commit()
        }
        inserted = [:]
        updated = [:]
        deleted = [:]
        markedKeysCache = [:]
        unsavedMarks = [:]
        for object in plan.all { object.didSave() }
    }
}

/// The writer reads an object's row straight from its state.
extension ObjectState: RowValues {}
