import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// Undo: what the context records for its ``ObjectUndoManager`` as its objects change, and how it
/// restores a recorded group.
///
/// Every change of an object's row goes through ``ObjectContext/markUpdated(_:property:)`` before
/// it is written, every change of a to-many relationship through the context's member changes,
/// and every insertion and deletion through ``ObjectContext/insertObject(_:)`` and
/// ``ObjectContext/deleteObject(_:)``: recording is a call at each of those places, made only when
/// an undo manager is set.
extension ObjectContext {
    /// The undo manager that records this context's changes; nil (the default) records nothing.
    ///
    /// An undo manager serves one context: giving it to this context takes it from the one it served.
    public var undoManager: ObjectUndoManager? {
        get { undo }
        set {
            guard newValue !== undo else { return }
            undo?.context = nil
            if let previous = newValue?.context, previous !== self { previous.undo = nil }
            newValue?.context = self
            undo = newValue
        }
    }

    // MARK: Recording

    /// Records the value of property `index` (an attribute or a to-one relationship) before its
    /// first change in the open group.
    func recordValueForUndo(of state: ObjectState, property index: Int) {
        guard let group = undo?.recordingGroup(), let object = state.object else { return }
        let position: Int
        let value: UndoRecord.Value
        switch state.entity.layout.slots[index] {
        case .attribute(let slot):
            position = slot
            value = .stored(state.value(atPosition: slot))
        case .toOne(let slot):
            position = state.entity.layout.attributeCount + slot
            value = .related(relatedObject(of: state, slot: slot))
        case .toMany:
            group.withRecord(of: object) { _ in }
            return
        }
        group.withRecord(of: object) { record in
            if record.values[position] == nil { record.values[position] = value }
        }
    }

    /// Records a change of to-many `slot`'s members; `order`, the members before it, for an
    /// ordered relationship whose members were loaded.
    func recordMembersForUndo(
        of state: ObjectState, slot: Int, added: [ObjectID], removed: [ObjectID], order: OrderedSet<ObjectID>? = nil
    ) {
        guard let group = undo?.recordingGroup(), let object = state.object else { return }
        let isOrdered = state.mapping?.toManyIsOrdered[slot] == true
        group.withRecord(of: object) { record in
            if isOrdered, let order, record.orders[slot] == nil {
                record.orders[slot] = order.compactMap { self.object(with: $0) }
            }
            for id in added { if let member = self.object(with: id) { record.noteAdded(member, slot: slot) } }
            for id in removed { if let member = self.object(with: id) { record.noteRemoved(member, slot: slot) } }
        }
    }

    /// Records that an object is inserted or deleted: restoring the group deletes it again, or
    /// brings it back. A deleted object's values and global ID are read now, while its row exists:
    /// an undo after the save writes the row again with them.
    func recordExistenceForUndo(of object: any Entity, wasLive: Bool) {
        guard let group = undo?.recordingGroup() else { return }
        let state = object._$state
        if wasLive {
            // What a deleted object is brought back with: its values, its members (the store
            // will not have them once the deletion is saved) and its global ID.
            if state.isFault { fulfillFault(state) }
            for slot in state.toMany.indices where state.toMany[slot].needsLoading { _ = members(of: state, slot: slot) }
            if !state.isInserted, state.globalID == nil { _ = state.loadedGlobalID }
        }
        group.withRecord(of: object) { record in
            if record.isLive == nil { record.isLive = wasLive }
        }
    }

    /// Closes the group of the event that ends (see ``ObjectUndoManager/groupsByEvent``).
    func endUndoEvent() {
        undo?.endEventGroup()
    }

    private func relatedObject(of state: ObjectState, slot: Int) -> (any Entity)? {
        state.relatedID(at: slot).flatMap { object(with: $0) }
    }

    // MARK: Restoring

    /// Gives every object of the group what the group recorded, and returns the group that takes
    /// this back (what a redo restores after an undo, and the reverse).
    ///
    /// Objects come back to life first, so that the links restored next can point to them; objects
    /// the group inserted leave last. Delete rules do not run: their effects are in the group.
    func restore(_ group: UndoGroup) -> UndoGroup {
        let inverse = UndoGroup(actionName: group.actionName)
        for (key, record) in group.records { inverse.records[key] = currentRecord(like: record) }
        for record in group.records.values where record.isLive == true { revive(record.object) }
        for record in group.records.values { restoreProperties(of: record) }
        for record in group.records.values where record.isLive == false { deleteWithoutRules(record.object) }
        for record in group.records.values { forgetChangesIfSaved(record.object._$state) }
        return inverse
    }

