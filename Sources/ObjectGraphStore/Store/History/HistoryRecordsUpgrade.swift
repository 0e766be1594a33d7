import Foundation
import GRDB

/// Rewrites a change table of one row per object (every version before the records) as records,
/// on open, in the transaction that prepares the store: the transactions, their order, authors,
/// objects, global IDs and tombstones stay as they were (see ``HistoryTables``).
enum HistoryRecordsUpgrade {
    /// Moves the rows of `table` (columns `Z_SEQUENCE, Z_ENTITY, Z_PK, Z_KIND, Z_UUID, Z_KEYS,
    /// Z_TOMBSTONE`) into the record table, then drops it.
    ///
    /// An update's record keeps keys alone, as this version writes it: its objects' global IDs are
    /// their rows', or a later deletion's.
    ///
    /// - Throws: ``StoreError`` (`corrupt`) for a row this code never wrote: an unknown kind, an
    ///   insertion or deletion without its 16-byte global ID.
    static func run(from table: String, _ db: Database) throws {
        var records = HistoryRecords()
        var sequence: Int64?
        let rows = try Row.fetchCursor(
            db, sql: "SELECT Z_SEQUENCE, Z_ENTITY, Z_PK, Z_KIND, Z_UUID, Z_KEYS, Z_TOMBSTONE FROM \(table) ORDER BY Z_SEQUENCE")
        while let row = try rows.next() {
            let rowSequence: Int64 = row[0]
            if rowSequence != sequence {
                if let sequence { try records.write(sequence: sequence, db) }
                (sequence, records) = (rowSequence, HistoryRecords())
            }
            let (entity, key, changedKeys): (String, Int64, String?) = (row[1], row[2], row[5])
            guard let kind = HistoryTables.Kind(rawValue: row[3]) else {
                throw HistoryPacking.corrupt("a change of \(entity) \(key) in transaction \(rowSequence) has an unknown kind")
            }
            if kind == .update {
                records.append(keys: [key], to: records.recordIndex(entity: entity, kind: kind, changedKeys: changedKeys ?? ""))
                continue
            }
            guard let globalID = row[4] as Data?, globalID.count == 16 else {
                throw HistoryPacking.corrupt("a change of \(entity) \(key) in transaction \(rowSequence) has no global ID")
            }
            let index = records.recordIndex(entity: entity, kind: kind)
            let tombstone: String? = row[6]
            globalID.withUnsafeBytes { globalID in
                if var tombstone {
                    tombstone.withUTF8 { records.append(key: key, globalID: globalID, tombstone: UnsafeRawBufferPointer($0), to: index) }
                } else {
                    records.append(key: key, globalID: globalID, to: index)
                }
            }
        }
        if let sequence { try records.write(sequence: sequence, db) }
        try db.execute(sql: "DROP TABLE \(table)")
        try HistoryTables.assignChangeRanges(db)
    }
}
