import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// Child contexts: scratchpads whose saves go into their parent, not the store.
///
/// A child starts with its parent's unsaved changes: each object the parent changed gets a copy
/// in the child, with the same ID (temporary keys are unique in the process, so an object the
/// parent inserted has the same ID in both), the same values and the same changes since the
/// store. The child's fetches, counts and aggregates therefore see what the parent shows, through
/// the same merge of SQL and memory as any context's unsaved changes. Later, an object the child
/// has not read yet (or holds as a fault) is faulted in through its ancestors, as in Core Data:
/// before each fetch the child copies what they changed since, and a fault it fires or a row it
/// reads takes the nearest ancestor's change instead. Everything else the child reads from the
/// store, and the saves of other contexts (the parent's included) are merged into it as into any
/// context.
///
/// Each copy keeps what it was when it came from the parent (``ParentBaseline``): saving the child
/// gives the parent's objects the child's own changes only, measured from it (see
/// `ObjectContext+SaveIntoParent`); the parent records them as its own unsaved changes, for its monitors,
/// its undo manager and its next save.
extension ObjectContext {
    /// A new child context: a scratchpad for an edit sheet, say. It sees this context's objects as
    /// they are now, unsaved changes included; its ``save()`` writes its changes into this context
    /// (not the store), and dropping it without saving leaves this context untouched.
    ///
    /// ```swift
    /// let sheet = context.newChildContext()
    /// let draft = try sheet.existingObject(with: mood.objectID, as: Mood.self)
    /// draft.text = "Sunny"
    /// try sheet.save()     // mood.text is "Sunny", unsaved in `context`
    /// try context.save()   // now in the store
    /// ```
    ///
    /// Use the child on this context's isolation: its save changes this context. What the child
    /// sees of this context's later changes, as a child of Core Data: an object the child has not
    /// read yet (or holds as a fault) shows this context's state when the child reads it, by ID,
    /// through a relationship or in a fetch; an object it has read keeps what it read until this
    /// context saves (merged like any save) or the child refreshes it (``refresh(_:mergeChanges:)``
    /// reads it from this context). A child's save gives this context only what the child changed,
    /// property by property and member by member: an edit this context made meanwhile to another
    /// property, or to another object, stays.
    public func newChildContext() -> ObjectContext {
        let use = beginUse()
        defer { use.end() }
        let child = ObjectContext(owner: owner, coordinator: coordinator, saveRules: nil, parent: self)
        child.name = name.map { "\($0) (child)" }
        children.removeAll { $0.context == nil }
        children.append(WeakContext(child))
        child.inheritChanges(of: self)
        return child
    }

    /// Copies the parent's changed objects into this context, as they are in the parent.
    func inheritChanges(of parent: ObjectContext) {
        var seen = Set<StateKey>()
        for object in parent.changes.changedObjects where seen.insert(StateKey(object._$state)).inserted {
            inherit(object._$state)
        }
        // Marks for deletion set or cleared in the parent count in the child too.
        for (index, keys) in parent.changes.unsavedMarks { changes.unsavedMarks[index, default: []].formUnion(keys) }
    }

    /// Copies what this child's ancestors changed since it was made, for the objects it has not read
    /// yet or holds as faults: before a fetch, count or aggregate, so that the merge of SQL and
    /// memory sees the parent's state as Core Data's child does. What the child has read keeps what
    /// it read, until a refresh or the parent's save.
    func catchUpWithAncestors() {
        guard parent != nil else { return }
        var seen = Set<ObjectID>()
        var ancestor = parent
        while let context = ancestor {
            for object in context.changes.changedObjects where seen.insert(object._$state.id).inserted {
                faultInFromAncestors(object._$state.id)
            }
            ancestor = context.parent
        }
    }

    /// Gives this child's object with `id` the state its nearest ancestor holding it changed has,
    /// when the child has not read the object yet (it holds nothing, or a fault with no change of
    /// its own): Core Data's child faults an object in through its parent. Returns the child's
    /// state; nil when nothing was copied (no ancestor changed it: the store's row is their view).
    @discardableResult
    func faultInFromAncestors(_ id: ObjectID) -> ObjectState? {
        guard parent != nil else { return nil }
        if let mine = registry.state(for: id), !mine.isFault || mine.isChangedHere { return nil }
        guard let source = nearestChangedState(for: id) else { return nil }
        return inherit(source)
    }

    /// The state of the object with `id` in the nearest ancestor that changed it; nil if an
    /// ancestor holds it read and unchanged first (its view is the store's), or none changed it.
    private func nearestChangedState(for id: ObjectID) -> ObjectState? {
        var ancestor = parent
        while let context = ancestor {
            if let state = context.registry.state(for: id) {
                if state.isChangedHere { return state }
                if !state.isFault { return nil }
            }
            ancestor = context.parent
        }
        return nil
    }

