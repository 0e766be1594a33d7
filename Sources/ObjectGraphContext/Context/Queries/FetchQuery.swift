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

    /// The objects of the rows, each loaded with the values at `positions` only, when it is a
    /// fault (see ``ObjectState/loadPartially(_:)``): what `FetchDescriptor.propertiesToFetch`
    /// asks for. An object this context holds keeps its values.
    /// A value kept in a file is left out: it is read with the whole row, when first asked for.
    /// An entity with subentities reads whole rows.
    package func partialObjects(positions: [Int], limit: Int?, offset: Int, excluding: [ObjectID] = []) throws -> [AnyObject] {
        // Rows of subentities are objects of their own classes, read whole.
        if mapping.hierarchy?.hasSubentities == true { return try objects(limit: limit, offset: offset, excluding: excluding) }
        let positions = positions.filter { !mapping.readsFiles(atSlot: $0) }
        let rows = try run {
            try context.store.reader.values(
                sql(.keysAndValues(positions), limit: limit, offset: offset, excluding: excluding), columns: 1 + positions.count)
        }
        let store = context.store.identity
        let ids = try rows.map { row in
            guard case .integer(let key)? = row.first else {
                throw ObjectGraphError.query(StoreError(resultCode: .mismatch, message: "a row without a key"), entity: mapping.name)
            }
            return ObjectID(entity: mapping.declaration, key: key, store: store)
        }
        let objects = context.objects(with: ids, of: mapping.declaration)
        for (object, row) in zip(objects, rows) {
            object._$state.loadPartially(zip(positions, row.dropFirst()).lazy.map { (position: $0, value: $1) })
        }
        return objects.map { $0 as AnyObject }
    }

    /// The saved objects whose searchable text holds every word of `text` (see
    /// `SearchIndex.pattern(matching:)`), with their rank and snippet; by rank unless `sorted`.
    package func search(
        _ text: String, sorted: Bool, limit: Int?, excluding: [ObjectID]
    ) throws -> [(object: AnyObject, rank: Double, snippet: String)] {
        let query = try SearchQuery(select, entities: context.store.schema.entities)
        guard let pattern = SearchIndex.pattern(matching: text) else { return [] }
        let sql = query.sql(
            pattern: pattern, sorted: sorted, limit: limit, excludingKeys: excluding.lazy.filter { !$0.isTemporary }.map(\.key))
        return try run { try context.searchResults(of: sql, mapping: mapping) }
    }

    /// What a search's snippets hold around each match (see ``search(_:sorted:limit:excluding:)``).
    package static var snippetMarks: (start: Unicode.Scalar, end: Unicode.Scalar) {
        (SearchSnippetMarks.startScalar, SearchSnippetMarks.endScalar)
    }

    /// Which of `objects` (unsaved: their rows are not what they hold) hold every word of `text`,
    /// as the store's index would match their text, with their rank among them and their snippet.
    package func searchUnsaved(
        _ objects: [any Entity], matching text: String
    ) throws -> [(object: any Entity, rank: Double, snippet: String)] {
        let index = try SearchQuery(select, entities: context.store.schema.entities).index
        guard let pattern = SearchIndex.pattern(matching: text), !objects.isEmpty else { return [] }
        let documents = objects.map { object in
            // A fault changed only through an inverse reads its row first.
            object._$state.fulfillIfNeeded()
            // Each object's columns are its own entity's: a subentity's object may have more.
            let columns = object._$state.mapping?.attributeColumns ?? mapping.attributeColumns
            return index.columns.map { column -> String? in
                guard let slot = columns.firstIndex(of: column) else { return nil }
                if case .text(let text) = object._$state.value(atPosition: slot) { return text }
                return nil
            }
        }
        let matches = try run { try PendingSearch.matches(documents, columns: index.columns.count, pattern: pattern) }
        return matches.map { (objects[$0.document], $0.rank, $0.snippet) }
    }

    package func keys(limit: Int?, offset: Int) throws -> [Int64] {
        try run { try context.store.reader.keys(sql(.keys, limit: limit, offset: offset, excluding: [])) }
    }

    /// The IDs of the rows, in order.
    package func ids(limit: Int?, offset: Int) throws -> [ObjectID] {
        let store = context.store.identity
        guard mapping.hierarchy?.hasSubentities == true else {
            return try keys(limit: limit, offset: offset).map { ObjectID(entity: mapping.declaration, key: $0, store: store) }
        }
        // Each row's ID names its own entity, a subentity's maybe.
        let rows = try run {
            try context.store.reader.values(sql(.keysAndEntities, limit: limit, offset: offset, excluding: []), columns: 2)
        }
        return try rows.map { row in
            guard case .integer(let key) = row[0], case .text(let name) = row[1], let entity = context.store.mapping(named: name) else {
                throw ObjectGraphError.query(
                    StoreError(resultCode: .mismatch, message: "a row of \(mapping.name) names no entity of the model: \(row)"),
                    entity: mapping.name)
            }
            return ObjectID(entity: entity.declaration, key: key, store: store)
        }
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
