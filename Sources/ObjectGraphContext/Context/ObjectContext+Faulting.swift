import Algorithms
import Foundation
package import ObjectGraphModel
package import ObjectGraphStore

/// Reading rows into objects: fetched rows, and faults fulfilled on first access.
extension ObjectContext {
    /// The object for a fetched row: the registered one (loaded if it was a fault, otherwise left with
    /// its own values: the context's view of an object changes only by merging or refreshing), or a new
    /// one, whose state goes to `unregistered` for the caller to register once the rows are read.
    func object(for row: CurrentRow, mapping: EntityMapping, unregistered: inout [Unmanaged<ObjectState>]) -> any Entity {
        if let entity = row.entityName, entity != mapping.name, let subentity = store.mapping(named: entity),
            let subentityRow = row.asRow(of: subentity)
        {
            // A subentity's row, read by a query of its parent: an object of its own class, from
            // the columns of its own (registered at once: its parent's are registered together).
            var registered: [Unmanaged<ObjectState>] = []
            let object = object(for: subentityRow, mapping: subentity, unregistered: &registered)
            registry.register(registered, of: subentity.declaration)
            return object
        }
        let id = ObjectID(entity: mapping.declaration, key: row.key, store: store.identity)
        if parent != nil, let inherited = faultInFromAncestors(id), let object = inherited.object {
            if inherited.isFault { inherited.load(row) }
            return object
        }
        if let state = registry.state(for: id), let object = state.object {
            if state.isFault { state.load(row) }
            return object
        }
        let state = ObjectState.make(entity: mapping.declaration, id: id, host: host(for: mapping), row: row)
        let object = MaterializationSlot.materialize(mapping.declaration.type, with: state)
        state.object = object
        unregistered.append(Unmanaged.passUnretained(state))
        return object
    }

    /// The objects for the rows of a query selecting ``EntityMapping/selectList``.
    func objects(from query: SQLFragment, mapping: EntityMapping) throws -> [AnyObject] {
        var objects: [AnyObject] = []
        var unregistered: [Unmanaged<ObjectState>] = []
        // Rows of one query have distinct keys, so registering after the loop loses no uniquing.
        defer { registry.register(unregistered, of: mapping.declaration) }
        try store.reader.forEachRow(query, mapping: mapping) { row in
            objects.append(object(for: row, mapping: mapping, unregistered: &unregistered))
        }
        return objects
    }

    /// The objects for the rows of a search (see `SearchQuery`), each with the rank and snippet
    /// read after its select list.
    func searchResults(of query: SQLFragment, mapping: EntityMapping) throws -> [(object: AnyObject, rank: Double, snippet: String)] {
        var results: [(object: AnyObject, rank: Double, snippet: String)] = []
        var unregistered: [Unmanaged<ObjectState>] = []
        defer { registry.register(unregistered, of: mapping.declaration) }
        try store.reader.forEachRow(query, mapping: mapping) { row in
            let object = object(for: row, mapping: mapping, unregistered: &unregistered)
            guard case .real(let rank) = row.value(atColumn: row.selectListCount) else {
                throw StoreError(resultCode: .mismatch, message: "a search's rank is not a number")
            }
            // NULL when no searchable column holds text in the row.
            guard case .text(let snippet) = row.value(atColumn: row.selectListCount + 1) else {
                results.append((object, rank, ""))
                return
            }
            results.append((object, rank, snippet))
        }
        return results
    }

    /// Reads one object's row and passes it to `body`; nil if the row does not exist.
    func readRow<Result>(of state: ObjectState, _ body: (CurrentRow) -> Result) throws -> Result? {
        guard let mapping = state.mapping, !state.id.isTemporary else { return nil }
        return try store.reader.row(key: state.id.key, mapping: mapping, body)
    }

    /// Reads an object's global ID from its row; nil if the row is gone or cannot be read (the
    /// failure is recorded, see ``readFailures``).
    func readGlobalID(of state: ObjectState) -> UUID? {
        guard let mapping = state.mapping, !state.id.isTemporary else { return nil }
        do {
            return try store.reader.globalID(key: state.id.key, mapping: mapping)
        } catch {
            recordReadFailure(error, of: state, property: nil)
            return nil
        }
    }

