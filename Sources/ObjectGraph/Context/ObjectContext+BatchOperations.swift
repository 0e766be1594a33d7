public import Foundation

/// Batch operations: SQL over many rows at once, without making objects, yet seen by every context.
///
/// Core Data's batch requests write behind every context's back, and each app merges their result
/// by hand. Here a batch operation commits like a save (with its record in the persistent history)
/// and its result is delivered like a save to every live context of the container, this one
/// included, before the call returns here: objects held anywhere are refreshed or marked deleted,
/// and observers learn of it.
extension ObjectContext {

    /// Deletes the objects matching a predicate, as SQL in one transaction, with the delete rules of
    /// the model applied to everything they reach: cascades delete related rows, nullify clears the
    /// links that pointed to them, and a deny rule with a related object left refuses the deletion as
    /// a whole.
    ///
    /// No object is made and `prepareForDeletion()` is not called: custom rules in it do not run.
    /// Objects marked for deletion (``DelayedDeletable``) match like any others.
    ///
    /// ```swift
    /// let cutoff = Date(timeIntervalSinceNow: -120)
    /// let gone = try context.batchDelete(Mood.self, where: #Predicate { $0.rating < 2 })
    /// ```
    ///
    /// - Parameters:
    ///   - type: The entity.
    ///   - predicate: Which objects to delete; nil for every object of the entity.
    /// - Returns: The IDs of every object deleted, those reached by cascades included.
    /// - Throws: ``ObjectGraphError/validationFailed(_:)`` with ``ValidationFailure/Reason/deleteDenied(count:)``
    ///   when a deny rule holds (nothing is deleted), ``ObjectGraphError/unsupportedPredicate(entity:construct:)``,
    ///   ``ObjectGraphError/unknownEntity(_:)`` or ``ObjectGraphError/store(_:)``.
    @discardableResult
    public func batchDelete<T: Entity>(_ type: T.Type = T.self, where predicate: Predicate<T>? = nil) throws -> Set<ObjectID> {
        let use = beginUse()
        defer { use.end() }
        let select = try SelectQuery(FetchDescriptor<T>(predicate: predicate, includesMarkedForDeletion: true), store: store)
        return try deleteRows([select.mapping.index: DeletionSeed(condition: select.condition,
                                                                  isRepeatable: select.readsOnlyOwnColumns)])
    }

    /// Deletes, as SQL in one transaction, the objects of every ``DelayedDeletable`` entity marked
    /// before `cutoff`, with the model's delete rules (see ``batchDelete(_:where:)``): the clean-up
    /// an app runs when it goes to the background, or a server on a timer.
    ///
    /// - Parameter cutoff: Objects marked before this date go; by default two minutes ago, time
    ///   enough for every context to let go of them.
    /// - Returns: The IDs of every object deleted.
    /// - Throws: The errors of ``batchDelete(_:where:)``.
    @discardableResult
    public func deleteMarkedObjects(markedBefore cutoff: Date = Date(timeIntervalSinceNow: -120)) throws -> Set<ObjectID> {
        let use = beginUse()
        defer { use.end() }
        var seeds: [Int: DeletionSeed] = [:]
        for mapping in store.mappings {
            guard let slot = mapping.markedForDeletionSlot else { continue }
            seeds[mapping.index] = DeletionSeed.marked(before: cutoff, slot: slot, in: mapping)
        }
        return try deleteRows(seeds)
    }

    /// Deletes the rows `seeds` select (by mapping index) in the batch's transaction, with their
    /// delete rules.
    private func deleteRows(_ seeds: [Int: DeletionSeed]) throws -> Set<ObjectID> {
        let mappings = store.mappings
        let identity = store.identity
        let commit = try commitBatch { writer in
            let deletion = try writer.deleteWithRules(seeds, mappings: mappings, store: identity)
            guard !deletion.deleted.isEmpty else { return nil }
            let id = { (index: Int, key: Int64) in ObjectID(entity: mappings[index].declaration, key: key, store: identity) }
            return BatchChanges(
                updated: Dictionary(uniqueKeysWithValues: deletion.updated.flatMap { index, rows in
                    rows.map { (id(index, $0.key), $0.value) }
                }),
                deleted: Set(deletion.deleted.flatMap { index, keys in keys.map { id(index, $0) } }))
        }
        return commit?.deletedObjectIDs ?? []
    }

    /// Sets attributes of the objects matching a predicate, as SQL in one transaction. Each row's
    /// version is incremented, so a context that changed one of them without merging meets a
    /// conflict at save, as with any other change.
    ///
    /// ```swift
    /// try context.batchUpdate(Mood.self, where: #Predicate { $0.rating > 5 }, set: [.set(\.rating, to: 5)])
    /// ```
    ///
    /// - Parameters:
    ///   - type: The entity.
    ///   - predicate: Which objects to update; nil for every object of the entity.
    ///   - assignments: The attributes to set, each to one value.
    /// - Returns: The IDs of the objects updated.
    /// - Throws: ``ObjectGraphError/invalidBatchOperation(entity:property:reason:)`` for an assignment to
    ///   something other than a stored attribute or of nil to a required one,
    ///   ``ObjectGraphError/validationFailed(_:)`` when a unique attribute would repeat (nothing is
    ///   written), and the errors of ``batchDelete(_:where:)``.
    @discardableResult
    public func batchUpdate<T: Entity>(_ type: T.Type = T.self, where predicate: Predicate<T>? = nil,
                                       set assignments: [BatchAssignment<T>]) throws -> Set<ObjectID> {
        let use = beginUse()
        defer { use.end() }
        let select = try SelectQuery(FetchDescriptor<T>(predicate: predicate, includesMarkedForDeletion: true), store: store)
        let mapping = select.mapping
        let columns = try assignments.map { try $0.column(in: mapping) }
        guard !columns.isEmpty else { return [] }
        let names = Set(columns.map(\.name))
        let identity = store.identity
        let commit = try commitBatch { writer in
            let keys = try writer.keys(select.matchingKeys)
            guard !keys.isEmpty else { return nil }
            let selection = KeySelection(keys)
            try writer.update(keys: selection, setting: columns.map { ($0.slot, $0.value) }, mapping: mapping)
            try writer.recordChanges(.update, keys: selection, changedKeys: names.sorted().joined(separator: ","), mapping: mapping)
            return BatchChanges(updated: Dictionary(uniqueKeysWithValues: keys.map {
                (ObjectID(entity: mapping.declaration, key: $0, store: identity), names)
            }))
        }
        return commit.map { Set($0.updatedObjectIDs.keys) } ?? []
    }

