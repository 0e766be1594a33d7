import Algorithms

/// Deleting objects and propagating deletions through the delete rules.
///
/// Deletions propagate in waves: every object deleted since the last wave gets its row loaded (one
/// query per entity and chunk of keys, not one per object), its `prepareForDeletion()` called, the
/// members of its to-many relationships loaded (again set-wise), and its delete rules applied, which
/// may delete more objects for the next wave. A cascade through 100,000 objects is a few dozen queries.
extension ObjectContext {
    /// Deletes an object. Its delete rules run at once (see ``processPendingChanges()``), and the row
    /// is removed at the next save. Deleting an object that was never saved just forgets it.
    /// Deleting an object of another context changes nothing and makes the next save fail with
    /// ``ObjectGraphError/wrongContext(_:action:)``.
    ///
    /// - Parameter object: An object of this context.
    public func delete<T: Entity>(_ object: T) {
        let use = beginUse()
        defer { use.end() }
        deleteObject(object)
    }

    /// Deletes several objects, their delete rules running in one pass.
    ///
    /// Prefer it to deleting one object at a time when deleting many: the rules of all of them run
    /// together, loading what they need a chunk of rows per query, and a related object that several
    /// of them look at (such as the country of many deleted moods) is loaded once for all.
    ///
    /// - Parameter objects: Objects of this context.
    public func delete<Objects: Sequence>(_ objects: Objects) where Objects.Element: Entity {
        let use = beginUse()
        defer { use.end() }
        let wasProcessing = isProcessingPendingChanges
        isProcessingPendingChanges = true
        for object in objects { deleteObject(object) }
        isProcessingPendingChanges = wasProcessing
        processLocalChanges()
    }

    func deleteObject(_ object: any Entity) {
        let state = object._$state
        guard state.context === self else {
            // An object deleted and saved has no context any more: deleting it again is harmless.
            if state.context != nil || state.acceptsInitialValues {
                deferredErrors.append(.wrongContext(state.id, action: "deleted from this context"))
            }
            return
        }
        guard !state.isDeleted else { return }
        state.isDeleted = true
        deleted[StateKey(state)] = object
        // An object inserted and deleted before anyone was told of it was never there.
        if pendingChange.inserted.removeValue(forKey: StateKey(state)) == nil {
            pendingChange.deleted[StateKey(state)] = object
        }
        pendingDeletions.append(object)
        processLocalChanges()
    }

    /// Takes back the deletion of an inserted object that is inserted again.
    func undelete(_ object: any Entity) {
        let state = object._$state
        state.isDeleted = false
        deleted[StateKey(state)] = nil
    }

    /// Merges the saves of other contexts that arrived (see ``automaticallyMergesChanges``), runs
    /// `prepareForDeletion()` and the delete rules of the objects deleted since the last call, and of
    /// every object they delete in turn, then posts ``ObjectsDidChange`` for every change since it
    /// was last posted.
    ///
    /// `delete(_:)` runs the delete rules at once, and ``save()`` does all of this first, so the graph
    /// is consistent as soon as `delete` returns; a `delete` made from `prepareForDeletion()` joins
    /// the pass under way. Each object's rules run once however many paths reach it, and a cycle of
    /// cascades ends when it comes back to an object already deleted.
    public func processPendingChanges() {
        let use = beginUse()
        defer { use.end() }
        isProcessingScheduled = false
        mergeIncomingChanges()
        processLocalChanges()
    }

    /// Propagates this context's own deletions and posts its changes, without merging other
    /// contexts' saves: what `delete` and the steps of a save need.
    func processLocalChanges() {
        guard !isProcessingPendingChanges else { return }
        propagateDeletions()
        postObjectsDidChange()
    }

    /// Posts ``ObjectsDidChange`` for the changes recorded since it was last posted, if any. Handlers
    /// may change the graph again: that is recorded for the next one.
    func postObjectsDidChange() {
        guard !pendingChange.isEmpty else { return }
        let change = pendingChange
        pendingChange = PendingObjectsChange()
        for object in change.inserted.values { object._$state.insertionIsPosted = true }
        let toMonitors = listMonitorObservers.isObserved, toObservers = objectsDidChangeObservers.isObserved
        guard toMonitors || toObservers else { return }
        let notification = change.notification
        if toMonitors { listMonitorObservers.post(notification) }
        if toObservers && notification.namesObjects { objectsDidChangeObservers.post(notification) }
    }

    private func propagateDeletions() {
        isProcessingPendingChanges = true
        // Objects the pass loads stay alive until it ends: rules and `prepareForDeletion()` of many
        // deleted objects often look at the same related objects, which would otherwise be loaded
        // again each time.
        objectsKeptForPass = []
        defer {
            isProcessingPendingChanges = false
            objectsKeptForPass = nil
            cachedToManyValues = [:]
        }
        // Objects whose rules could not read what they needed last time try again, without being
        // prepared for deletion a second time.
        var retried = rulesAwaitingRetry.map(\.object)
        rulesAwaitingRetry = []
        while !pendingDeletions.isEmpty || !retried.isEmpty {
            let wave = pendingDeletions
            pendingDeletions = []
            let states = (wave + retried).map(\._$state)
            loadFaults(states)
            loadInverseMembers(of: states)
            for object in wave { object.prepareForDeletion() }
            loadMembersForDeleteRules(of: states)
            for object in wave + retried {
                do {
                    try applyDeleteRules(to: object._$state)
                } catch let failure as ObjectGraphError {
                    rulesAwaitingRetry.append((object, failure))
                } catch {
                    rulesAwaitingRetry.append((object, .store(StoreError(error))))
                }
            }
            retried = []
        }
    }