    /// Loads a fault's values, for an accessor that cannot throw: a failed read leaves the fault as
    /// it is, recorded in ``readFailures``.
    func fulfillFault(_ state: ObjectState) {
        do {
            try loadFault(state)
        } catch {
            // Recorded by `loadFault`: the accessor reads defaults, the object stays a fault.
        }
    }

    /// Loads a fault's values. A row that no longer exists (another context deleted it) never traps:
    /// the object reads its declared defaults, and with ``shouldDeleteInaccessibleFaults`` it is marked
    /// deleted, reported as deleted at the next ``ObjectsDidChange``. A row that cannot be read is not
    /// a row that is gone: the object stays a fault, and the error is recorded and thrown.
    package func loadFault(_ state: ObjectState) throws {
        guard state.isFault else { return }
        // A child reads what an ancestor changed from the ancestor, as Core Data's does.
        if parent != nil, faultInFromAncestors(state.id) != nil, !state.isFault { return }
        let found: Bool
        do {
            found = try readRow(of: state, { state.load($0) }) != nil
        } catch {
            throw recordReadFailure(error, of: state, property: nil)
        }
        forgetReadFailure(of: state)
        if found { return }
        state.load(state.entity.layout.initialValues, version: 0)
        state.isInaccessible = true
        if shouldDeleteInaccessibleFaults, let object = state.object {
            markDeletedElsewhere(state, object)
        }
    }

    // MARK: Read failures

    /// Records that reading an object (or one of its relationships) failed, and returns the error.
    @discardableResult
    func recordReadFailure(_ error: any Error, of state: ObjectState, property: String?) -> ObjectGraphError {
        let failure = (error as? ObjectGraphError) ?? .readFailed(state.id, property: property, StoreError(error))
        readFailures.record(failure, for: state.id)
        return failure
    }

    /// Forgets an object's failed read, once a read of it succeeded.
    @inline(__always)
    func forgetReadFailure(of state: ObjectState) {
        readFailures.forget(state.id)
    }

    /// Throws the first read that failed since the last save, and forgets them: what a save does
    /// before writing anything.
    func throwReadFailures() throws {
        if let stuck = changes.rulesAwaitingRetry.first { throw stuck.failure }
        if let failure = readFailures.takeFirst() { throw failure }
    }

    /// Loads the rows of the faults among `states`, a chunk of keys per query.
    package func loadFaults(_ states: [ObjectState]) {
        let faults = states.filter { $0.isFault && !$0.id.isTemporary }
        for group in faults.groupedByEntity() {
            guard let mapping = group.first?.mapping else { continue }
            for chunk in group.map(\.id.key).sorted().chunks(ofCount: SQL.inlineListLimit) {
                _ = loadBatch(chunk, mapping: mapping)
            }
        }
    }

    /// Loads the objects of a batch, in the order of `keys`; rows that vanished become faults that
    /// read as deleted. If the rows cannot be read, the objects not read yet are returned as faults:
    /// each reads its row when used, and reports a failure then (see ``readFailures``).
    ///
    /// Rows are read in key order and matched to their positions by walking the sorted keys, without
    /// hashing (the store reads a key range or an `IN` list, see ``RowReader``).
    package func loadBatch(_ batch: ArraySlice<Int64>, mapping: EntityMapping) -> [AnyObject] {
        let keys = Array(batch)
        let isSorted = zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
        let order = isSorted ? Array(keys.indices) : keys.indices.sorted { keys[$0] < keys[$1] }
        guard !keys.isEmpty else { return [] }

        // Objects in key order, with the position in `order` each one belongs to.
        var loaded: [AnyObject] = []
        loaded.reserveCapacity(keys.count)
        var positions: [Int] = []
        positions.reserveCapacity(keys.count)
        var next = 0  // position in `order` of the smallest key not matched yet
        var unregistered: [Unmanaged<ObjectState>] = []
        defer { registry.register(unregistered, of: mapping.declaration) }
        do {
            try store.reader.forEachRow(
                keys: keys, mapping: mapping,
                including: { key in
                    while next < order.count, keys[order[next]] < key { next += 1 }
                    return next < order.count && keys[order[next]] == key
                },
                { row in
                    loaded.append(object(for: row, mapping: mapping, unregistered: &unregistered))
                    positions.append(next)
                    next += 1
                })
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