    /// Inserts rows from dictionaries of attribute values, by attribute name, as SQL in one
    /// transaction, without making objects. Attributes left out get their declared default, or nil.
    ///
    /// ```swift
    /// try context.batchInsert(Mood.self, values: [["text": "Calm", "rating": 4, "date": Date()]])
    /// ```
    ///
    /// - Parameters:
    ///   - type: The entity.
    ///   - values: One dictionary per row.
    /// - Returns: The new objects' IDs, in the order of `values`.
    /// - Throws: ``ObjectGraphError/invalidBatchOperation(entity:property:reason:)`` naming the row and
    ///   property for an unknown name, a relationship, a value of the wrong type or a missing
    ///   required value; ``ObjectGraphError/validationFailed(_:)`` when a unique attribute would
    ///   repeat. Nothing is inserted when it throws.
    @discardableResult
    public func batchInsert<T: Entity>(_ type: T.Type = T.self, values: [[String: any AttributeValue]]) throws -> [ObjectID] {
        let use = beginUse()
        defer { use.end() }
        guard let mapping = store.mapping(for: T._$entity) else { throw ObjectGraphError.unknownEntity(T._$entity.name) }
        let rows = try values.enumerated().map { try BatchRow(values: $1, row: $0, mapping: mapping) }
        return try insertRows(rows, mapping: mapping)
    }

    /// Inserts rows made from new objects' attribute values, as SQL in one transaction. The objects
    /// only carry values: they stay outside every context (fetch the rows by the returned IDs).
    ///
    /// - Parameter objects: New objects, made with their initializer and never inserted; their
    ///   relationships must be empty.
    /// - Returns: The new objects' IDs, in order.
    /// - Throws: ``ObjectGraphError/invalidBatchOperation(entity:property:reason:)`` for an object that
    ///   belongs to a context, has a relationship set, or lacks a required value, and the errors of
    ///   ``batchInsert(_:values:)``.
    @discardableResult
    public func batchInsert<T: Entity>(_ objects: [T]) throws -> [ObjectID] {
        let use = beginUse()
        defer { use.end() }
        guard let mapping = store.mapping(for: T._$entity) else { throw ObjectGraphError.unknownEntity(T._$entity.name) }
        let rows = try objects.enumerated().map { try BatchRow(object: $1, row: $0, mapping: mapping) }
        return try insertRows(rows, mapping: mapping)
    }

    private func insertRows(_ rows: [BatchRow], mapping: EntityMapping) throws -> [ObjectID] {
        guard !rows.isEmpty else { return [] }
        let identity = store.identity
        let temporaryIDs = rows.map { _ in ObjectID(entity: mapping.declaration, key: -TemporaryKeys.next(), store: nil) }
        var inserted: [ObjectID] = []
        _ = try commitBatch { writer in
            try writer.allocateKeys(temporaryIDs.map(\.key), for: mapping)
            for (row, id) in zip(rows, temporaryIDs) {
                try writer.insert(row, id: id, globalID: GlobalIDs.next(), mapping: mapping)
            }
            let keys = temporaryIDs.compactMap { writer.permanentKey($0.key) }
            try writer.recordChanges(.insert, keys: KeySelection(keys), mapping: mapping)
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
    /// what it changed to every live context, this one first. `body` returns nil when there is
    /// nothing to do; no transaction is recorded then.
    private func commitBatch(_ body: (inout RowWriter) throws -> BatchChanges?) throws -> DidSave? {
        let date = Date()
        let origin = coordinator.origin
        let written: (BatchChanges, Int64)?
        do {
            written = try store.write { writer in
                // Recorded first, so that the changes recorded by `body` belong to it; a batch that
                // finds nothing to do leaves no transaction behind (its write is rolled back).
                let sequence = try writer.recordTransaction(author: name, date: date, origin: origin)
                guard let changes = try body(&writer) else { throw NothingToCommit() }
                return (changes, sequence)
            }
        } catch is NothingToCommit {
            written = nil
        } catch let error as StoreError {
            throw ObjectGraphError.store(error)
        }
        guard let (changes, sequence) = written else { return nil }
        let save = DidSave(insertedObjectIDs: changes.inserted, updatedObjectIDs: changes.updated,
                           deletedObjectIDs: changes.deleted, author: name, sequence: sequence, date: date)
        coordinator.didCommit(save, from: nil)
        mergeChanges(from: save)
        return save
    }

    private struct NothingToCommit: Error {}
}