    // MARK: Delete rules

    /// Applies each relationship's delete rule to a deleted object. Throws, having applied at most
    /// some of them, when the object or the members a rule needs cannot be read; applying them again
    /// later completes the work (a nullified or cascaded object is not touched twice).
    private func applyDeleteRules(to state: ObjectState) throws {
        guard let mapping = state.mapping else { return }
        try loadFault(state)
        for (slot, rule) in mapping.toOneDeleteRules.enumerated() where rule.touchesRelatedObjects {
            guard let id = state.relatedID(at: slot), let related = object(with: id) else { continue }
            try apply(rule, of: state, to: related, through: mapping.toOneRelationships[slot])
        }
        for (slot, rule) in mapping.toManyDeleteRules.enumerated() where rule.touchesRelatedObjects {
            for id in try loadedMembers(of: state, slot: slot) {
                guard let related = object(with: id) else { continue }
                try apply(rule, of: state, to: related, through: mapping.toManyRelationships[slot])
            }
        }
    }

    private func apply(_ rule: DeleteRule, of state: ObjectState, to related: any Entity,
                       through relationship: @autoclosure () -> RelationshipMapping) throws {
        // A deleted object's own links are left as they are: they go with its row, and `rollback()`
        // finds them intact. Only objects that stay are unlinked.
        guard !related._$state.isDeleted else { return }
        switch rule {
        case .nullify:
            let relationship = relationship()
            // A to-one pointing back is a column of the related row, which must be read to be cleared.
            if !relationship.inverseIsToMany { try loadFault(related._$state) }
            removeInverse(of: state, relationship: relationship, from: related._$state)
        case .cascade:
            deleteObject(related)
        case .deny, .noAction:
            break  // deny is checked at save, where the count of related objects is final
        }
    }

    // MARK: Loading set-wise

    /// Loads the rows of the faults among `states`, a chunk of keys per query.
    func loadFaults(_ states: [ObjectState]) {
        let faults = states.filter { $0.isFault && !$0.id.isTemporary }
        for (_, group) in Dictionary(grouping: faults, by: { ObjectIdentifier($0.entity) }) {
            guard let mapping = group.first?.mapping else { continue }
            for chunk in group.map(\.id.key).sorted().chunks(ofCount: SQL.inlineListLimit) {
                _ = loadBatch(chunk, mapping: mapping)
            }
        }
    }

    /// Loads, set-wise, the to-many relationships that the rules of the deleted objects' to-one
    /// relationships will change: the `moods` of the country of each deleted mood, say.
    private func loadInverseMembers(of states: [ObjectState]) {
        for (_, group) in Dictionary(grouping: states, by: { ObjectIdentifier($0.entity) }) {
            guard let mapping = group.first?.mapping else { continue }
            for (slot, rule) in mapping.toOneDeleteRules.enumerated() where rule.touchesRelatedObjects {
                let relationship = mapping.toOneRelationships[slot]
                guard relationship.inverseIsToMany else { continue }
                var seen = Set<ObjectID>()
                let targets = group.compactMap { $0.relatedID(at: slot) }.filter { seen.insert($0).inserted }
                    .compactMap { object(with: $0)?._$state }
                    .filter { !$0.isDeleted && !$0.id.isTemporary && $0.toMany[relationship.inverseSlot].needsLoading }
                guard targets.count > 1 else { continue }
                let inverse = store.mappings[relationship.destination].toManyRelationships[relationship.inverseSlot]
                preload { try loadMembers(of: targets, slot: relationship.inverseSlot, relationship: inverse) }
            }
        }
    }

    /// Loads the members of the to-many relationships whose delete rule needs them, for every state of
    /// `states` that has not loaded them yet, a chunk of owners per query.
    private func loadMembersForDeleteRules(of states: [ObjectState]) {
        for (_, group) in Dictionary(grouping: states, by: { ObjectIdentifier($0.entity) }) {
            guard let mapping = group.first?.mapping else { continue }
            for (slot, rule) in mapping.toManyDeleteRules.enumerated() where rule.touchesRelatedObjects {
                let owners = group.filter { !$0.id.isTemporary && $0.toMany[slot].needsLoading }
                guard owners.count > 1 else { continue }  // one owner loads on demand as cheaply
                preload { try loadMembers(of: owners, slot: slot, relationship: mapping.toManyRelationships[slot]) }
            }
        }
    }

    /// Runs a set-wise load made ahead of the rules. Its failure is no failure of the pass: what it
    /// left unloaded is read again, one object at a time, where it is needed, and a failure there
    /// keeps the deletion pending (see ``applyDeleteRules(to:)``).
    private func preload(_ load: () throws -> Void) {
        do { try load() } catch {}
    }
}

extension ObjectContext {
    /// Whether the object with this ID is deleted here (an object that is not in memory is not).
    func isDeletedHere(_ id: ObjectID) -> Bool {
        registry.isDeleted(id)
    }

    func cachedMembers(of state: ObjectState, index: Int) -> Any? {
        guard objectsKeptForPass != nil else { return nil }
        return cachedToManyValues[StateKey(state)]?[index]
    }

    func cacheMembers(_ members: Any, of state: ObjectState, index: Int) {
        guard objectsKeptForPass != nil else { return }
        cachedToManyValues[StateKey(state), default: [:]][index] = members
    }

    func forgetCachedMembers(of state: ObjectState) {
        guard !cachedToManyValues.isEmpty else { return }
        cachedToManyValues[StateKey(state)] = nil
    }
}

extension DeleteRule {
    /// Whether applying the rule changes or deletes related objects.
    var touchesRelatedObjects: Bool {
        self == .nullify || self == .cascade
    }
}
