public import ObjectGraphModel

/// Deleting objects: the public calls, which run the delete rules at once (see
/// `ObjectContext+PendingChanges.swift`).
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
        let wasProcessing = processing.isRunning
        processing.isRunning = true
        for object in objects { deleteObject(object) }
        processing.isRunning = wasProcessing
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
        changes.hasChangesSinceSave = true
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
        changes.hasChangesSinceSave = true
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
}

extension ObjectContext {
    /// Whether the object with this ID is deleted here (an object that is not in memory is not).
    func isDeletedHere(_ id: ObjectID) -> Bool {
        registry.isDeleted(id)
    }
}
