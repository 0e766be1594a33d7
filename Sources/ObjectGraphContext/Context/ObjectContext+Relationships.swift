import Algorithms
package import ObjectGraphModel
import ObjectGraphStore
import OrderedCollections

/// Keeping both sides of every relationship consistent: setting `mood.country = france` puts the mood in
/// `france.moods` and takes it out of its old country's, at once.
extension ObjectContext {

    /// The ID to store for a related object, inserting it first if it is new; nil, with the error
    /// recorded for the next save, for an object of another context (or of none any more).
    private func adopt(_ object: any Entity) -> ObjectID? {
        let state = object._$state
        if state.context == nil, state.acceptsInitialValues { insertObject(object) }
        guard state.context === self else {
            changes.deferredErrors.append(.wrongContext(state.id, action: "related to an object of this context"))
            return nil
        }
        return state.id
    }

    func setToOne(_ state: ObjectState, slot: Int, to newValue: (any Entity)?) {
        guard let mapping = state.mapping, slot < mapping.toOneRelationships.count else { return }
        let relationship = mapping.toOneRelationships[slot]
        if state.isFault {
            // An object that cannot be read cannot be relinked: its current partner is unknown.
            fulfillFault(state)
            guard !state.isFault else { return }
        }
        var newID: ObjectID?
        if let newValue {
            guard let adopted = adopt(newValue) else { return }  // refused, and recorded
            newID = adopted
        }
        let oldID = state.relatedID(at: slot)
        guard oldID?.key != newID?.key else { return }
        willChange(state, property: relationship.propertyIndex)
        state.setRelated(newID, at: slot)
        if let oldID, let old = object(with: oldID) {
            removeLink(to: state.id, from: old._$state, relationship: relationship)
        }
        if let newID, let new = object(with: newID) {
            addLink(to: state, in: new._$state, relationship: relationship)
        }
    }

    func setToMany(_ state: ObjectState, slot: Int, to newMembers: [any Entity]) {
        guard let mapping = state.mapping, slot < mapping.toManyRelationships.count else { return }
        let relationship = mapping.toManyRelationships[slot]
        let oldIDs: OrderedSet<ObjectID>
        do {
            oldIDs = OrderedSet(try loadedMembers(of: state, slot: slot))
        } catch {
            // The members that would leave are unknown: the change is refused, and the recorded
            // failure makes the next save fail.
            return
        }
        var newIDs = OrderedSet<ObjectID>()
        for member in newMembers {
            guard let id = adopt(member) else { return }  // refused whole, and recorded
            newIDs.append(id)
        }
        guard newIDs != oldIDs else { return }
        if undo != nil {
            recordMembersForUndo(
                of: state, slot: slot, added: newIDs.filter { !oldIDs.contains($0) },
                removed: oldIDs.filter { !newIDs.contains($0) }, order: oldIDs)
        }
        markUpdated(state, property: relationship.propertyIndex)
        beginMemberChanges(of: state, slot: slot)  // order counts too
        state.toMany[slot] = .loaded(newIDs)
        for id in oldIDs where !newIDs.contains(id) {
            state.changedToMany[slot]?.remove(id)
            guard let member = object(with: id) else { continue }
            removeLink(to: state.id, from: member._$state, relationship: relationship)
        }
        for id in newIDs where !oldIDs.contains(id) {
            state.changedToMany[slot]?.add(id)
            guard let member = object(with: id) else { continue }
            addLink(to: state, in: member._$state, relationship: relationship)
        }
    }

    /// Removes `id` from the inverse of `relationship` held by `related`.
    private func removeLink(to id: ObjectID, from related: ObjectState, relationship: RelationshipMapping) {
        if relationship.inverseIsToMany {
            removeMember(id, from: related, slot: relationship.inverseSlot)
        } else {
            if related.isFault { fulfillFault(related) }
            guard related.relatedKey(at: relationship.inverseSlot) == id.key else { return }
            willChange(related, property: relationship.inversePropertyIndex)
            related.setRelated(nil, at: relationship.inverseSlot)
        }
    }

