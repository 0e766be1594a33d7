import Foundation
import GRDB

/// Fetching: SQL for what is saved, merged with the context's unsaved changes.
extension ObjectContext {

    /// The objects matching a request.
    ///
    /// With ``FetchDescriptor/includesPendingChanges`` (the default) the results also hold matching inserted
    /// objects, hold changed objects according to their current values, and leave deleted objects out.
    ///
    /// - Throws: ``ObjectGraphError/unsupportedPredicate(entity:construct:)`` when the predicate or a sort
    ///   has no SQL translation, ``ObjectGraphError/unknownEntity(_:)``, or ``ObjectGraphError/store(_:)``.
    public func fetch<T: Entity>(_ request: FetchDescriptor<T>) throws -> FetchResults<T> {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        let pending = request.includesPendingChanges ? pendingObjects(of: query.mapping) : []
        if request.fetchBatchSize > 0, pending.isEmpty {
            let keys = try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            return FetchResults(batches: BatchedObjects(
                keys: keys, batchSize: request.fetchBatchSize, context: self, mapping: query.mapping))
        }
        guard !pending.isEmpty else {
            return FetchResults(objects: try query.objects(limit: request.fetchLimit, offset: request.fetchOffset))
        }
        // Rows changed here are read from memory, not from the store; the window applies after merging.
        let window = request.fetchLimit.map { $0 + request.fetchOffset }
        let stored = try query.objects(limit: window, offset: 0, excluding: pending.map(\._$state.id))
        var merged = stored.map { unsafeDowncast($0, to: T.self) } + (try matching(pending, request))
        if !request.sortBy.isEmpty {
            merged.sort { lhs, rhs in
                for descriptor in request.sortBy {
                    let order = descriptor.compare(lhs, rhs)
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return false
            }
        }
        let end = request.fetchLimit.map { min(merged.count, request.fetchOffset + $0) } ?? merged.count
        return FetchResults(objects: request.fetchOffset < end ? merged[request.fetchOffset..<end].map { $0 } : [])
    }

    /// The IDs of the objects matching a request.
    public func fetchIdentifiers<T: Entity>(_ request: FetchDescriptor<T>) throws -> [ObjectID] {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        if request.includesPendingChanges, !pendingObjects(of: query.mapping).isEmpty {
            return try fetch(request).map(\.objectID)
        }
        return try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            .map { ObjectID(entity: query.mapping.declaration, key: $0, store: store.identity) }
    }

    /// The number of objects matching a request, counted by the store.
    public func fetchCount<T: Entity>(_ request: FetchDescriptor<T>) throws -> Int {
        let use = beginUse()
        defer { use.end() }
        mergeIncomingChanges()
        let query = try FetchQuery(request: request, context: self)
        let pending = request.includesPendingChanges ? pendingObjects(of: query.mapping) : []
        if pending.isEmpty, request.fetchLimit == nil, request.fetchOffset == 0 {
            return try query.count(excluding: [])
        }
        if !pending.isEmpty, request.fetchLimit == nil, request.fetchOffset == 0 {
            return try query.count(excluding: pending.map(\._$state.id)) + matching(pending, request).count
        }
        return try fetch(request).count
    }

    /// The unsaved objects that match a request's predicate, evaluated in memory.
    private func matching<T: Entity>(_ pending: [any Entity], _ request: FetchDescriptor<T>) throws -> [T] {
        try pending.compactMap { $0 as? T }.filter { object in
            try !object._$state.isDeleted && (request.predicate?.evaluate(object) ?? true)
        }
    }

    /// Objects of an entity with unsaved changes (inserted, updated or deleted).
    private func pendingObjects(of mapping: EntityMapping) -> [any Entity] {
        guard hasChanges else { return [] }
        let entity = mapping.declaration
        return (Array(inserted.values) + Array(updated.values) + Array(deleted.values))
            .filter { $0._$state.entity === entity }
    }

    /// Loads the objects of a batch, in the order of `keys`; rows that vanished become faults that
    /// read as deleted. If the rows cannot be read, the objects not read yet are returned as faults:
    /// each reads its row when used, and reports a failure then (see ``readFailures``).
    ///
    /// Rows are read in key order and matched to their positions by walking the sorted keys, without
    /// hashing. When the keys are dense (the usual case: a batch of an unsorted or mostly key-ordered
    /// result) the query is a key range, which SQLite walks directly; otherwise it is an `IN` list.
    func loadBatch(_ batch: ArraySlice<Int64>, mapping: EntityMapping) -> [AnyObject] {
        let keys = Array(batch)
        let isSorted = zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
        let order = isSorted ? Array(keys.indices) : keys.indices.sorted { keys[$0] < keys[$1] }
        guard let low = order.first.map({ keys[$0] }), let high = order.last.map({ keys[$0] }) else { return [] }
        let isDense = high - low < Int64(keys.count) * 2
        let condition = isDense
            ? SQLFragment("t0.Z_PK BETWEEN ? AND ?", arguments: [low.databaseValue, high.databaseValue])
            : "t0.Z_PK IN " + SQL.list(keys.map(\.databaseValue))
        let sql = "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE \(condition.sql) ORDER BY t0.Z_PK"
        let arguments = condition.arguments

        // Objects in key order, with the position in `order` each one belongs to.
        var loaded: [AnyObject] = []
        loaded.reserveCapacity(keys.count)
        var positions: [Int] = []
        positions.reserveCapacity(keys.count)
        var next = 0  // position in `order` of the smallest key not matched yet
        var unregistered: [Unmanaged<ObjectState>] = []
        defer { registry.register(unregistered, of: mapping.declaration) }
        do {
            try store.readStatement { db in
            try ObjectRows(mapping: mapping).forEach(
                db.cachedStatement(sql: sql), arguments: arguments,
                including: { key in
                    while next < order.count, keys[order[next]] < key { next += 1 }
                    return next < order.count && keys[order[next]] == key
                },
                { row in
                    loaded.append(object(for: row, mapping: mapping, unregistered: &unregistered))
                    positions.append(next)
                    next += 1
                })
            }
        } catch {
            // Not "no rows": the objects that were not read stay faults, below, never deleted ones.
        }
        // The usual case: keys in order and every row found; the objects are the result as read.
        if isSorted, loaded.count == keys.count { return loaded }
        var objects = [AnyObject?](repeating: nil, count: keys.count)
        for (object, position) in zip(loaded, positions) { objects[order[position]] = object }
        return objects.enumerated().map { offset, object in
            if let object { return object }
            let id = ObjectID(entity: mapping.declaration, key: keys[offset], store: store.identity)
            return registry.state(for: id)?.object ?? fault(for: id, mapping: mapping)
        }
    }
}

/// The SQL of one fetch descriptor.
struct FetchQuery<T: Entity> {
    let mapping: EntityMapping
    let context: ObjectContext
    let condition: SQLFragment?
    let orderBy: String

