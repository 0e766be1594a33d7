import ObjectGraphModel
import ObjectGraphStore

/// Counting the members of a to-many relationship that is not loaded, without loading it: the
/// store's index gives the keys of the rows that name the owner, and the context corrects them for
/// what it has not saved.
///
/// The count is the one loading the members would give (see ``ObjectState/liveMemberCount(of:)``):
/// the keys as stored, less the members removed here, plus those added here, less the objects
/// deleted here and those marked for deletion as this context sees them. What it saves is the
/// rest of a load: no ID made per member, no ordered set built, the relationship left unloaded
/// (a deletion that nullifies it then records a removal, not a change of 100 members). In a
/// deletion pass, the first count of a relationship reads the members of the owners of every
/// object deleted so far, in one read, where the rules would otherwise ask one owner at a time.
extension ObjectContext {
    /// The live members, not marked for deletion, of to-many `slot` (property `property`) of a saved
    /// object whose members are not loaded, counted as described above. Nil when they cannot be
    /// counted so (a child context, whose store is its parent's objects; a join table; a destination
    /// with subentities) or a read failed: the caller then loads the members and counts those, and
    /// reports a failure that persists.
    func countUnloadedMembers(of state: ObjectState, slot: Int, property: Int) -> Int? {
        guard parent == nil, !state.id.isTemporary, let mapping = state.mapping else { return nil }
        let pending: (added: Set<Int64>, removed: Set<Int64>)
        switch state.toMany[slot] {
        case .loaded: return nil
        case .fault: pending = ([], [])
        case .pending(let added, let removed): pending = (Set(added.lazy.map(\.key)), Set(removed.lazy.map(\.key)))
        }
        let relationship = mapping.toManyRelationships[slot]
        let destination = store.mappings[relationship.destination]
        guard destination.hierarchy == nil, case .inverseForeignKey = relationship.storage else { return nil }
        let marks: Marks?
        switch markedMembers(of: destination.declaration, owner: state, property: state.entity.properties[property].name) {
        case .noneHidden: marks = nil
        case .hidden(let known): marks = known
        case .unreadable: return nil
        }
        let stored: [Int64]
        do {
            guard let keys = try storedMemberKeys(of: state, relationship: relationship) else { return nil }
            stored = keys
        } catch {
            return nil
        }
        let identity = store.identity
        func isShown(_ key: Int64) -> Bool {
            let id = ObjectID(entity: destination.declaration, key: key, store: key < 0 ? nil : identity)
            return !registry.isDeleted(id) && marks.map { !isMarked(id, $0) } ?? true
        }
        var count = 0
        if pending.added.isEmpty && pending.removed.isEmpty {
            for key in stored where isShown(key) { count += 1 }
            return count
        }
        // A member added here may be stored too (moved away and back): counted once, as added.
        for key in stored where !pending.removed.contains(key) && !pending.added.contains(key) && isShown(key) { count += 1 }
        for key in pending.added where isShown(key) { count += 1 }
        return count
    }

    /// The keys of the rows naming `state`'s object in the store. A deletion pass keeps them, and
    /// reads them together with those of the other owners its deleted objects point to.
    private func storedMemberKeys(of state: ObjectState, relationship: RelationshipMapping) throws -> [Int64]? {
        let owner = state.id.key
        guard let pass = deletionPass else { return try store.reader.storedMemberKeys(of: relationship, owners: [owner])?[owner] ?? [] }
        let id = ObjectIdentifier(relationship)
        if let kept = pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: owner)] { return kept }
        var owners: Set<Int64> = [owner]
        owners.formUnion(
            pass.countableOwners(of: relationship).lazy.filter {
                pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: $0)] == nil
            })
        guard let read = try store.reader.storedMemberKeys(of: relationship, owners: owners.sorted()) else { return nil }
        for counted in owners {
            pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: counted)] = read[counted] ?? []
        }
        return read[owner] ?? []
    }
}
