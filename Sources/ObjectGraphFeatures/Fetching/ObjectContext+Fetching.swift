import Foundation
public import ObjectGraphContext
public import ObjectGraphModel

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
        let prefetching = try Self.prefetchPaths(of: request)
        let pending = request.includesPendingChanges ? try pendingObjects(of: query) : []
        if request.fetchBatchSize > 0, pending.isEmpty {
            let keys = try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            return FetchResults(
                batches: BatchedObjects(keys: keys, batchSize: request.fetchBatchSize, host: query.host, prefetching: prefetching))
        }
        let partial = parent == nil ? try Self.partialPositions(of: request, prefetching: prefetching) : nil
        func rows(limit: Int?, offset: Int, excluding: [ObjectID] = []) throws -> [AnyObject] {
            if let partial { return try query.partialObjects(positions: partial, limit: limit, offset: offset, excluding: excluding) }
            return try query.objects(limit: limit, offset: offset, excluding: excluding)
        }
        guard !pending.isEmpty else {
            let objects = try rows(limit: request.fetchLimit, offset: request.fetchOffset)
            guard !prefetching.isEmpty else { return FetchResults(objects: objects) }
            let prefetched = try prefetch(prefetching, from: objects.map { unsafeDowncast($0, to: T.self)._$state })
            return FetchResults(objects: objects, prefetched: prefetched)
        }
        // Rows changed here are read from memory, not from the store; the window applies after merging.
        let window = request.fetchLimit.map { $0 + request.fetchOffset }
        let stored = try rows(limit: window, offset: 0, excluding: pending.map(\._$state.id))
        var merged = stored.map { unsafeDowncast($0, to: T.self) } + (try matching(pending, request))
        // Without sort descriptors too: the order is then the store's, as SQL gives it.
        merged.sort { request.sortBy.orders($0, before: $1) }
        let end = request.fetchLimit.map { min(merged.count, request.fetchOffset + $0) } ?? merged.count
        let results = request.fetchOffset < end ? Array(merged[request.fetchOffset..<end]) : []
        let prefetched = prefetching.isEmpty ? [] : try prefetch(prefetching, from: results.map(\._$state))
        return FetchResults(objects: results.map { $0 }, prefetched: prefetched)
    }

    /// The value positions a partial fetch reads (see ``FetchDescriptor/propertiesToFetch``), in
    /// order; nil to read whole rows.
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` for a key path
    ///   that is not an attribute or a to-one relationship of the entity.
    static func partialPositions<T: Entity>(of request: FetchDescriptor<T>, prefetching: [[Int]]) throws -> [Int]? {
        guard !request.propertiesToFetch.isEmpty else { return nil }
        let entity = T._$entity
        func position(ofProperty index: Int) -> Int? {
            switch entity.layout.slots[index] {
            case .attribute(let slot): slot
            case .toOne(let slot): entity.layout.attributeCount + slot
            case .toMany: nil
            }
        }
        var positions: [Int] = []
        for keyPath in request.propertiesToFetch {
            guard let index = entity.propertyIndex(for: keyPath), let position = position(ofProperty: index) else {
                throw ObjectGraphError.invalidPropertyAccess(
                    entity: entity.name, property: "\(keyPath)",
                    reason: "a partial fetch reads attributes and to-one relationships, and this key path is neither")
            }
            positions.append(position)
        }
        // What the sort compares in memory, and the keys prefetching follows, are read too.
        positions += request.sortBy.compactMap { $0.keyPath.flatMap(entity.propertyIndex(for:)).flatMap(position(ofProperty:)) }
        positions += prefetching.compactMap { $0.first.flatMap(position(ofProperty:)) }
        var seen = Set<Int>()
        return positions.filter { seen.insert($0).inserted }
    }

    /// The relationship chains a request prefetches, by property index.
    ///
    /// - Throws: ``ObjectGraphError/invalidPropertyAccess(entity:property:reason:)`` for a key path
    ///   that is neither a relationship of the entity nor a chain of to-one relationships.
    static func prefetchPaths<T: Entity>(of request: FetchDescriptor<T>) throws -> [[Int]] {
        try request.relationshipKeyPathsForPrefetching.map { keyPath in
            guard let path = T._$entity.relationshipPath(at: keyPath) else {
                throw ObjectGraphError.invalidPropertyAccess(
                    entity: T._$entity.name, property: "\(keyPath)",
                    reason: "prefetching follows a relationship, or a chain of to-one relationships, and this key path is neither")
            }
            return path
        }
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
        return try query.ids(limit: request.fetchLimit, offset: request.fetchOffset)
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
}
