import Foundation
import GRDB

/// Reading rows into objects: fetched rows, and faults fulfilled on first access.
extension ObjectContext {
    /// The object for a fetched row: the registered one (loaded if it was a fault, otherwise left with
    /// its own values: the context's view of an object changes only by merging or refreshing), or a new
    /// one, whose state goes to `unregistered` for the caller to register once the rows are read.
    func object(for row: CurrentRow, mapping: EntityMapping, unregistered: inout [Unmanaged<ObjectState>]) -> any Entity {
        let id = ObjectID(entity: mapping.declaration, key: row.key, store: store.identity)
        if let state = registry.state(for: id), let object = state.object {
            if state.isFault { state.load(row) }
            return object
        }
        let state = ObjectState.make(entity: mapping.declaration, id: id, context: self, mapping: mapping, row: row)
        let object = MaterializationSlot.materialize(mapping.declaration.type, with: state)
        state.object = object
        unregistered.append(Unmanaged.passUnretained(state))
        return object
    }

    /// The objects for the rows of a statement selecting ``EntityMapping/selectList``.
    func objects(from statement: Statement, arguments: [DatabaseValue], mapping: EntityMapping) throws -> [AnyObject] {
        var objects: [AnyObject] = []
        var unregistered: [Unmanaged<ObjectState>] = []
        // Rows of one query have distinct keys, so registering after the loop loses no uniquing.
        defer { registry.register(unregistered, of: mapping.declaration) }
        try ObjectRows(mapping: mapping).forEach(statement, arguments: arguments) { row in
            objects.append(object(for: row, mapping: mapping, unregistered: &unregistered))
        }
        return objects
    }

    /// Reads one object's row and passes it to `body`; nil if the row does not exist.
    func readRow<Result>(of state: ObjectState, _ body: (CurrentRow) -> Result) throws -> Result? {
        guard let mapping = state.mapping, !state.id.isTemporary else { return nil }
        return try store.readStatement { db in try readRow(key: state.id.key, mapping: mapping, db, body) }
    }

    /// Reads the row with this key in a connection already in use (a save's transaction, say) and
    /// passes it to `body`; nil if the row does not exist.
    func readRow<Result>(key: Int64, mapping: EntityMapping, _ db: Database,
                         _ body: (CurrentRow) -> Result) throws -> Result? {
        let sql = "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE t0.Z_PK = ?"
        var result: Result?
        try ObjectRows(mapping: mapping).forEach(db.cachedStatement(sql: sql), arguments: [key.databaseValue]) {
            result = body($0)
        }
        return result
    }

    /// Reads an object's global ID from its row; nil if the row cannot be read.
    func readGlobalID(of state: ObjectState) -> UUID? {
        guard let mapping = state.mapping, !state.id.isTemporary else { return nil }
        let sql = "SELECT Z_UUID FROM \(mapping.table) WHERE Z_PK = ?"
        return try? store.readStatement { db in
            try UUID.fetchOne(db.cachedStatement(sql: sql), arguments: [state.id.key])
        }
    }

    /// Loads a fault's values. A row that no longer exists (another context deleted it) never traps:
    /// the object reads its declared defaults, and with ``shouldDeleteInaccessibleFaults`` it is marked
    /// deleted, reported as deleted at the next ``ObjectsDidChange``.
    func fulfillFault(_ state: ObjectState) {
        guard state.isFault else { return }
        if (try? readRow(of: state, { state.load($0) })) != nil { return }
        state.load(state.entity.layout.initialValues, version: 0)
        state.isInaccessible = true
        if shouldDeleteInaccessibleFaults, let object = state.object {
            markDeletedElsewhere(state, object)
        }
    }
}
