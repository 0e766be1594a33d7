package import ObjectGraphModel
import ObjectGraphStore

/// The objects a query answers from memory rather than from SQL: those with unsaved changes, and
/// those whose related objects changed what the query reads of them.
extension ObjectContext {
    /// What a request's predicate and sort read, entity by entity (see ``PropertyReads``).
    func propertyReads<T: Entity>(of request: FetchDescriptor<T>) throws -> PropertyReads {
        try SelectQuery(request, store: store).reads
    }

    /// The unsaved objects that match a request's predicate, evaluated in memory with the answers
    /// SQL gives (see ``CheckedPredicate``).
    package func matching<T: Entity>(_ pending: [any Entity], _ request: FetchDescriptor<T>) throws -> [T] {
        let markedSlot = request.includesMarkedForDeletion ? nil : store.mapping(for: T._$entity)?.markedForDeletionSlot
        let predicate = try request.predicate.map { try CheckedPredicate($0, entity: T._$entity.name) }
        return try pending.compactMap { $0 as? T }.filter { object in
            let state = object._$state
            if state.isDeleted { return false }
            // A pending object is loaded (or is a fault only changed through an inverse, whose mark
            // is what the store says): the SQL side's `IS NULL` condition, in memory.
            if let markedSlot {
                state.fulfillIfNeeded()
                if !state.value(atPosition: markedSlot).isNull { return false }
            }
            return try predicate?.evaluate(object) ?? true
        }
    }

    /// The objects a query must evaluate in memory: those of its entity with unsaved changes
    /// (inserted, updated or deleted), and those whose related objects changed what the query reads
    /// of them (the store has the related rows' saved values).
    package func pendingObjects<T>(of query: FetchQuery<T>) throws -> [any Entity] {
        try pendingObjects(of: query.mapping.declaration, reading: query.select.reads)
    }

    /// The objects of `entity` to evaluate in memory for a query that reads `reads`.
    func pendingObjects(of entity: EntityDeclaration, reading reads: PropertyReads) throws -> [any Entity] {
        guard changes.hasChanges else { return [] }
        // A subentity's objects are its parent's too.
        var pending = changes.changedObjects
            .filter { $0._$state.entity.isKind(of: entity) }
        guard reads.followsRelationships else { return pending }
        let changed = (Array(changes.inserted.values) + Array(changes.updated.values)).map { ($0, $0._$state.changedKeys()) }
        let known = Set(pending.map { ObjectIdentifier($0) })
        let reached = try objects(readingChangesOf: changed, reads: reads, root: entity)
            .compactMap { $0 as? any Entity }.filter { !known.contains(ObjectIdentifier($0)) }
        loadFaults(reached.map(\._$state))
        pending += reached
        return pending
    }
}