    /// Makes `related`'s inverse of `relationship` point to `state`, unlinking whatever it pointed to.
    private func addLink(to state: ObjectState, in related: ObjectState, relationship: RelationshipMapping) {
        if relationship.inverseIsToMany {
            addMember(state.id, to: related, slot: relationship.inverseSlot)
            return
        }
        if related.isFault { fulfillFault(related) }
        let inverseSlot = relationship.inverseSlot
        let previous = related.relatedID(at: inverseSlot)
        guard previous?.key != state.id.key else { return }
        willChange(related, property: relationship.inversePropertyIndex)
        related.setRelated(state.id, at: inverseSlot)
        // `related` leaves its previous partner, whose side of this relationship must forget it.
        guard let previous, let partner = object(with: previous) else { return }
        let partnerState = partner._$state
        if relationship.isToMany {
            if let slot = partnerState.mapping?.toManyRelationships.firstIndex(where: { $0.name == relationship.name }) {
                removeMember(related.id, from: partnerState, slot: slot)
            }
        } else if let slot = partnerState.mapping?.toOneRelationships.firstIndex(where: { $0.name == relationship.name }) {
            if partnerState.isFault { fulfillFault(partnerState) }
            if partnerState.relatedKey(at: slot) == related.id.key {
                willChange(partnerState, property: partnerState.entity.layout.toOneProperties[slot])
                partnerState.setRelated(nil, at: slot)
            }
        }
    }

    /// Writes one value of an object's row (an attribute's, or a to-one relationship's key) as a
    /// change, leaving the relationship's inverse alone: for changes that carry the other side too
    /// (an undo, a child context's save).
    func setRowValue(_ value: StoredValue, atPosition position: Int, of state: ObjectState) {
        guard state.value(atPosition: position) != value else { return }
        let layout = state.entity.layout
        let property = layout.valueProperties[position]
        if position < layout.attributeCount {
            state.setStoredAttribute(value, at: property)
        } else if willChange(state, property: property) {
            state.write(value, atPosition: position)
        }
    }

    /// Puts the members of a loaded to-many relationship in `order`, when it holds the same members
    /// in another order.
    func reorderMembers(of state: ObjectState, slot: Int, to order: OrderedSet<ObjectID>) {
        guard case .loaded(let members) = state.toMany[slot], members != order, Set(members) == Set(order) else { return }
        markUpdated(state, property: state.entity.layout.toManyProperties[slot])
        beginMemberChanges(of: state, slot: slot)  // order counts
        state.toMany[slot] = .loaded(order)
    }

    /// Removes the delete-rule target's link back to a deleted object.
    func removeInverse(of deleted: ObjectState, relationship: RelationshipMapping, from related: ObjectState) {
        removeLink(to: deleted.id, from: related, relationship: relationship)
    }

    func addMember(_ id: ObjectID, to owner: ObjectState, slot: Int) {
        guard slot < owner.toMany.count else { return }
        let ordered = orderBeforeChange(of: owner, slot: slot)
        guard owner.toMany[slot].insert(id) else { return }
        if undo != nil { recordMembersForUndo(of: owner, slot: slot, added: [id], removed: [], order: ordered) }
        if let ordered, owner.changedToMany[slot] == nil { owner.changedToMany[slot] = MemberChanges(savedOrder: ordered) }
        owner.changedToMany[slot, default: MemberChanges()].add(id)
        markUpdated(owner, property: owner.entity.layout.toManyProperties[slot])
    }

    func removeMember(_ id: ObjectID, from owner: ObjectState, slot: Int) {
        guard slot < owner.toMany.count else { return }
        let ordered = orderBeforeChange(of: owner, slot: slot)
        guard owner.toMany[slot].remove(id) else { return }
        // The order, so that an undo puts the member back in its place, not last.
        if undo != nil { recordMembersForUndo(of: owner, slot: slot, added: [], removed: [id], order: ordered) }
        if let ordered, owner.changedToMany[slot] == nil { owner.changedToMany[slot] = MemberChanges(savedOrder: ordered) }
        owner.changedToMany[slot, default: MemberChanges()].remove(id)
        markUpdated(owner, property: owner.entity.layout.toManyProperties[slot])
    }

