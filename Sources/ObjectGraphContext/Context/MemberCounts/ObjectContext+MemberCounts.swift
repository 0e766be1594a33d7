import Algorithms
import ObjectGraphModel
import ObjectGraphStore

/// Counting, in a deletion pass, the members of to-many relationships that are not loaded, without
/// loading them: the store's index gives the keys of the rows that name the owners, and the context
/// corrects them for what it has not saved.
///
/// A pass deleting many objects whose rules count (Moody's, the moods of each deleted mood's
/// country) would otherwise load every counted relationship. The first count of a relationship in
/// the pass reads the keys of the owners of every object deleted so far, in one read; each count
/// is then the one loading the members would give (see ``ObjectState/liveMemberCount(of:)``): the
/// keys as stored, less the members removed here, plus those added here, less the objects deleted
/// here and those marked for deletion as this context sees them. No ID is made per member, no
/// ordered set built, and the relationships stay unloaded (a deletion that nullifies one records
/// a removal, not a change of 100 members). A count of one owner alone loads its members as before.
extension ObjectContext {
    /// The live members, not marked for deletion, of to-many `slot` (property `property`) of a saved
    /// object whose members are not loaded, counted as described above. Nil when they are not
    /// counted so (outside a pass, or one owner alone; a child context, whose store is its parent's
    /// objects; a join table; a destination with subentities) or a read failed: the caller then
    /// loads the members and counts those, and reports a failure that persists.
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

    /// The keys of the rows naming `state`'s object in the store, read in a deletion pass together
    /// with those of the other owners its deleted objects point to, and kept for the pass. Nil
    /// outside a pass, or when the pass counts this owner alone: loading its members then costs
    /// little more than reading their keys, and a loaded relationship follows the context's
    /// changes and saves, where keys would be read again for every deletion (a country of 10,000
    /// moods deleted one mood at a time).
    private func storedMemberKeys(of state: ObjectState, relationship: RelationshipMapping) throws -> [Int64]? {
        let owner = state.id.key
        guard let pass = deletionPass else { return nil }
        let id = ObjectIdentifier(relationship)
        if let kept = pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: owner)] { return kept }
        var owners: Set<Int64> = [owner]
        owners.formUnion(
            pass.countableOwners(of: relationship).lazy.filter {
                pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: $0)] == nil
            })
        guard owners.count > 1 else { return nil }
        // The keys as the relationship's load reads them, no ID made of any.
        var read: [Int64: [Int64]] = [:]
        for chunk in owners.sorted().chunks(ofCount: SQL.inlineListLimit) {
            read.merge(try store.reader.members(of: relationship, owners: Array(chunk)) { $0 }) { stored, _ in stored }
        }
        for counted in owners {
            pass.memory.storedMembers[DeletionPass.StoredMembersKey(relationship: id, owner: counted)] = read[counted] ?? []
        }
        return read[owner] ?? []
    }
}
