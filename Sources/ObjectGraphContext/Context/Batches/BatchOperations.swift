import Foundation
import ObjectGraphModel
import ObjectGraphStore

/// Batch operations: SQL over many rows at once, committed like a save and delivered like one.
///
/// A batch needs only the store (to write), the coordinator (to hand the commit to every other
/// context) and a way to merge the commit into the context that asked, which sees it before the call
/// returns. It touches no object: the merges do.
struct BatchOperations {
    let store: SQLiteStore
    let coordinator: StoreCoordinator
    /// The transaction author recorded in the history.
    let author: String?
    /// Merges a committed batch into the context that ran it.
    let merge: (DidSave) -> Void

    /// Deletes the rows `seeds` select (by mapping index) in the batch's transaction, with their
    /// delete rules.
    func deleteRows(_ seeds: [Int: DeletionSeed]) throws -> Set<ObjectID> {
        let mappings = store.mappings
        let identity = store.identity
        let entities = seeds.keys.sorted().map { mappings[$0].name }.joined(separator: ", ")
        let commit = try commitBatch(entity: entities) { writer in
            let deletion = try writer.deleteWithRules(seeds, mappings: mappings, store: identity)
            guard !deletion.deleted.isEmpty else { return nil }
            let id = { (index: Int, key: Int64) in ObjectID(entity: mappings[index].declaration, key: key, store: identity) }
            return BatchChanges(
                updated: Dictionary(
                    uniqueKeysWithValues: deletion.updated.flatMap { index, rows in
                        rows.map { (id(index, $0.key), $0.value) }
                    }),
                deleted: Set(deletion.deleted.flatMap { index, keys in keys.map { id(index, $0) } }))
        }
        return commit?.deletedObjectIDs ?? []
    }

    /// Sets columns of the rows a query selects; returns the IDs of the rows updated.
    func updateRows(_ select: SelectQuery, setting columns: [(name: String, slot: Int, value: StoredValue)]) throws -> Set<ObjectID> {
        let mapping = select.mapping
        guard !columns.isEmpty else { return [] }
        let names = Set(columns.map(\.name))
        let identity = store.identity
        let commit = try commitBatch(entity: mapping.name) { writer in
            let keys = try writer.keys(select.matchingKeys)
            guard !keys.isEmpty else { return nil }
            let selection = KeySelection(keys)
            try writer.update(keys: selection, setting: columns.map { ($0.slot, $0.value) }, mapping: mapping)
            // Rows of subentities are recorded and reported as their own entity's.
            let byEntity: [(EntityMapping, [Int64])] =
                mapping.hierarchy?.hasSubentities == true
                ? try writer.keysByEntity(keys, mapping: mapping).compactMap { name, keys in store.mapping(named: name).map { ($0, keys) } }
                : [(mapping, keys)]
            var updated: [ObjectID: Set<String>] = [:]
            for (concrete, keys) in byEntity {
                writer.recordUpdates(keys: keys, changedKeys: names.sorted().joined(separator: ","), mapping: concrete)
                for key in keys { updated[ObjectID(entity: concrete.declaration, key: key, store: identity)] = names }
            }
            return BatchChanges(updated: updated)
        }
        return commit.map { Set($0.updatedObjectIDs.keys) } ?? []
    }

    func insertRows(_ rows: [BatchRow], mapping: EntityMapping) throws -> [ObjectID] {
        guard !rows.isEmpty else { return [] }
        let identity = store.identity
        let temporaryIDs = rows.map { _ in ObjectID(entity: mapping.declaration, key: -TemporaryKeys.next(), store: nil) }
        var inserted: [ObjectID] = []
        _ = try commitBatch(entity: mapping.name) { writer in
            try writer.allocateKeys(temporaryIDs.map(\.key), for: mapping)
            for (row, id) in zip(rows, temporaryIDs) {
                try writer.insert(row, id: id, globalID: GlobalIDs.next(), mapping: mapping)
            }
            let keys = temporaryIDs.compactMap { writer.permanentKey($0.key) }
            inserted = keys.map { ObjectID(entity: mapping.declaration, key: $0, store: identity) }
            return BatchChanges(inserted: Set(inserted))
        }
        return inserted
    }

    /// What a batch operation changed, by ID.
    struct BatchChanges {
        var inserted: Set<ObjectID> = []
        var updated: [ObjectID: Set<String>] = [:]
        var deleted: Set<ObjectID> = []
    }

    /// Runs a batch operation in a write transaction with its record in the history, then delivers
    /// what it changed to every live context, the one that asked first (through `merge`). `body` returns nil when there is
    /// nothing to do; no transaction is recorded then. `entity` is what a predicate's failure names.
    private func commitBatch(entity: String, _ body: (inout RowWriter) throws -> BatchChanges?) throws -> DidSave? {
        let date = Date()
        let origin = coordinator.origin
        let written: (BatchChanges, Int64)?
        do {
            written = try store.write { writer in
                // Recorded first, so that the changes recorded by `body` belong to it; a batch that
                // finds nothing to do leaves no transaction behind (its write is rolled back).
                let sequence = try writer.recordTransaction(author: author, date: date, origin: origin)
                guard let changes = try body(&writer) else { throw NothingToCommit() }
                return (changes, sequence)
            }
        } catch is NothingToCommit {
            written = nil
        } catch let error as StoreError {
            throw ObjectGraphError.query(error, entity: entity)
        }
        guard let (changes, sequence) = written else { return nil }
        let save = DidSave(
            insertedObjectIDs: changes.inserted, updatedObjectIDs: changes.updated,
            deletedObjectIDs: changes.deleted, author: author, sequence: sequence, date: date)
        coordinator.didCommit(save, from: nil)
        merge(save)
        return save
    }

    private struct NothingToCommit: Error {}
}
