import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// A child context's save: its changes go into its parent's objects, not the store.
extension ObjectContext {
    /// Gives each object the child changed the child's own changes (``OwnChanges``: the properties,
    /// members and existence it changed since it got the object from the parent), through the
    /// parent's own change tracking: the parent records them as unsaved changes, posts them, and
    /// its undo manager records them. What the parent changed meanwhile, the child left alone, stays.
    /// The child's delete rules already ran: their effects are among the changes, so the parent
    /// deletes without running them again.
    ///
    /// What can fail is read first (the parent's rows and members the copy needs), so that a failed
    /// read leaves the parent as it was. Then objects come to life in the parent, so that the links
    /// copied next find them; the deleted ones leave last.
    func pushChanges(into parent: ObjectContext) throws {
        var seen = Set<StateKey>()
        let changed = changes.changedObjects.filter { seen.insert(StateKey($0._$state)).inserted }.map(\._$state)
        let own = changed.map { OwnChanges(of: $0) }
        let copied = zip(changed, own).filter { !$0.0.isDeleted && !$0.1.isEmpty }
        let read = try parent.readWhatACopyNeeds(copied)
        defer { withExtendedLifetime(read) {} }
        // The parent's objects, not their states: a state does not keep its object alive.
        var targets: [(changes: OwnChanges, target: any Entity)] = []
        for (source, changes) in copied {
            if let target = parent.adoptedObject(like: source) { targets.append((changes, target)) }
        }
        for (changes, target) in targets { try parent.apply(changes, to: target._$state) }
        for (source, changes) in zip(changed, own)
        where changes.deletes && !(source.isInserted && parent.registry.state(for: source.id) == nil) {
            guard let object = parent.object(with: source.id) else { continue }
            parent.deleteWithoutRules(object)
        }
        parent.postObjectsDidChange()
        // What the parent now has of each object: the base of the child's next changes.
        for state in changed { state.parentBaseline = ParentBaseline(state) }
        changes.hasChangesSinceSave = false
    }
}

extension ObjectContext {
    /// Loads the rows and to-many members of this context's saved objects that copying a child's
    /// changes will write over, and returns the objects (kept alive until the copy is done).
    fileprivate func readWhatACopyNeeds(_ copies: [(ObjectState, OwnChanges)]) throws -> [any Entity] {
        var read: [any Entity] = []
        for (source, changes) in copies where !source.id.isTemporary {
            guard let target = object(with: source.id), !target._$state.isDeleted else { continue }
            read.append(target)
            if !changes.values.isEmpty, target._$state.isFault { try loadFault(target._$state) }
            for slot in changes.orders.keys { _ = try loadedMembers(of: target._$state, slot: slot) }
        }
        return read
    }

    /// The live object of this context with the ID of a child's object: the registered one, a
    /// fault for a saved row, or a new inserted object for one the child inserted. Nil when the
    /// object is deleted here.
    fileprivate func adoptedObject(like source: ObjectState) -> (any Entity)? {
        if let registered = registry.state(for: source.id) {
            return registered.isDeleted ? nil : registered.object
        }
        guard let mapping = store.mapping(for: source.entity) else { return nil }
        if !source.id.isTemporary {
            return object(with: source.id)
        }
        let object = fault(for: source.id, mapping: mapping)  // registered under the child's temporary ID
        let state = object._$state
        state.load(source.values, version: 0)
        state.globalID = source.globalID
        state.toMany = source.entity.layout.newToMany
        state.isInserted = true
        state.insertionIsPosted = false
        changes.recordInsertion(of: object, key: StateKey(state))
        if undo != nil { recordExistenceForUndo(of: object, wasLive: false) }
        return object
    }
}
