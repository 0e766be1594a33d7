import ObjectGraphModel
import ObjectGraphStore

/// Counting the members of a to-many relationship that is not loaded, without reading them: the
/// store counts its rows through the foreign key's index, and the context corrects that number for
/// what it has not saved.
///
/// The store counts the rows naming the owner in its foreign key's index alone; those marked for
/// deletion as this context last read the marks (what relationship reads hide) are taken off by
/// owner, their owners read once per view of the store. Beyond that, only objects whose state
/// here differs from their row can make the numbers differ: members added or removed here (the
/// relationship's pending changes), and objects deleted here or whose mark was set or cleared
/// here. Each of them is looked up (``StoredOwnerCache``): what the store's count held of it is
/// taken off, what this context shows of it is added. The answer is the one counting the loaded
/// members gives (see ``ObjectState/liveMemberCount(of:)``), at the cost of one counting query
/// and a lookup of the rows changed or marked, not of every member.
extension ObjectContext {
    /// The live members, not marked for deletion, of to-many `slot` (property `property`) of a saved
    /// object whose members are not loaded, counted as described above. Nil when they cannot be
    /// counted so (a child context, whose store is its parent's objects; a join table; a destination
    /// in a hierarchy) or a read failed: the caller then loads the members and counts those, and
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
        do {
            // The store's count, less its rows marked as this context last read the marks.
            guard var count = try storedMemberCount(of: state, relationship: relationship, destination: destination, marked: marks?.stored)
            else { return nil }
            guard let hidden = try hiddenMembers(of: relationship, destination: destination) else { return nil }
            var candidates = pending.added.union(pending.removed)
            if let deletedOrMarked = hidden[state.id.key] { candidates.formUnion(deletedOrMarked) }
            guard !candidates.isEmpty else { return count }
            guard let owners = try storedOwners.owners(of: relationship, keys: candidates, reader: store.reader) else { return nil }
            for key in candidates {
                let isStoredMember = key >= 0 && owners[key] == .some(state.id.key)
                let storeCountedIt = isStoredMember && marks?.stored.contains(key) != true
                let isMember = pending.added.contains(key) || (isStoredMember && !pending.removed.contains(key))
                var isShown = isMember
                if isShown {
                    let id = ObjectID(entity: destination.declaration, key: key, store: key < 0 ? nil : store.identity)
                    isShown = !registry.isDeleted(id) && (marks.map { !isMarked(id, $0) } ?? true)
                }
                count += (isShown ? 1 : 0) - (storeCountedIt ? 1 : 0)
            }
            return count
        } catch {
            return nil
        }
    }

    /// The store's count of an object's members, leaving out the rows of `marked`. A deletion pass
    /// keeps it, and counts it together with those of the other owners its deleted objects point
    /// to, in one read.
    private func storedMemberCount(
        of state: ObjectState, relationship: RelationshipMapping, destination: EntityMapping, marked: MarkedKeySet?
    ) throws -> Int? {
        let owner = state.id.key
        let id = ObjectIdentifier(relationship)
        if let kept = deletionPass?.memory.storedMemberCounts[DeletionPass.StoredCountKey(relationship: id, owner: owner)] {
            return kept
        }
        var owners: Set<Int64> = [owner]
        if let pass = deletionPass {
            owners.formUnion(
                pass.countableOwners(of: relationship).lazy.filter {
                    pass.memory.storedMemberCounts[DeletionPass.StoredCountKey(relationship: id, owner: $0)] == nil
                })
        }
        guard var counts = try store.reader.storedMemberCounts(of: relationship, owners: owners.sorted()) else { return nil }
        if let marked, !marked.isEmpty, let markColumn = destination.quotedMarkColumn {
            guard
                let markedCounts = try storedOwners.markedCounts(
                    of: relationship, marked: marked, markColumn: markColumn, reader: store.reader)
            else { return nil }
            for (counted, markedCount) in markedCounts where counts[counted] != nil { counts[counted]? -= markedCount }
        }
        if let pass = deletionPass {
            for (counted, count) in counts {
                pass.memory.storedMemberCounts[DeletionPass.StoredCountKey(relationship: id, owner: counted)] = count
            }
        }
        return counts[owner]
    }

    /// The saved objects of a one-to-many relationship's destination that this context deleted, or
    /// whose mark it set or cleared, by the owner their row names in the store: those whose state
    /// here may differ from what the store counts. Kept while a deletion pass runs, until an object
    /// of the destination is deleted or undeleted, or a mark changes.
    private func hiddenMembers(of relationship: RelationshipMapping, destination: EntityMapping) throws -> [Int64: [Int64]]? {
        let id = ObjectIdentifier(relationship)
        if let kept = deletionPass?.memory.hiddenMembers[id] { return kept.byOwner }
        var keys = registry.deletedKeys(of: destination.declaration).filter { $0 >= 0 }
        if let marked = changes.unsavedMarks[destination.index] { keys += marked.lazy.filter { $0 >= 0 } }
        var byOwner: [Int64: [Int64]] = [:]
        if !keys.isEmpty {
            guard let owners = try storedOwners.owners(of: relationship, keys: keys, reader: store.reader) else { return nil }
            for key in keys {
                if case let owner?? = owners[key] { byOwner[owner, default: []].append(key) }
            }
        }
        deletionPass?.memory.hiddenMembers[id] = (destination.index, byOwner)
        return byOwner
    }
}
