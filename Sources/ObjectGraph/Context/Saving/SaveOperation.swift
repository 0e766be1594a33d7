import Foundation
import OrderedCollections

/// One save of a context: hooks, validation, then every change in one SQLite transaction, and the
/// context brought up to date once it committed.
///
/// The steps live in their own files: validation (`+Validation`), the transaction (`+Writing`),
/// conflicts settled by the merge policy (`+Conflicts`) and join-table links (`+LinkWriting`). The
/// context's objects change only after the transaction commits, so a failed save leaves store and
/// context as they were. A save operation is made by ``ObjectContext/save()`` for one call and reads
/// and changes the context through it.
struct SaveOperation {
    let context: ObjectContext

    var store: SQLiteStore { context.store }
    /// Read where it decides, as before the save had a type of its own: a `willSave()` hook that
    /// changes it changes this save.
    var mergePolicy: MergePolicy { context.mergePolicy }

    /// Runs the save. The context has changes, its pending changes were processed, and no read has
    /// failed since the last save.
    func run() throws {
        // Three sets of every changed object's ID: built only for someone to read them.
        if context.willSaveObservers.isObserved {
            context.willSaveObservers.post(
                WillSave(
                    insertedObjectIDs: Set(context.changes.inserted.values.lazy.filter { !$0._$state.isDeleted }.map(\.objectID)),
                    updatedObjectIDs: Set(context.updatedObjects.map(\.objectID)),
                    deletedObjectIDs: Set(context.changes.deleted.values.lazy.filter { !$0._$state.isInserted }.map(\.objectID)),
                    author: context.name))
        }
        runWillSaveHooks()
        // What the hooks could not do (relate an object of another context, read a row) fails the
        // save now, before anything is written.
        if let error = context.changes.takeDeferredError() { throw error }
        try context.throwReadFailures()
        try validate()
        if let parent = context.parent {
            try pushChanges(into: parent)
            return
        }
        let plan = SavePlan(context.changes)
        // Read before the commit makes the current values the committed ones.
        var keySets = ChangedKeySets()
        var updatedKeys: [ObjectID: Set<String>] = [:]
        for state in context.changes.updated.values.lazy.map(\._$state) where !state.isInserted && !state.isDeleted {
            let keys = keySets.changedKeys(of: state)
            if !keys.isEmpty { updatedKeys[state.id] = keys }
        }
        let written = try write(plan, updatedKeys: updatedKeys)
        commit(plan, newKeys: written.newKeys)
        for (state, slot) in written.unwritten {  // the merge policy kept the store's links: read them again
            state.toMany[slot] = .fault
            context.deletionPass?.forgetCachedMembers(of: state)
        }
        apply(written.resolutions)
        let didSave = DidSave(
            insertedObjectIDs: Set(plan.inserts.map(\.id)),
            updatedObjectIDs: written.updatedKeys,
            deletedObjectIDs: Set(plan.deletes.map(\.id)),
            author: context.name, sequence: written.sequence, date: written.date)
        context.coordinator.didCommit(didSave, from: context.inbox)
        context.didSaveObservers.post(didSave)
        context.postObjectsDidChange()  // objects the merge policy refreshed or found deleted
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
            for object in context.changes.changedObjects where !object._$state.hasRunWillSave {
                object._$state.hasRunWillSave = true
                notified.append(object)
                object.willSave()
            }
            guard notified.count > count else { return }
            context.processLocalChanges()
        }
    }

    // MARK: After commit

    /// Makes the saved state the context's committed state, and ends its unit of work. Runs only
    /// after the transaction committed.
    private func commit(_ plan: SavePlan, newKeys: [Int64: Int64]) {
        for state in plan.inserts {
            // An object brought back by undo after its deletion was saved has no new key: it keeps its own.
            if let key = newKeys[state.id.key] {
                let id = ObjectID(entity: state.entity, key: key, store: store.identity)
                context.registry.unregister(state.id)
                state.id = id
                context.registry.register(state)
            }
            state.version = 1
            state.isInserted = false
        }
        // Objects an undo can bring back must name the saved objects by their keys too.
        if !newKeys.isEmpty { context.undo?.noteSavedKeys(newKeys) }
        for object in plan.all {
            let state = object._$state
            state.forgetSavedPendingMembers()
            if !newKeys.isEmpty { state.remapTemporaryKeys(newKeys) }
            if state.isDeleted {
                context.registry.unregister(state.id)
                state.attach(to: nil)
                continue
            }
            if state.isUpdated && (state.hasColumnChanges || state.changesManyToMany) { state.version += 1 }
            state.isUpdated = false
            state.commit()
        }
        assert(
            context.changes.pendingDeletions.isEmpty && context.changes.rulesAwaitingRetry.isEmpty
                && context.changes.deferredErrors.isEmpty, "a save committed with work of its unit left undone")
        context.changes.clear()
        context.hasChangesSinceSave = false
        context.forgetStoredMarks()
        if !context.children.isEmpty {
            let deleted = Set(plan.deletes.map(\.id))
            for child in context.children.compactMap(\.context) { child.adoptParentSave(newKeys: newKeys, deleted: deleted) }
        }
        for object in plan.all { object.didSave() }
    }
}

