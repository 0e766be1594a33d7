import OrderedCollections

/// A child context's save: its changes go into its parent's objects, not the store.
extension SaveOperation {
    /// Gives each object the child changed the same existence, values and members in the parent,
    /// through the parent's own change tracking: the parent records them as unsaved changes, posts
    /// them, and its undo manager records them. The child's delete rules already ran: their
    /// effects are among the changes, so the parent deletes without running them again.
    ///
    /// What can fail is read first (the parent's rows and members the copy needs), so that a failed
    /// read leaves the parent as it was. Then objects come to life in the parent, so that the links
    /// copied next find them; the deleted ones leave last.
    func pushChanges(into parent: ObjectContext) throws {
        var seen = Set<StateKey>()
        let changed = context.changes.changedObjects.filter { seen.insert(StateKey($0._$state)).inserted }.map(\._$state)
        let read = try parent.readWhatACopyNeeds(changed.filter { !$0.isDeleted })
        defer { withExtendedLifetime(read) {} }
        // The parent's objects, not their states: a state does not keep its object alive.
        var targets: [(source: ObjectState, target: any Entity)] = []
        for source in changed where !source.isDeleted {
            if let target = parent.adoptedObject(like: source) { targets.append((source, target)) }
        }
        for (source, target) in targets { try parent.copyProperties(of: source, into: target._$state) }
        for source in changed where source.isDeleted && !(source.isInserted && parent.registry.state(for: source.id) == nil) {
            guard let object = parent.object(with: source.id) else { continue }
            parent.deleteWithoutRules(object)
        }
        parent.postObjectsDidChange()
        context.hasChangesSinceSave = false
    }
}

extension ObjectContext {
    /// Loads the rows and to-many members of this context's saved objects that copying `sources`
    /// will write over, and returns the objects (kept alive until the copy is done).
    fileprivate func readWhatACopyNeeds(_ sources: [ObjectState]) throws -> [any Entity] {
        var read: [any Entity] = []
        for source in sources where !source.id.isTemporary {
            guard let target = object(with: source.id), !target._$state.isDeleted else { continue }
            read.append(target)
            if !source.isFault, target._$state.isFault { try loadFault(target._$state) }
            for slot in source.changedToMany.keys where !source.toMany[slot].needsLoading {
                _ = try loadedMembers(of: target._$state, slot: slot)
            }
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

    /// Gives `target` the values and members of a child's `source`, each changed one recorded as
    /// a change of this context.
    fileprivate func copyProperties(of source: ObjectState, into target: ObjectState) throws {
        if !source.isFault {
            if target.isFault { try loadFault(target) }
            for position in 0..<source.valueCount {
                setRowValue(source.value(atPosition: position), atPosition: position, of: target)
            }
        }
        for slot in source.changedToMany.keys.sorted() {
            switch source.toMany[slot] {
            case .loaded(let members):
                let current = try loadedMembers(of: target, slot: slot)
                for id in current where !members.contains(id) { removeMember(id, from: target, slot: slot) }
                for id in members where !current.contains(id) { addMember(id, to: target, slot: slot) }
                reorderMembers(of: target, slot: slot, to: members)
            case .pending(let added, let removed):
                for id in removed { removeMember(id, from: target, slot: slot) }
                for id in added { addMember(id, to: target, slot: slot) }
            case .fault:
                break
            }
        }
    }
}
