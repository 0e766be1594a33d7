import Foundation
package import ObjectGraphModel
import ObjectGraphStore

/// One fetch descriptor's query, run for a context.
package struct FetchQuery<T: Entity> {
    let select: SelectQuery
    let context: ObjectContext
    var mapping: EntityMapping { select.mapping }
    /// The host of the fetched entity's states, which makes the objects of a batch.
    package var host: EntityHost { context.host(for: mapping) }

    package init(request: FetchDescriptor<T>, context: ObjectContext) throws {
        self.select = try SelectQuery(request, store: context.store)
        self.context = context
    }

    /// The query's SQL; unsaved objects have no row, so only saved ones are excluded.
    private func sql(_ selection: SelectQuery.Selection, limit: Int?, offset: Int, excluding: [ObjectID]) -> SQLFragment {
        select.sql(selection, limit: limit, offset: offset, excludingKeys: excluding.lazy.filter { !$0.isTemporary }.map(\.key))
    }

    package func objects(limit: Int?, offset: Int, excluding: [ObjectID] = []) throws -> [AnyObject] {
        try run { try context.objects(from: sql(.rows, limit: limit, offset: offset, excluding: excluding), mapping: mapping) }
    }

    package func keys(limit: Int?, offset: Int) throws -> [Int64] {
        try run { try context.store.reader.keys(sql(.keys, limit: limit, offset: offset, excluding: [])) }
    }

    /// The IDs of the rows, in order.
    package func ids(limit: Int?, offset: Int) throws -> [ObjectID] {
        let store = context.store.identity
        return try keys(limit: limit, offset: offset).map { ObjectID(entity: mapping.declaration, key: $0, store: store) }
    }

    /// The rows of an aggregate over the query's saved rows, `pending` objects left out (they are
    /// counted from memory), and the objects to count from memory: each row holds the count, sum,
    /// minimum and maximum, then the group's values.
    package func aggregate(
        _ function: AggregateFunction, of keyPath: AnyKeyPath?, groupedBy groups: [AnyKeyPath]
    ) throws -> (rows: [[StoredValue]], pending: [any Entity]) {
        let query = try AggregateQuery(select, function: function, keyPath: keyPath, groupedBy: groups, store: context.store)
        let pending = try context.pendingObjects(of: mapping.declaration, reading: query.reads)
        let excluded = pending.lazy.map(\._$state.id).filter { !$0.isTemporary }.map(\.key)
        let rows = try run { try context.store.reader.values(query.sql(excludingKeys: Array(excluded)), columns: query.columnCount) }
        return (rows, pending)
    }

    package func queryPlan(limit: Int?, offset: Int) throws -> [String] {
        try run { try context.store.reader.queryPlan(sql(.rows, limit: limit, offset: offset, excluding: [])) }
    }

    package func count(excluding: [ObjectID]) throws -> Int {
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
