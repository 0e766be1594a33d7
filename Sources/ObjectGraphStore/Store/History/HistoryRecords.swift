import Foundation
import GRDB

/// The changes of one write transaction, gathered while its statements run and written when it
/// ends: one history record per entity, kind of change and set of changed properties (see
/// ``HistoryTables``).
///
/// Nothing is read back from the rows to record them: inserted rows' keys and global IDs are what
/// the writer just bound, and an update records keys alone (its objects' global IDs are found when
/// the history is read; see ``RowReader/transactions(_:)``). Only deleted rows are read, just
/// before they go, for their global IDs and tombstones. A class, shared by the copies of the
/// transaction's ``RowWriter``.
final class HistoryRecords {
    /// What one record gathers.
    struct Record {
        let entity: String
        let kind: HistoryTables.Kind
        /// An update's changed properties, sorted and comma-separated.
        let changedKeys: String?
        var keys: [Int64] = []
        /// 16 bytes per key, for insertions and deletions.
        var globalIDs: [UInt8] = []
        /// A deletion's tombstones, one per key, as a JSON array being written: its elements so far
        /// (objects, `null` where nothing was preserved), without its brackets.
        var tombstones: [UInt8] = []
        var hasTombstone = false
    }

    private struct RecordKey: Hashable {
        let entity: String
        let kind: HistoryTables.Kind
        let changedKeys: String?
    }

    /// The records in the order of their first change.
    private(set) var records: [Record] = []
    private var indexes: [RecordKey: Int] = [:]
    /// The last record an insertion went to: the rows a save inserts come entity by entity, and a
    /// comparison of one name (the same string each time) is cheaper than a lookup per row.
    private var lastInsertion: (entity: String, index: Int)?

    /// The index of the record of these changes, made when it is the first.
    func recordIndex(entity: String, kind: HistoryTables.Kind, changedKeys: String? = nil) -> Int {
        let key = RecordKey(entity: entity, kind: kind, changedKeys: changedKeys)
        if let index = indexes[key] { return index }
        records.append(Record(entity: entity, kind: kind, changedKeys: changedKeys))
        indexes[key] = records.count - 1
        return records.count - 1
    }

    /// Adds keys to a record (an update's, which records no global IDs).
    func append(keys: some Sequence<Int64>, to index: Int) {
        records[index].keys.append(contentsOf: keys)
    }

    /// Adds an inserted row.
    func appendInsertion(key: Int64, globalID: UUID, entity: String) {
        let index: Int
        if let last = lastInsertion, last.entity == entity {
            index = last.index
        } else {
            index = recordIndex(entity: entity, kind: .insert)
            lastInsertion = (entity, index)
        }
        records[index].keys.append(key)
        HistoryPacking.append(globalID, to: &records[index].globalIDs)
    }

    /// Adds one object to a record of insertions or deletions, with a deletion's tombstone (the
    /// UTF-8 of a JSON object; nil where nothing was preserved).
    func append(key: Int64, globalID: UnsafeRawBufferPointer, tombstone: UnsafeRawBufferPointer? = nil, to index: Int) {
        records[index].keys.append(key)
        records[index].globalIDs.append(contentsOf: globalID)
        if records[index].kind == .delete {
            Self.appendTombstone(tombstone, count: records[index].keys.count, to: &records[index].tombstones)
            if tombstone != nil { records[index].hasTombstone = true }
        }
    }

    /// Adds deleted objects, gathered by the caller (their tombstones as ``Record/tombstones``
    /// holds them, for as many objects), to a record of deletions.
    func appendDeletions(keys: [Int64], globalIDs: [UInt8], tombstones: [UInt8], hasTombstone: Bool, to index: Int) {
        assert(records[index].kind == .delete && globalIDs.count == keys.count * 16)
        if !records[index].keys.isEmpty, !keys.isEmpty { records[index].tombstones.append(UInt8(ascii: ",")) }
        records[index].keys += keys
        records[index].globalIDs += globalIDs
        records[index].tombstones += tombstones
        if hasTombstone { records[index].hasTombstone = true }
    }

    /// Appends a tombstone to the elements of a JSON array, the `count`th.
    static func appendTombstone(_ tombstone: UnsafeRawBufferPointer?, count: Int, to json: inout [UInt8]) {
        if count > 1 { json.append(UInt8(ascii: ",")) }
        if let tombstone { json.append(contentsOf: tombstone) } else { json += "null".utf8 }
    }

    /// Writes the records of transaction `sequence`.
    func write(sequence: Int64, _ db: Database) throws {
        guard !records.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO \(HistoryTables.changes) (Z_SEQUENCE, Z_ENTITY, Z_KIND, Z_KEYS, Z_COUNT, Z_PKS, Z_UUIDS, Z_TOMBSTONES) \
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for record in records where !record.keys.isEmpty {
            assert(record.globalIDs.isEmpty || record.globalIDs.count == record.keys.count * 16, "16 bytes of global ID per key")
            try statement.bind([
                sequence.databaseValue, record.entity.databaseValue, record.kind.rawValue.databaseValue,
                record.changedKeys.databaseValue, record.keys.count.databaseValue,
                Data(HistoryPacking.packKeys(record.keys)).databaseValue,
                record.globalIDs.isEmpty ? .null : Data(record.globalIDs).databaseValue,
                record.hasTombstone ? Self.jsonArray(record.tombstones).databaseValue : .null
            ])
            try statement.execute()
        }
    }

    /// Tombstones as one JSON array, `null` where an object preserved nothing.
    private static func jsonArray(_ elements: [UInt8]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(elements.count + 2)
        json += elements
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }
}