    /// The members of an ordered, loaded to-many relationship before a change, for an undo to put
    /// them back in order and tell when they are as saved; nil without an undo manager (which
    /// costs a member change one test), or for another relationship (no order to keep).
    private func orderBeforeChange(of state: ObjectState, slot: Int) -> OrderedSet<ObjectID>? {
        guard undo != nil, state.mapping?.toManyIsOrdered[slot] == true, case .loaded(let members) = state.toMany[slot] else {
            return nil
        }
        return members
    }

    /// Records that to-many `slot` changes, if nothing recorded it since the last save: with its
    /// saved order, for an ordered relationship loaded now.
    private func beginMemberChanges(of state: ObjectState, slot: Int) {
        guard state.changedToMany[slot] == nil else { return }
        state.changedToMany[slot] = MemberChanges(savedOrder: orderBeforeChange(of: state, slot: slot))
    }

    /// The members of a to-many relationship, for an accessor that cannot throw: loaded from the
    /// store the first time. When they cannot be read, the relationship stays unloaded, the failure
    /// is recorded (see ``readFailures``), and the members known in memory are returned.
    package func members(of state: ObjectState, slot: Int) -> [ObjectID] {
        do {
            return try loadedMembers(of: state, slot: slot)
        } catch {
            return state.toMany[slot].members
        }
    }

    /// The members of a to-many relationship, loading them from the store the first time; a failed
    /// read is recorded and thrown, and leaves the relationship unloaded.
    func loadedMembers(of state: ObjectState, slot: Int) throws -> [ObjectID] {
        guard slot < state.toMany.count else { return [] }
        if case .loaded(let members) = state.toMany[slot] { return members.elements }
        if let mapping = state.mapping {
            let relationship = mapping.toManyRelationships[slot]
            do {
                try loadMembers(of: [state], slot: slot, relationship: relationship)
            } catch {
                throw recordReadFailure(error, of: state, property: relationship.name)
            }
        }
        // A new object has nothing stored: what is known in memory is all there is.
        state.toMany[slot].resolve(stored: [])
        return state.toMany[slot].members
    }

    /// Loads the members of one to-many relationship of several objects of the same entity, a query
    /// per chunk of owners, and merges the changes each object made before they were loaded.
    func loadMembers(of owners: [ObjectState], slot: Int, relationship: RelationshipMapping) throws {
        for chunk in owners.chunks(ofCount: SQL.inlineListLimit) {
            try loadMembers(ofChunk: Array(chunk), slot: slot, relationship: relationship)
        }
    }

    private func loadMembers(ofChunk owners: [ObjectState], slot: Int, relationship: RelationshipMapping) throws {
        let saved = owners.lazy.filter { !$0.id.isTemporary }.map(\.id.key)
        let destination = store.mappings[relationship.destination].declaration
        let identity = store.identity
        var membersByOwner = try store.reader.members(of: relationship, owners: Array(saved)) {
            ObjectID(entity: destination, key: $0, store: identity)
        }
        let destinationMapping = store.mappings[relationship.destination]
        if destinationMapping.hierarchy?.hasSubentities == true {
            // Members of subentities, maybe: each of its own class, its row's.
            let all = membersByOwner.values.flatMap { $0 }
            let concrete = Dictionary(
                zip(all.map(\.key), concreteIDs(all, of: destinationMapping)), uniquingKeysWith: { first, _ in first })
            membersByOwner = membersByOwner.mapValues { $0.map { concrete[$0.key] ?? $0 } }
        }
        for owner in owners where owner.toMany[slot].needsLoading {
            owner.toMany[slot].resolve(stored: membersByOwner[owner.id.key] ?? [])
            forgetReadFailure(of: owner)
        }
    }
}
