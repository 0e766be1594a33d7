/// Hiding objects marked for deletion (``DelayedDeletable``) from relationship reads and from the
/// unsaved objects a fetch merges in.
///
/// An object is marked as this context sees it: by its own value when its mark was set or cleared
/// here and not saved yet, otherwise by the store's list of marked rows of its entity, read once
/// (through the mark's index) and kept until the context's view of the store changes (a merge, a
/// save, a rollback). Reading a relationship therefore costs no query per member and loads no
/// member; when nothing of the entity is marked, it costs nothing beyond the read of that list.
extension ObjectContext {
    /// The members of a relationship that are not marked for deletion. When the store's marks
    /// cannot be read, the failure is recorded for `owner` (the next save throws it) and nothing is
    /// hidden.
    func unmarked(_ ids: [ObjectID], destination: EntityDeclaration, owner: ObjectState, property: String) -> [ObjectID] {
        guard let mapping = store.mapping(for: destination), let slot = mapping.markedForDeletionSlot, !ids.isEmpty else {
            return ids
        }
        let stored: Set<Int64>
        do {
            stored = try markedKeys(of: mapping)
        } catch {
            _ = recordReadFailure(error, of: owner, property: property)
            return ids
        }
        let unsaved = unsavedMarks[mapping.index] ?? []
        if stored.isEmpty && unsaved.isEmpty { return ids }
        func isMarked(_ id: ObjectID) -> Bool {
            if !unsaved.isEmpty, unsaved.contains(id.key), let state = registry.state(for: id), !state.isFault {
                return !state.value(atPosition: slot).isNull
            }
            return stored.contains(id.key)
        }
        // Most relationships hide nothing: they are returned as they are, without a copy.
        guard let firstMarked = ids.firstIndex(where: isMarked) else { return ids }
        var shown: [ObjectID] = []
        shown.reserveCapacity(ids.count - 1)
        shown.append(contentsOf: ids[..<firstMarked])
        for id in ids[(firstMarked + 1)...] where !isMarked(id) { shown.append(id) }
        return shown
    }

    /// Notes that an object's mark was set or cleared and not saved yet: reads go by its value.
    func noteUnsavedMark(of state: ObjectState, mapping: EntityMapping) {
        unsavedMarks[mapping.index, default: []].insert(state.id.key)
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
