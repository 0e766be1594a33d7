/// Deleting objects: the public calls, and the processing of pending changes that runs the delete
/// rules (a ``DeletionPass``) and posts what changed.
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
                changes.deferredErrors.append(.wrongContext(state.id, action: "deleted from this context"))
            }
            return
        }
        guard !state.isDeleted else { return }
        if undo != nil { recordExistenceForUndo(of: object, wasLive: true) }
        hasChangesSinceSave = true
        state.isDeleted = true
        changes.recordDeletion(of: object, key: StateKey(state))
        processLocalChanges()
    }

    /// Deletes an object without running its delete rules, for a change whose effects on related
    /// objects come with it (an undo, a child context's save).
    func deleteWithoutRules(_ object: any Entity) {
        let state = object._$state
        guard isLive(state) else { return }
        if undo != nil { recordExistenceForUndo(of: object, wasLive: true) }
        hasChangesSinceSave = true
        let key = StateKey(state)
        state.isDeleted = true
        if state.isInserted {
            // Never saved: it leaves the unit of work (an undo that brings it back adds it again).
            changes.inserted[key] = nil
            changes.updated[key] = nil
        } else {
            changes.deleted[key] = object
        }
        if changes.unposted.inserted.removeValue(forKey: key) == nil { changes.unposted.deleted[key] = object }
    }

    /// Whether an object is in this context and not deleted.
    func isLive(_ state: ObjectState) -> Bool {
        state.context === self && !state.isDeleted
    }

    /// Takes back the deletion of an inserted object that is inserted again.
    func undelete(_ object: any Entity) {
        let state = object._$state
        state.isDeleted = false
        changes.deleted[StateKey(state)] = nil
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
    ///
    /// The call ends an event: an ``undoManager`` that groups by event closes its group.
    public func processPendingChanges() {
        let use = beginUse()
        defer { use.end() }
        processPendingChangesWithinEvent()
        endUndoEvent()
    }

    /// ``processPendingChanges()`` as a step of a longer call (a save), whose end ends the event.
    func processPendingChangesWithinEvent() {
        isProcessingScheduled = false
        mergeIncomingChanges()
        processLocalChanges()
    }

    /// Propagates this context's own deletions and posts its changes, without merging other
    /// contexts' saves: what `delete` and the steps of a save need.
    func processLocalChanges() {
        guard !isProcessingPendingChanges else { return }
        DeletionPass(context: self).run()
        postObjectsDidChange()
    }

    /// Posts ``ObjectsDidChange`` for the changes recorded since it was last posted, if any. Handlers
    /// may change the graph again: that is recorded for the next one.
    func postObjectsDidChange() {
        guard !changes.unposted.isEmpty else { return }
        let change = changes.takeUnposted()
        for object in change.inserted.values { object._$state.insertionIsPosted = true }
        let toMonitors = listMonitorObservers.isObserved, toObservers = objectsDidChangeObservers.isObserved
        guard toMonitors || toObservers else { return }
        let notification = change.notification
        if toMonitors { listMonitorObservers.post(notification) }
        if toObservers && notification.namesObjects { objectsDidChangeObservers.post(notification) }
    }
}

extension ObjectContext {
    /// Whether the object with this ID is deleted here (an object that is not in memory is not).
    func isDeletedHere(_ id: ObjectID) -> Bool {
        registry.isDeleted(id)
    }

    /// The to-many value a deletion pass under way read for this object's property `index`.
    func cachedMembers(of state: ObjectState, index: Int) -> Any? {
        deletionPassMemory?.toManyValues[StateKey(state)]?[index]
    }

    /// Keeps a to-many value read, while a deletion pass runs.
    func cacheMembers(_ members: Any, of state: ObjectState, index: Int) {
        deletionPassMemory?.toManyValues[StateKey(state), default: [:]][index] = members
    }

    /// The live member count of this object's to-many `slot` a deletion pass under way read.
    func cachedMemberCount(of state: ObjectState, slot: Int) -> Int? {
        deletionPassMemory?.memberCounts[DeletionPass.MemberSlot(state: StateKey(state), slot: slot)]
    }

    /// Keeps a live member count read, while a deletion pass runs.
    func cacheMemberCount(_ count: Int, of state: ObjectState, slot: Int) {
        deletionPassMemory?.memberCounts[DeletionPass.MemberSlot(state: StateKey(state), slot: slot)] = count
    }

    /// Forgets the to-many values and counts kept for an object whose relationships changed.
    func forgetCachedMembers(of state: ObjectState) {
        guard deletionPassMemory?.keepsMembers == true else { return }
        let key = StateKey(state)
        deletionPassMemory?.toManyValues[key] = nil
        guard deletionPassMemory?.memberCounts.isEmpty == false else { return }
        for slot in state.entity.layout.toManyProperties.indices {
            deletionPassMemory?.memberCounts[DeletionPass.MemberSlot(state: key, slot: slot)] = nil
        }
    }

    /// Forgets every member count kept: an object was deleted or undeleted, which any relationship
    /// holding it counts.
    func forgetMemberCounts() {
        guard deletionPassMemory?.memberCounts.isEmpty == false else { return }
        deletionPassMemory?.memberCounts = [:]
    }

    /// Forgets every to-many value and count kept: an object's mark changed, or the store's marks
    /// are to be read again, and relationships hide marked objects.
    func forgetAllCachedMembers() {
        guard deletionPassMemory?.keepsMembers == true else { return }
        deletionPassMemory?.toManyValues = [:]
        deletionPassMemory?.memberCounts = [:]
    }
}
