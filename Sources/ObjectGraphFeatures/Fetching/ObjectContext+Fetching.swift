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
        let pending = request.includesPendingChanges ? try pendingObjects(of: query) : []
        if request.fetchBatchSize > 0, pending.isEmpty {
            let keys = try query.keys(limit: request.fetchLimit, offset: request.fetchOffset)
            return FetchResults(
                batches: BatchedObjects(keys: keys, batchSize: request.fetchBatchSize, host: query.host))
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
