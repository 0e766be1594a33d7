import Foundation

/// Fetching: SQL for what is saved, merged with the context's unsaved changes.
extension ObjectContext {

    /// The objects matching a request.
    ///
    /// With ``FetchDescriptor/includesPendingChanges`` (the default) the results also hold matching inserted
    /// objects, hold changed objects according to their current values, and leave deleted objects out.
    ///
    /// - Parameter request: What to fetch: entity, predicate, sort, window, batch size (see <doc:Fetching>).
    /// - Returns: The matching objects, in order; with a batch size, loaded as they are read.
    /// - Throws: ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` when the predicate or a sort
    ///   has no SQL translation, ``ObjectGraphError/unknownEntity(_:)``, or ``ObjectGraphError/store(_:)``.
    public func fetch<T: Entity>(_ request: FetchDescriptor<T>) throws -> FetchResults<T> {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        let pending = request.includesPendingChanges ? try pendingObjects(of: query) : []
        if request.fetchBatchSize > 0, pending.isEmpty {
            let keys = try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            return FetchResults(
                batches: BatchedObjects(
                    keys: keys, batchSize: request.fetchBatchSize, context: self, mapping: query.mapping))
        }
        guard !pending.isEmpty else {
            return FetchResults(objects: try query.objects(limit: request.fetchLimit, offset: request.fetchOffset))
        }
        // Rows changed here are read from memory, not from the store; the window applies after merging.
        let window = request.fetchLimit.map { $0 + request.fetchOffset }
        let stored = try query.objects(limit: window, offset: 0, excluding: pending.map(\._$state.id))
        var merged = stored.map { unsafeDowncast($0, to: T.self) } + (try matching(pending, request))
        // Without sort descriptors too: the order is then the store's, as SQL gives it.
        merged.sort { request.sortBy.orders($0, before: $1) }
        let end = request.fetchLimit.map { min(merged.count, request.fetchOffset + $0) } ?? merged.count
        return FetchResults(objects: request.fetchOffset < end ? merged[request.fetchOffset..<end].map { $0 } : [])
    }

    /// What a request's predicate and sort read, entity by entity (see ``PropertyReads``).
    func propertyReads<T: Entity>(of request: FetchDescriptor<T>) throws -> PropertyReads {
        try SelectQuery(request, store: store).reads
    }

    /// The IDs of the objects matching a request, without making the objects: what to hand to another
    /// context or task.
    ///
    /// - Parameter request: What to fetch.
    /// - Returns: The IDs, in the request's order.
    /// - Throws: The errors of ``fetch(_:)``.
    public func fetchIdentifiers<T: Entity>(_ request: FetchDescriptor<T>) throws -> [ObjectID] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        if request.includesPendingChanges, try !pendingObjects(of: query).isEmpty {
            return try fetch(request).map(\.objectID)
        }
        return try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            .map { ObjectID(entity: query.mapping.declaration, key: $0, store: store.identity) }
    }

    /// The number of objects matching a request, counted by the store (and adjusted for this context's
    /// unsaved changes, unless the request excludes them).
    ///
    /// - Parameter request: What to count; its sort is ignored.
    /// - Throws: The errors of ``fetch(_:)``.
    public func fetchCount<T: Entity>(_ request: FetchDescriptor<T>) throws -> Int {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        let pending = request.includesPendingChanges ? try pendingObjects(of: query) : []
        if pending.isEmpty, request.fetchLimit == nil, request.fetchOffset == 0 {
            return try query.count(excluding: [])
        }
        if !pending.isEmpty, request.fetchLimit == nil, request.fetchOffset == 0 {
            return try query.count(excluding: pending.map(\._$state.id)) + matching(pending, request).count
        }
        return try fetch(request).count
    }

    /// The unsaved objects that match a request's predicate, evaluated in memory with the answers
    /// SQL gives (see ``CheckedPredicate``).
    func matching<T: Entity>(_ pending: [any Entity], _ request: FetchDescriptor<T>) throws -> [T] {
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
    func pendingObjects<T>(of query: FetchQuery<T>) throws -> [any Entity] {
        try pendingObjects(of: query.mapping.declaration, reading: query.select.reads)
    }

    /// The objects of `entity` to evaluate in memory for a query that reads `reads`.
    func pendingObjects(of entity: EntityDeclaration, reading reads: PropertyReads) throws -> [any Entity] {
        guard changes.hasChanges else { return [] }
        var pending = changes.changedObjects
            .filter { $0._$state.entity === entity }
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

/// One fetch descriptor's query, run for a context.
struct FetchQuery<T: Entity> {
    let select: SelectQuery
    let context: ObjectContext
    var mapping: EntityMapping { select.mapping }

    init(request: FetchDescriptor<T>, context: ObjectContext) throws {
        self.select = try SelectQuery(request, store: context.store)
        self.context = context
    }

    /// The query's SQL; unsaved objects have no row, so only saved ones are excluded.
    private func sql(_ selection: SelectQuery.Selection, limit: Int?, offset: Int, excluding: [ObjectID]) -> SQLFragment {
        select.sql(selection, limit: limit, offset: offset, excludingKeys: excluding.lazy.filter { !$0.isTemporary }.map(\.key))
    }

    func objects(limit: Int?, offset: Int, excluding: [ObjectID] = []) throws -> [AnyObject] {
        try run { try context.objects(from: sql(.rows, limit: limit, offset: offset, excluding: excluding), mapping: mapping) }
    }

    func keys(limit: Int?, offset: Int) throws -> [Int64] {
        try run { try context.store.reader.keys(sql(.keys, limit: limit, offset: offset, excluding: [])) }
    }

    func queryPlan(limit: Int?, offset: Int) throws -> [String] {
        try run { try context.store.reader.queryPlan(sql(.rows, limit: limit, offset: offset, excluding: [])) }
    }

    func count(excluding: [ObjectID]) throws -> Int {
        try run { try context.store.reader.count(sql(.count, limit: nil, offset: 0, excluding: excluding)) }
    }

    private func run<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as StoreError {
            throw ObjectGraphError.query(error, entity: mapping.name)
        }
    }
}
