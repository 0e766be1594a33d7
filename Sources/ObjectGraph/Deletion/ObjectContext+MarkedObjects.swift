/// Hiding objects marked for deletion (``DelayedDeletable``) from relationship reads and from the
/// unsaved objects a fetch merges in.
///
/// Whether an object is marked is read from the object when it is loaded in this context (so an
/// unsaved mark counts at once), and otherwise from the store's list of marked rows of its entity,
/// read once and kept until the context's view of the store changes (a merge, a save, a rollback).
/// Reading a relationship therefore costs no query per member, nor faulting the members in.
extension ObjectContext {
    /// Whether an object is marked for deletion, as this context sees it.
    func isMarkedForDeletion(_ state: ObjectState, markedSlot slot: Int, markedKeys: () throws -> Set<Int64>) rethrows -> Bool {
        if !state.isFault { return !state.value(atPosition: slot).isNull }
        return try markedKeys().contains(state.id.key)
    }

    /// The members of a relationship that are not marked for deletion. When the store's marks
    /// cannot be read, the failure is recorded for `owner` (the next save throws it) and nothing is
    /// hidden.
    func unmarked(_ ids: [ObjectID], destination: EntityDeclaration, owner: ObjectState, property: String) -> [ObjectID] {
        guard let mapping = store.mapping(for: destination), let slot = mapping.markedForDeletionSlot, !ids.isEmpty else {
            return ids
        }
        do {
            var marked: Set<Int64>?
            let keys = { () throws -> Set<Int64> in
                if let marked { return marked }
                let loaded = try self.markedKeys(of: mapping)
                marked = loaded
                return loaded
            }
            return try ids.filter { id in
                guard let state = registry.state(for: id) else { return try !keys().contains(id.key) }
                return try !isMarkedForDeletion(state, markedSlot: slot, markedKeys: keys)
            }
        } catch {
            _ = recordReadFailure(error, of: owner, property: property)
            return ids
        }
    }

    /// Whether a to-one relationship's object is hidden because it is marked for deletion.
    func isHiddenAsMarked(_ id: ObjectID, owner: ObjectState, property: String) -> Bool {
        unmarked([id], destination: id.entity, owner: owner, property: property).isEmpty
    }

    /// The keys of an entity's rows marked in the store, read once per view of the store.
    private func markedKeys(of mapping: EntityMapping) throws -> Set<Int64> {
        if let cached = markedKeysCache[mapping.index] { return cached }
        let keys = Set(try store.reader.markedKeys(of: mapping))
        markedKeysCache[mapping.index] = keys
        return keys
    }
}

extension RowReader {
    /// The keys of the rows of a ``DelayedDeletable`` entity that are marked for deletion.
    func markedKeys(of mapping: EntityMapping) throws -> [Int64] {
        guard let slot = mapping.markedForDeletionSlot else { return [] }
        return try keys(SQLFragment(
            "SELECT Z_PK FROM \(mapping.table) WHERE \(mapping.quotedAttributeColumns[slot]) IS NOT NULL"))
    }
}