    /// Gives this child's object with `source`'s ID what the parent's object holds, recorded as
    /// what the child got from its parent.
    @discardableResult
    private func inherit(_ source: ObjectState) -> ObjectState? {
        guard let mapping = store.mapping(for: source.entity) else { return nil }
        let state: ObjectState
        let copy: any Entity
        if let registered = registry.state(for: source.id), let existing = registered.object {
            (state, copy) = (registered, existing)
        } else {
            copy = fault(for: source.id, mapping: mapping)
            state = copy._$state
        }
        if !source.isFault {
            state.load(source.values, version: source.version)
            state.committedValues = source.committedValues
        }
        state.globalID = source.globalID ?? state.globalID
        state.toMany = source.toMany
        state.changedToMany = source.changedToMany
        state.isInserted = source.isInserted
        state.insertionIsPosted = true
        state.isUpdated = source.isUpdated
        state.isDeleted = source.isDeleted
        state.parentBaseline = ParentBaseline(state)
        let key = StateKey(state)
        changes.inserted[key] = source.isInserted ? copy : nil
        changes.updated[key] = source.isUpdated ? copy : nil
        changes.deleted[key] = source.isDeleted ? copy : nil
        return state
    }

    /// Reads an object of this child from its ancestors again, for a refresh: what the nearest one
    /// holds changed, the child takes (keeping its own changes on top, with `keepingChanges`). False
    /// when this is no child, or no ancestor holds a change of the object: the store's values are
    /// then theirs.
    func refreshFromParent(_ state: ObjectState, keepingChanges: Bool) throws -> Bool {
        guard let source = nearestChangedState(for: state.id) else { return false }
        let own = keepingChanges ? OwnChanges(of: state) : nil
        inherit(source)
        if let own {
            try apply(own, to: state)
            if own.deletes, let object = state.object { deleteWithoutRules(object) }
        }
        return true
    }

    /// Whether an object of this child differs from the parent's object with its ID.
    func differs(_ state: ObjectState, from parent: ObjectContext) -> Bool {
        guard let other = parent.registry.state(for: state.id) else {
            // Unknown to the parent: a change, unless the child inserted and deleted it.
            return !(state.isInserted && state.isDeleted)
        }
        if state.isDeleted != other.isDeleted { return true }
        if state.isDeleted { return false }
        if !state.isFault, !other.isFault, state.values != other.values { return true }
        for slot in state.changedToMany.keys.sorted() where !sameMembers(state, other, slot: slot) { return true }
        return false
    }

    private func sameMembers(_ state: ObjectState, _ other: ObjectState, slot: Int) -> Bool {
        switch (state.toMany[slot], other.toMany[slot]) {
        case (.loaded(let mine), .loaded(let theirs)):
            let isOrdered = state.mapping?.toManyIsOrdered[slot] == true
            return isOrdered ? mine == theirs : Set(mine) == Set(theirs)
        default:
            let mine = state.changedToMany[slot], theirs = other.changedToMany[slot]
            return Set(mine?.added ?? []) == Set(theirs?.added ?? []) && mine?.removed == theirs?.removed
        }
    }

    /// Brings this child up to its parent's save: objects inserted in the parent take the keys the
    /// save gave them, links follow, the objects it deleted leave, and what the child holds as the
    /// parent saved it has no change left.
    func adoptParentSave(newKeys: AllocatedKeys, deleted: Set<ObjectID>) {
        guard let parent else { return }
        if !newKeys.isEmpty {
            registry.forEachState { state in
                state.remapTemporaryKeys(newKeys)
                guard state.id.isTemporary, let key = newKeys[state.id.key] else { return }
                registry.unregister(state.id)
                state.id = ObjectID(entity: state.entity, key: key, store: store.identity)
                registry.register(state)
                state.isInserted = false
                state.version = 1
            }
        }
        var seen = Set<StateKey>()
        var settled = Set<StateKey>()
        for object in changes.changedObjects where seen.insert(StateKey(object._$state)).inserted {
            let state = object._$state
            if state.isDeleted, deleted.contains(state.id) {
                registry.unregister(state.id)
                state.attach(to: nil)
            } else if !differs(state, from: parent) {
                state.isUpdated = false
                state.commit()
            } else {
                // Still changed here: inserted in the parent's save, it is an update now.
                if !state.isInserted, !state.isDeleted, changes.inserted[StateKey(state)] != nil {
                    state.isUpdated = true
                    changes.updated[StateKey(state)] = object
                    if let saved = parent.registry.state(for: state.id), !saved.isFault { state.committedValues = saved.values }
                }
                continue
            }
            settled.insert(StateKey(state))
        }
        guard !settled.isEmpty else { return }
        changes.inserted.removeAll { settled.contains($0.key) }
        changes.updated.removeAll { settled.contains($0.key) }
        changes.deleted.removeAll { settled.contains($0.key) }
        changes.inserted.removeAll { !$0.value._$state.isInserted }
    }
}

/// A context held without a reference count: a parent's list of its children.
struct WeakContext {
    weak var context: ObjectContext?

    init(_ context: ObjectContext) {
        self.context = context
    }
}
