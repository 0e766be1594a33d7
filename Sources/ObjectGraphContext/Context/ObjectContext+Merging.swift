import ObjectGraphModel

/// Bringing a context up to date with saves made by other contexts.
extension ObjectContext {
    /// Applies a save made by another context of the same store to this context's objects.
    ///
    /// Objects the save updated are refreshed: an object without unsaved changes here becomes a
    /// fault and reads the saved values when next used; one with unsaved changes reads the saved
    /// values and keeps its own changes on top. Objects the save deleted are marked deleted, keeping
    /// the values they had here. Objects it inserted appear in this context's fetches, and, when
    /// someone observes ``ObjectsDidChange``, as faults among its inserted objects. The context then
    /// posts ``ObjectsDidChange``. Objects of this context that are not in memory are not touched:
    /// they read the store when they are, so a merge costs what it changes here, not the size of the
    /// save's tables.
    ///
    /// Contexts that ``automaticallyMergesChanges`` (the default) do this by themselves; a save
    /// merged by hand is not merged again when the context would have merged it.
    ///
    /// - Parameter save: A save of another context of the same container.
    public func mergeChanges(from save: DidSave) {
        let use = beginUse()
        defer { use.end() }
        inbox.discard(save)
        apply(save)
        processLocalChanges()
    }

    /// Merges the saves that other contexts left for this one, in the order they were committed, and
    /// posts one ``ObjectsDidChange`` for all of them. A child first copies what its ancestors
    /// changed since, for the objects it has not read yet (see `catchUpWithAncestors`).
    package func mergeIncomingChanges() {
        // Not in the middle of a deletion pass (a `prepareForDeletion()` that fetches, say): objects
        // the pass is working on must not change under it. The saves wait for the next use.
        guard !processing.isRunning else { return }
        catchUpWithAncestors()
        let saves = inbox.takeAll()
        guard !saves.isEmpty else { return }
        for save in saves { apply(save) }
        processLocalChanges()
    }

    private func apply(_ save: DidSave) {
        forgetStoredMarks()
        // Rows not held here are noted for list monitors, which may have to show them now.
        let notesUnheld = listMonitorObservers.isObserved
        for (id, keys) in save.updatedObjectIDs {
            guard let state = registry.state(for: id), let object = state.object else {
                if notesUnheld { changes.unposted.unheldUpdates.append(id, changedKeys: keys) }
                continue
            }
            guard !state.isDeleted else { continue }
            reload(state, keepingChanges: true)
            recordRefresh(of: state, object, keys: keys)
        }
        changes.unposted.deleted.reserveCapacity(changes.unposted.deleted.count + save.deletedObjectIDs.count)
        for id in save.deletedObjectIDs {
            guard let state = registry.state(for: id), let object = state.object, !state.isDeleted else { continue }
            markDeletedElsewhere(state, object)
        }
        // New objects matter only to observers (a list that shows them, say); without any, making
        // faults for them would be work for nobody.
        guard objectsDidChangeObservers.isObserved || listMonitorObservers.isObserved else { return }
        for id in save.insertedObjectIDs where registry.state(for: id) == nil {
            guard let object = object(with: id) else { continue }
            changes.unposted.inserted[StateKey(object._$state)] = object
        }
    }

    /// Marks an object whose row another context deleted: it reads as deleted, keeps its last values,
    /// and is not deleted again at the next save.
    func markDeletedElsewhere(_ state: ObjectState, _ object: any Entity) {
        if state.isFault { state.load(state.entity.layout.initialValues, version: 0) }
        state.isDeleted = true
        state.isInaccessible = true
        let key = StateKey(state)
        // Looked up only where the object can be: a batch deletion marks thousands at a time.
        if state.isUpdated { changes.updated[key] = nil }
        state.isUpdated = false
        if !changes.unposted.updated.isEmpty { changes.unposted.updated[key] = nil }
        if !changes.unposted.refreshed.isEmpty { changes.unposted.refreshed[key] = nil }
        changes.unposted.deleted[key] = object
    }
}