    /// Ends the changes of a saved object that an undo brought back to its saved values and
    /// members: undoing every edit since a save leaves nothing to save.
    private func forgetChangesIfSaved(_ state: ObjectState) {
        guard state.isUpdated, !state.isInserted, !state.isDeleted, state.context === self, state.unstorableValues.isEmpty,
            let mapping = state.mapping
        else { return }
        if state.hasColumnChanges { return }
        for (slot, change) in state.changedToMany {
            guard change.added.isEmpty, change.removed.isEmpty else { return }
            // An empty change of an ordered relationship is a change of order, unless the saved
            // order is back.
            if mapping.toManyIsOrdered[slot] {
                guard let saved = change.savedOrder, case .loaded(let members) = state.toMany[slot], members == saved else { return }
            }
        }
        state.committedValues = nil
        state.changedToMany = [:]
        state.isUpdated = false
        changes.updated[StateKey(state)] = nil
    }

    /// What the object has now of what `record` restores: the same positions, the opposite member
    /// changes, the current order and existence.
    private func currentRecord(like record: UndoRecord) -> UndoRecord {
        let state = record.object._$state
        var current = UndoRecord(object: record.object)
        let attributeCount = state.entity.layout.attributeCount
        for position in record.values.keys {
            current.values[position] =
                position < attributeCount
                ? .stored(state.value(atPosition: position))
                : .related(relatedObject(of: state, slot: position - attributeCount))
        }
        current.membersToAdd = record.membersToRemove
        current.membersToRemove = record.membersToAdd
        for slot in record.orders.keys {
            if case .loaded(let members) = state.toMany[slot] {
                current.orders[slot] = members.compactMap { object(with: $0) }
            }
        }
        if record.isLive != nil { current.isLive = isLive(state) }
        return current
    }

    private func restoreProperties(of record: UndoRecord) {
        let state = record.object._$state
        guard state.context === self else { return }
        for (position, value) in record.values.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .stored(let stored):
                setRowValue(stored, atPosition: position, of: state)
            case .related(let related):
                let key = related.flatMap { $0._$state.context === self ? $0._$state.id.key : nil }
                setRowValue(key.map { .integer($0) } ?? .null, atPosition: position, of: state)
            }
        }
        for (slot, members) in record.membersToRemove {
            for member in members.values where member._$state.context === self {
                removeMember(member._$state.id, from: state, slot: slot)
            }
        }
        for (slot, members) in record.membersToAdd {
            for member in members.values where member._$state.context === self {
                addMember(member._$state.id, to: state, slot: slot)
            }
        }
        for (slot, order) in record.orders {
            reorderMembers(of: state, slot: slot, to: OrderedSet(order.compactMap { $0._$state.context === self ? $0._$state.id : nil }))
        }
    }

    /// Brings back an object the group deleted: still in the context (deleted since the last save),
    /// it is undeleted; deleted and saved, it is inserted again with its ID and global ID (primary
    /// keys are never given twice, so its key is still its own).
    ///
    /// Either way its links may name objects inserted at the time by temporary keys, which saves
    /// made since replaced: a deleted object is left out of the saves that remap the others.
    private func revive(_ object: any Entity) {
        let state = object._$state
        let key = StateKey(state)
        if state.context === self {
            guard state.isDeleted, !state.isInaccessible else { return }
            state.isDeleted = false
            changes.deleted[key] = nil
            changes.pendingDeletions.removeAll { StateKey($0._$state) == key }
            changes.rulesAwaitingRetry.removeAll { StateKey($0.object._$state) == key }
            if changes.unposted.deleted.removeValue(forKey: key) == nil { changes.unposted.inserted[key] = object }
            // Inserted and deleted before a save, which dropped it from the unit of work.
            if state.isInserted, changes.inserted[key] == nil { changes.inserted[key] = object }
        } else {
            guard state.context == nil, state.isDeleted, !state.acceptsInitialValues, !state.id.isTemporary,
                let mapping = store.mapping(for: state.entity)
            else { return }
            if let stale = registry.state(for: state.id) {
                // A fault made for the deleted row since: it reads as gone, as it did.
                registry.unregister(stale.id)
                stale.attach(to: nil)
                stale.isInaccessible = true
            }
            state.attach(to: host(for: mapping))
            registry.register(state)
            state.isDeleted = false
            state.isInserted = true
            state.insertionIsPosted = false
            state.isUpdated = false
            state.committedValues = nil
            state.changedToMany = [:]
            changes.recordInsertion(of: object, key: key)
        }
        if let savedKeys = undo?.savedKeys, !savedKeys.isEmpty { state.remapTemporaryKeys(savedKeys) }
    }
}
