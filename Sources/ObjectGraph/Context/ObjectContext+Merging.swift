/// Bringing a context up to date with saves made by other contexts.
extension ObjectContext {
    /// Applies a save made by another context of the same store to this context's objects.
    ///
    /// Objects the save updated are refreshed: an object without unsaved changes here becomes a
    /// fault and reads the saved values when next used; one with unsaved changes reads the saved
    /// values and keeps its own changes on top. Objects the save deleted are marked deleted, keeping
    /// the values they had here. Objects it inserted appear in this context's fetches. The context
    /// then posts ``ObjectsDidChange`` (refreshed and deleted objects). Objects of this context that
    /// are not in memory are not touched: they read the store when they are.
    public func mergeChanges(from save: DidSave) {
        for (id, keys) in save.updatedObjectIDs {
            guard let state = registry.state(for: id), let object = state.object, !state.isDeleted else { continue }
            refresh(object, mergeChanges: true)
            pendingChange.refreshed[StateKey(state)] = (object, keys)
        }
        for id in save.deletedObjectIDs {
            guard let state = registry.state(for: id), let object = state.object, !state.isDeleted else { continue }
            markDeletedElsewhere(state, object)
        }
        processPendingChanges()
    }

    /// Marks an object whose row another context deleted: it reads as deleted, keeps its last values,
    /// and is not deleted again at the next save.
    func markDeletedElsewhere(_ state: ObjectState, _ object: any Entity) {
        if state.isFault { state.load(state.entity.layout.initialValues, version: 0) }
        state.isDeleted = true
        state.isInaccessible = true
        state.isUpdated = false
        updated[StateKey(state)] = nil
        pendingChange.updated[StateKey(state)] = nil
        pendingChange.refreshed[StateKey(state)] = nil
        pendingChange.deleted[StateKey(state)] = object
    }
}