/// What a save writes: the objects to insert, update and delete, in the order they changed.
struct SavePlan {
    var inserts: [ObjectState] = []
    var updates: [ObjectState] = []
    var deletes: [ObjectState] = []
    /// Objects whose to-many relationships changed.
    var relationshipChanges: [ObjectState] = []
    /// Every object the save concerns, for the steps after the commit.
    var all: [any Entity] = []

    /// The plan for a unit of work whose delete rules ran: an object inserted and deleted is not
    /// written, nor is an updated object whose changes a merge took back.
    init(_ changes: ChangeTracker) {
        for object in changes.inserted.values where !object._$state.isDeleted {
            inserts.append(object._$state)
            all.append(object)
        }
        for object in changes.updated.values where !object._$state.isDeleted && !object._$state.isInserted {
            let state = object._$state
            if state.hasColumnChanges || state.changesManyToMany { updates.append(state) }
            all.append(object)
        }
        for object in changes.deleted.values where !object._$state.isInserted {
            deletes.append(object._$state)
            all.append(object)
        }
        relationshipChanges = (inserts + changes.updated.values.map(\._$state))
            .filter { !$0.isDeleted && !$0.changedToMany.isEmpty }
    }
}

extension ObjectState {
    /// Whether a save of the object changes join-table rows: a versioned change of the object, since
    /// the rows carry no version of their own.
    var changesManyToMany: Bool {
        guard !changedToMany.isEmpty, let mapping else { return false }
        return changedToMany.keys.contains { mapping.toManyRelationships[$0].isManyToMany }
    }
}

extension ObjectState {
    /// Makes the to-many relationships that were never loaded, and changed only through inverses,
    /// faults again once a save wrote their changes: the store holds them now, and keeping them
    /// would mean remapping every new member's key (a country given 100 new moods rebuilt its sets).
    func forgetSavedPendingMembers() {
        for slot in toMany.indices {
            if case .pending = toMany[slot] { toMany[slot] = .fault }
        }
    }

    /// Replaces the temporary keys of saved objects among the object's links with their keys.
    func remapTemporaryKeys(_ newKeys: [Int64: Int64]) {
        replaceTemporaryKeys(newKeys)
        guard let store = context?.store.identity else { return }
        func remap(_ id: ObjectID) -> ObjectID {
            guard id.isTemporary, let key = newKeys[id.key] else { return id }
            return ObjectID(entity: id.entity, key: key, store: store)
        }
        for slot in toMany.indices {
            if case .loaded(let members) = toMany[slot], members.contains(where: \.isTemporary) {
                toMany[slot] = .loaded(OrderedSet(members.map(remap)))
            } else if case let .pending(added, removed) = toMany[slot] {
                toMany[slot] = .pending(added: OrderedSet(added.map(remap)), removed: Set(removed.map(remap)))
            }
        }
    }
}
