import Foundation
import ObjectGraphModel
import ObjectGraphStore

/// A save's transaction: rows, links and the history record, all or nothing.
///
/// It holds what the transaction needs and nothing of the context: the store, who saves (the
/// history's author and origin) and the merge policy. The context hands it a ``SavePlan`` with the
/// keys each update changes, and gets back a ``WrittenPlan``, which it applies to its objects once
/// the transaction committed.
struct SaveTransaction {
    let store: SQLiteStore
    /// The history record's author: the context's name.
    let author: String?
    /// The history record's origin: the container's (see ``StoreCoordinator/origin``).
    let origin: UUID
    /// What a conflict keeps, read as the save began.
    let mergePolicy: MergePolicy
}

extension SaveTransaction {
    /// What a plan's transaction wrote.
    struct WrittenPlan {
        /// The primary keys given to inserted objects, by temporary key.
        var newKeys: AllocatedKeys
        /// The conflicts the merge policy resolved.
        var resolutions: [ConflictResolution]
        /// The relationships whose changes the merge policy discarded.
        var unwritten: [(ObjectState, slot: Int)]
        /// The updated objects, with the properties actually written.
        var updatedKeys: [ObjectID: Set<String>]
        /// The transaction's record in the history.
        var sequence: Int64
        var date: Date
    }

    /// Runs the plan in one transaction, with its record in the persistent history.
    func write(_ plan: SavePlan, updatedKeys: [ObjectID: Set<String>]) throws -> WrittenPlan {
        do {
            return try store.write { writer in
                let date = Date()
                let sequence = try writer.recordTransaction(author: author, date: date, origin: origin)
                let inserts = byEntity(plan.inserts)
                for (mapping, group) in inserts {
                    // An object brought back by undo after its deletion was saved keeps its key.
                    try writer.allocateKeys(group.map(\.id.key).filter { $0 < 0 }, for: mapping)
                }
                // Deletions, then updates, then insertions: a unique value that a deleted or updated
                // row gives up can be taken by another row of the same save.
                for (mapping, group) in byEntity(plan.deletes) {
                    try writer.delete(keys: KeySelection(group.map(\.id.key)), mapping: mapping)
                }
                try releaseUniqueValues(of: plan.updates, writer)
                var conflicts: [SaveConflict] = []
                var resolutions: [ConflictResolution] = []
                for state in plan.updates {
                    guard let conflict = try updateRow(state, writer) else { continue }
                    if mergePolicy == .error {
                        conflicts.append(conflict)
                    } else {
                        resolutions.append(try resolve(state, writer))
                    }
                }
                if !conflicts.isEmpty { throw ObjectGraphError.conflict(conflicts) }
                var written = updatedKeys
                for resolution in resolutions { resolution.removeUnwrittenKeys(from: &written) }
                recordUpdates(written, writer)
                for state in plan.inserts {
                    guard let mapping = state.mapping else { continue }
                    try writer.insert(state, id: state.id, globalID: state.globalID ?? GlobalIDs.next(), mapping: mapping)
                }
                // Links and positions once every row exists: an ordered member inserted by this
                // save gets its position (an UPDATE of a row not written yet changes nothing).
                let unwritten = try writeToMany(
                    plan.relationshipChanges, resolutions: RelationshipResolutions(policy: mergePolicy, resolved: resolutions),
                    writer)
                return WrittenPlan(
                    newKeys: writer.newKeys, resolutions: resolutions, unwritten: unwritten,
                    updatedKeys: written, sequence: sequence, date: date)
            }
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
    }

    /// Records updated objects in the history, a record per entity and set of changed keys (a
    /// save that edits many objects mostly changes the same properties of each). Insertions and
    /// deletions are recorded by the statements that write them.
    private func recordUpdates(_ updates: [ObjectID: Set<String>], _ writer: RowWriter) {
        // Found by equality, which is immediate for the sets a save shares (see ChangedKeySets). A
        // list of a few groups, appended to in place: a dictionary of lists copied its list at
        // each row.
        var groups: [(entity: ObjectIdentifier, keys: Set<String>, rows: [Int64])] = []
        for (id, keys) in updates where !keys.isEmpty {
            let entity = ObjectIdentifier(id.entity)
            if let index = groups.firstIndex(where: { $0.entity == entity && $0.keys == keys }) {
                groups[index].rows.append(id.key)
            } else {
                groups.append((entity, keys, [id.key]))
            }
        }
        for (entity, keys, rows) in groups {
            guard let mapping = store.mapping(forIdentifier: entity) else { continue }
            writer.recordUpdates(keys: rows, changedKeys: keys.sorted().joined(separator: ","), mapping: mapping)
        }
    }

    /// Objects grouped by entity, for the statements that take many rows of one table.
    private func byEntity(_ states: [ObjectState]) -> [(EntityMapping, [ObjectState])] {
        states.groupedByEntity().compactMap { group in group.first?.mapping.map { ($0, group) } }
    }

    /// Clears the unique columns that updated rows change, before any row is written: SQLite checks
    /// a unique index at each statement, so two rows exchanging values (or one taking the value
    /// another gives up) would otherwise fail on whichever is written first. A row changed
    /// elsewhere since it was read is left alone: its conflict is resolved as usual.
    private func releaseUniqueValues(of updates: [ObjectState], _ writer: RowWriter) throws {
        for state in updates where !state.isFault {
            guard let mapping = state.mapping, state.keepsCommittedValues, !mapping.uniqueAttributeSlots.isEmpty else { continue }
            let released = mapping.uniqueAttributeSlots.filter { state.value(atPosition: $0) != state.committedValue(atPosition: $0) }
            guard !released.isEmpty else { continue }
            try writer.clear(released, ofRow: state.id.key, ifVersion: state.version, mapping: mapping)
        }
    }

    /// Writes the changed columns if the row still has the version this context read; otherwise
    /// returns the conflict.
    private func updateRow(_ state: ObjectState, _ writer: RowWriter) throws -> SaveConflict? {
        guard let mapping = state.mapping else { return nil }
        let changed = state.changedPositions
        // A fault (changed only through inverses) was never read: there is no version to compare,
        // and its link changes apply on top of the store's links whatever happened since.
        let readVersion = state.isFault ? nil : state.version
        guard
            try !writer.update(
                state, id: state.id, positions: changed, ifVersion: readVersion,
                bumpingVersion: state.changesManyToMany, mapping: mapping)
        else { return nil }
        let current = try writer.version(ofRow: state.id.key, mapping: mapping)
        return SaveConflict(objectID: state.id, staleVersion: state.version, currentVersion: current)
    }
}
