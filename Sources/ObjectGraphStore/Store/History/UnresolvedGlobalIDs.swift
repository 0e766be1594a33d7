import Foundation
import GRDB
import ObjectGraphModel

/// The objects of update records read from the history, whose global IDs the records do not keep
/// (see ``HistoryRecords``), found set-wise in the same read transaction.
///
/// A key names one object for the store's whole life (keys are never given twice; an object brought
/// back by undo comes back with its key and global ID), so an updated object's global ID is its
/// row's while the row exists, and once it is gone, the one its deletion recorded: that deletion
/// came after the update, and the history is purged from its oldest transaction, so its record is
/// still there.
struct UnresolvedGlobalIDs {
    /// The keys of each entity but the last one added, as added (duplicates included).
    private var keysByEntity: [String: [Int64]] = [:]
    /// The last entity's keys: consecutive records are mostly of one entity, and hashing its name
    /// and each key for every record cost a history read of one-object transactions a twentieth.
    private var current: (entity: String, keys: [Int64])?

    var isEmpty: Bool { keysByEntity.isEmpty && current == nil }

    mutating func add(_ keys: [Int64], of entity: String) {
        if let current, current.entity != entity {
            keysByEntity[current.entity, default: []].append(contentsOf: current.keys)
            self.current = nil
        }
        if current == nil { current = (entity, []) }
        current?.keys.append(contentsOf: keys)
    }

    /// Every entity's keys, each key once.
    private var keySets: [String: Set<Int64>] {
        var sets = keysByEntity.mapValues { Set($0) }
        if let current { sets[current.entity, default: []].formUnion(current.keys) }
        return sets
    }

    /// The global IDs found, by entity and key. An entity the store does not know (another version
    /// of the app wrote it) is left out, as the history's readers leave out its changes.
    ///
    /// - Parameter firstRecord: The rowid of the first record read: deletions are looked for from
    ///   there on.
    /// - Throws: ``StoreError`` (`corrupt`) when an object has neither a row nor a deletion.
    func resolve(
        mappings: (String) -> EntityMapping?, deletionsFrom firstRecord: Int64, _ db: Database
    ) throws -> [String: [RowKey: UUID]] {
        var found: [String: [RowKey: UUID]] = [:]
        for (entity, keys) in keySets {
            guard let mapping = mappings(entity) else { continue }
            var globalIDs: [RowKey: UUID] = [:]
            globalIDs.reserveCapacity(keys.count)
            for condition in KeySelection(Array(keys)).conditions(on: "Z_PK") {
                let statement = try db.cachedStatement(sql: "SELECT Z_PK, Z_UUID FROM \(mapping.table) WHERE \(condition.sql)")
                try statement.bind(condition.arguments)
                let rows = try Row.fetchCursor(statement)
                while let row = try rows.next() {
                    // A range of keys may take in rows of other entities of a hierarchy.
                    guard keys.contains(row[0]) else { continue }
                    try row.withUnsafeData(atIndex: 1) { data in
                        guard let data, data.count == 16 else {
                            throw HistoryPacking.corrupt("the row of \(entity) \(row[0] as Int64) has no global ID")
                        }
                        globalIDs[RowKey(row[0])] = data.withUnsafeBytes { HistoryPacking.globalID(in: $0, at: 0) }
                    }
                }
            }
            if globalIDs.count < keys.count {
                try findDeleted(keys.subtracting(globalIDs.keys.lazy.map(\.value)), of: entity, from: firstRecord, into: &globalIDs, db)
            }
            found[entity] = globalIDs
        }
        return found
    }

    /// Finds the global IDs of deleted objects in the deletion records from `firstRecord` on.
    private func findDeleted(
        _ missing: Set<Int64>, of entity: String, from firstRecord: Int64, into globalIDs: inout [RowKey: UUID],
        _ db: Database
    ) throws {
        var missing = missing
        let records = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT Z_COUNT, Z_PKS, Z_UUIDS FROM \(HistoryTables.changes) WHERE rowid >= ? AND Z_ENTITY = ? AND Z_KIND = ?"),
            arguments: [firstRecord, entity, HistoryTables.Kind.delete.rawValue])
        while !missing.isEmpty, let record = try records.next() {
            let count: Int = record[0]
            let keys = try record.withUnsafeData(atIndex: 1) { data in
                try (data ?? Data()).withUnsafeBytes { try HistoryPacking.unpackKeys($0, count: count) }
            }
            try record.withUnsafeData(atIndex: 2) { data in
                guard let data, data.count == count * 16 else {
                    throw HistoryPacking.corrupt("a record of \(entity)'s deletions has no global IDs")
                }
                data.withUnsafeBytes { bytes in
                    for (offset, key) in keys.enumerated() where missing.remove(key) != nil {
                        globalIDs[RowKey(key)] = HistoryPacking.globalID(in: bytes, at: offset)
                    }
                }
            }
        }
        guard let key = missing.min() else { return }
        throw HistoryPacking.corrupt(
            "\(entity) \(key) was updated, and has neither a row nor a recorded deletion (was it deleted outside ObjectGraph?)")
    }
}