    init(request: FetchDescriptor<T>, context: ObjectContext) throws {
        guard let mapping = context.store.mapping(for: T._$entity) else {
            throw ObjectGraphError.unknownEntity(T._$entity.name)
        }
        self.mapping = mapping
        self.context = context
        self.condition = try request.predicate.map {
            try PredicateTranslator.condition(for: $0, mapping: mapping, store: context.store)
        }
        // The primary key ends every order: results are deterministic (equal sort keys keep their
        // order, so pages of limit/offset never overlap), and the batches of a batched fetch are key
        // ranges (see `loadBatch`).
        self.orderBy = (try SortTranslator.orderBy(request.sortBy, mapping: mapping, store: context.store) + ["t0.Z_PK"])
            .joined(separator: ", ")
    }

    private func sql(selecting columns: String, limit: Int?, offset: Int, excluding: [ObjectID]) -> SQLFragment {
        var fragment = SQLFragment("SELECT \(columns) FROM \(mapping.table) AS t0")
        var conditions: [SQLFragment] = condition.map { [$0] } ?? []
        // Unsaved objects have no row; only saved ones need excluding.
        let excludedKeys = excluding.filter { !$0.isTemporary }.map(\.key.databaseValue)
        if !excludedKeys.isEmpty {
            conditions.append("t0.Z_PK NOT IN " + SQL.list(excludedKeys))
        }
        if !conditions.isEmpty {
            fragment = fragment + " WHERE " + conditions.dropFirst().reduce(conditions[0]) { $0 + " AND " + $1 }
        }
        if !orderBy.isEmpty { fragment = fragment + SQLFragment(" ORDER BY \(orderBy)") }
        if let limit { fragment = fragment + SQLFragment(" LIMIT \(max(0, limit))") }
        if offset > 0 { fragment = fragment + SQLFragment((limit == nil ? " LIMIT -1" : "") + " OFFSET \(offset)") }
        return fragment
    }

    func objects(limit: Int?, offset: Int, excluding: [ObjectID] = []) throws -> [AnyObject] {
        let query = sql(selecting: mapping.selectList, limit: limit, offset: offset, excluding: excluding)
        return try run { db in
            try context.objects(from: db.cachedStatement(sql: query.sql), arguments: query.arguments, mapping: mapping)
        }
    }

    func keys(limit: Int?, offset: Int) throws -> [Int64] {
        let query = sql(selecting: "t0.Z_PK", limit: limit, offset: offset, excluding: [])
        return try run { db in
            // Read column by column like object rows: GRDB's generic fetchAll runs unspecialized here.
            let statement = try db.cachedStatement(sql: query.sql)
            try statement.bind(query.arguments)
            let sqliteStatement = statement.sqliteStatement
            var keys: [Int64] = []
            try Row.fetchCursor(statement).forEach { _ in
                keys.append(Int64(sqliteStatement: sqliteStatement, index: 0))
            }
            return keys
        }
    }

    func count(excluding: [ObjectID]) throws -> Int {
        let query = sql(selecting: "COUNT(*)", limit: nil, offset: 0, excluding: excluding)
        return try run { db in
            let statement = try db.cachedStatement(sql: query.sql)
            try statement.bind(query.arguments)
            return try Int.fetchOne(statement) ?? 0
        }
    }

    private func run<Result>(_ body: (Database) throws -> Result) throws -> Result {
        do {
            return try context.store.readStatement(body)
        } catch let error as DatabaseError {
            throw ObjectGraphError.store(StoreError(error))
        }
    }
}
