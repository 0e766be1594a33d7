public import Foundation
public import ObjectGraphModel
import ObjectGraphStore

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
        return try batchOperations.deleteRows([
            select.mapping.index: DeletionSeed(
                condition: select.condition,
                isRepeatable: select.readsOnlyOwnColumns)
        ])
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
        return try batchOperations.deleteRows(seeds)
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
    public func batchUpdate<T: Entity>(
        _ type: T.Type = T.self, where predicate: Predicate<T>? = nil,
        set assignments: [BatchAssignment<T>]
    ) throws -> Set<ObjectID> {
        let use = beginUse()
        defer { use.end() }
        let select = try SelectQuery(FetchDescriptor<T>(predicate: predicate, includesMarkedForDeletion: true), store: store)
        let columns = try assignments.map { try $0.column(in: select.mapping) }
        return try batchOperations.updateRows(select, setting: columns)
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
        return try batchOperations.insertRows(rows, mapping: mapping)
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
        return try batchOperations.insertRows(rows, mapping: mapping)
    }

    /// The batch operations of this context: committed with its name as author, merged here first.
    private var batchOperations: BatchOperations {
        BatchOperations(store: store, coordinator: coordinator, author: name) { [unowned self] save in
            self.mergeChanges(from: save)
        }
    }
}
