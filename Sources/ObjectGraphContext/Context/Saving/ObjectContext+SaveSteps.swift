import Foundation
import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// One save of a context: hooks, validation, then every change in one SQLite transaction (a
/// ``SaveTransaction``, which holds what it needs and hands back what it wrote), and the context
/// brought up to date once it committed.
///
/// The steps that read and change the context's objects are the context's own, each in a file:
/// these, validation (`+SaveValidation`), the conflicts the merge policy settled
/// (`+SaveResolutions`) and a child's save into its parent (`+SaveIntoParent`). The context's
/// objects change only after the transaction commits, so a failed save leaves store and context
/// as they were.
extension ObjectContext {
    /// Runs the save. The context has changes, its pending changes were processed, and no read has
    /// failed since the last save.
    func runSave() throws {
        // Three sets of every changed object's ID: built only for someone to read them.
        if willSaveObservers.isObserved {
            willSaveObservers.post(
                WillSave(
                    insertedObjectIDs: Set(changes.inserted.values.lazy.filter { !$0._$state.isDeleted }.map(\.objectID)),
                    updatedObjectIDs: Set(updatedObjects.map(\.objectID)),
                    deletedObjectIDs: Set(changes.deleted.values.lazy.filter { !$0._$state.isInserted }.map(\.objectID)),
                    author: name))
        }
        runWillSaveHooks()
        // What the hooks could not do (relate an object of another context, read a row) fails the
        // save now, before anything is written.
        if let error = changes.takeDeferredError() { throw error }
        try throwReadFailures()
        try validateForSave()
        if let parent = parent {
            try pushChanges(into: parent)
            return
        }
        let plan = SavePlan(changes)
        // Read before the commit makes the current values the committed ones.
        var keySets = ChangedKeySets()
        var updatedKeys: [ObjectID: Set<String>] = [:]
        for state in changes.updated.values.lazy.map(\._$state) where !state.isInserted && !state.isDeleted {
            let keys = keySets.changedKeys(of: state)
            if !keys.isEmpty { updatedKeys[state.id] = keys }
        }
        // Read as the transaction begins: a `willSave()` hook that changed it changed this save.
        let transaction = SaveTransaction(store: store, author: name, origin: coordinator.origin, mergePolicy: mergePolicy)
        let written = try transaction.write(plan, updatedKeys: updatedKeys)
        commitSave(plan, newKeys: written.newKeys)
        for (state, slot) in written.unwritten {  // the merge policy kept the store's links: read them again
            state.toMany[slot] = .fault
            deletionPass?.forgetCachedMembers(of: state)
        }
        applyResolutions(written.resolutions)
        let didSave = DidSave(
            insertedObjectIDs: Set(plan.inserts.map(\.id)),
            updatedObjectIDs: written.updatedKeys,
            deletedObjectIDs: Set(plan.deletes.map(\.id)),
            author: name, sequence: written.sequence, date: written.date)
        coordinator.didCommit(didSave, from: inbox)
        didSaveObservers.post(didSave)
        postObjectsDidChange()  // objects the merge policy refreshed or found deleted
    }

    /// `willSave` may change more objects; they get their `willSave` too. A flag on each state says
    /// which had theirs (a set of them cost a hash per object), cleared once the hooks are done.
    private func runWillSaveHooks() {
        var notified: [any Entity] = []
        defer { for object in notified { object._$state.hasRunWillSave = false } }
        for _ in 0..<100 {
            let count = notified.count
            // The walk sees the lists as they were when it began: objects that hooks change join
            // the next round.
            for object in changes.changedObjects where !object._$state.hasRunWillSave {
                object._$state.hasRunWillSave = true
                notified.append(object)
                object.willSave()
            }
            guard notified.count > count else { return }
            processLocalChanges()
        }
    }

    // MARK: After commit

    /// Makes the saved state the context's committed state, and ends its unit of work. Runs only
    /// after the transaction committed.
    private func commitSave(_ plan: SavePlan, newKeys: AllocatedKeys) {
        for state in plan.inserts {
            // An object brought back by undo after its deletion was saved has no new key: it keeps its own.
            if let key = newKeys[state.id.key] {
                let id = ObjectID(entity: state.entity, key: key, store: store.identity)
                registry.unregister(state.id)
                state.id = id
                registry.register(state)
            }
            state.version = 1
            state.isInserted = false
        }
        // Objects an undo can bring back must name the saved objects by their keys too.
        if !newKeys.isEmpty { undo?.noteSavedKeys(newKeys) }
        for object in plan.all {
            let state = object._$state
            state.forgetSavedPendingMembers()
            if !newKeys.isEmpty { state.remapTemporaryKeys(newKeys) }
            if state.isDeleted {
                registry.unregister(state.id)
                state.attach(to: nil)
                continue
            }
            if state.isUpdated && (state.hasColumnChanges || state.changesManyToMany) { state.version += 1 }
            state.isUpdated = false
            state.commit()
        }
        assert(
            changes.pendingDeletions.isEmpty && changes.rulesAwaitingRetry.isEmpty
                && changes.deferredErrors.isEmpty, "a save committed with work of its unit left undone")
        changes.clear()
        changes.hasChangesSinceSave = false
        forgetStoredMarks()
        if !children.isEmpty {
            let deleted = Set(plan.deletes.map(\.id))
            for child in children.compactMap(\.context) { child.adoptParentSave(newKeys: newKeys, deleted: deleted) }
        }
        for object in plan.all { object.didSave() }
    }
}
