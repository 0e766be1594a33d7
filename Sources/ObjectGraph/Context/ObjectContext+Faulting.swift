import Foundation
import GRDB

/// Reading rows into objects: fetched rows, and faults fulfilled on first access.
extension ObjectContext {
    struct DecodedRow {
        var key: Int64
        var globalID: UUID
        var version: Int64
        var attributes: ContiguousArray<StoredValue>
        var toOne: ContiguousArray<ObjectID?>
    }

    /// Decodes a row selected with ``EntityMapping/selectList``, column by column.
    func decode(_ row: Row, mapping: EntityMapping) -> DecodedRow {
        let attributeCount = mapping.attributeColumns.count
        var attributes = ContiguousArray<StoredValue>()
        attributes.reserveCapacity(attributeCount)
        for column in 0..<attributeCount {
            attributes.append(Self.storedValue(row, 3 + column))
        }
        var toOne = ContiguousArray<ObjectID?>()
        toOne.reserveCapacity(mapping.toOneRelationships.count)
        for (slot, relationship) in mapping.toOneRelationships.enumerated() {
            let key: Int64? = row[3 + attributeCount + slot]
            toOne.append(key.map {
                ObjectID(entity: store.mappings[relationship.destination].declaration, key: $0, store: store.identity)
            })
        }
        let uuid = UUID(storedValue: Self.storedValue(row, 1)) ?? UUID()
        return DecodedRow(key: row[0], globalID: uuid, version: row[2], attributes: attributes, toOne: toOne)
    }

    static func storedValue(_ row: Row, _ index: Int) -> StoredValue {
        let value: DatabaseValue = row[index]
        switch value.storage {
        case .null: return .null
        case .int64(let integer): return .integer(integer)
        case .double(let double): return .real(double)
        case .string(let string): return .text(string)
        case .blob(let data): return .blob(data)
        }
    }

    /// The object for a fetched row: the registered one (loaded if it was a fault), or a new one.
    func object(for row: Row, mapping: EntityMapping) -> any Entity {
        let key: Int64 = row[0]
        let id = ObjectID(entity: mapping.declaration, key: key, store: store.identity)
        if let registered = registry[id] {
            let state = registered.takeUnretainedValue()
            if state.isFault {
                let decoded = decode(row, mapping: mapping)
                state.load(attributes: decoded.attributes, toOne: decoded.toOne, version: decoded.version,
                           globalID: decoded.globalID)
            }
            if let object = state.object { return object }
        }
        let decoded = decode(row, mapping: mapping)
        let state = ObjectState(entity: mapping.declaration, id: id, globalID: decoded.globalID,
                                context: self, mapping: mapping)
        state.load(attributes: decoded.attributes, toOne: decoded.toOne, version: decoded.version,
                           globalID: decoded.globalID)
        return materialize(state)
    }

    /// Reads one object's row.
    func readRow(of state: ObjectState) throws -> DecodedRow? {
        guard let mapping = state.mapping, !state.id.isTemporary else { return nil }
        let sql = "SELECT \(mapping.selectList) FROM \(mapping.table) AS t0 WHERE t0.Z_PK = ?"
        return try store.writer.read { db in
            try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [state.id.key]).map { decode($0, mapping: mapping) }
        }
    }

    /// Loads a fault's values. A row that no longer exists (another context deleted it) makes the
    /// object read as deleted, with default values: reading never traps.
    func fulfillFault(_ state: ObjectState) {
        guard state.isFault else { return }
        if let row = try? readRow(of: state) {
            state.load(attributes: row.attributes, toOne: row.toOne, version: row.version, globalID: row.globalID)
            return
        }
        state.load(attributes: state.entity.layout.initialAttributes,
                   toOne: ContiguousArray(repeating: nil, count: state.entity.layout.toOneProperties.count),
                   version: 0)
        state.isInaccessible = true
        state.isDeleted = true
    }
}
