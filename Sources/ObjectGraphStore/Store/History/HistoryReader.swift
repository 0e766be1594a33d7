package import Foundation
import GRDB
import GRDBSQLite
import ObjectGraphModel

/// A transaction of the history as stored: the store's view, in keys and entity names.
package struct StoredTransaction {
    package struct Change {
        package let entity: String
        package let key: Int64
        package let kind: HistoryTables.Kind
        /// Nil for an update read without ``StoredHistoryFilter/resolvesGlobalIDs``, or of an
        /// entity the store does not know.
        package var globalID: UUID?
        package let changedKeys: String?
        package let tombstone: String?
    }

    package let sequence: Int64
    package let author: String?
    package let date: Date
    /// Its changes: a slice of one array holding the changes of every transaction read, so that a
    /// read of many small transactions makes no array per transaction.
    package var changes: ArraySlice<Change> = []
}

/// Which stored transactions to read.
package struct StoredHistoryFilter {
    package init(after: Int64 = 0) { self.after = after }

    package var after: Int64 = 0
    package var authors: Set<String>?
    package var excludedAuthors: Set<String>?
    package var entities: Set<String>?
    package var startDate: Date?
    package var endDate: Date?
    package var limit: Int?
    /// Only transactions up to this sequence number.
    package var through: Int64?
    /// Leaves out the transactions of this origin (a container's own).
    package var excludingOrigin: UUID?
    /// Whether every change gets its object's global ID. An update's record keeps keys alone: its
    /// objects' global IDs are read from their rows, or from a later deletion's record, which costs
    /// a read that merging other writers' changes into contexts does without.
    package var resolvesGlobalIDs = true
    /// Whether a purge of transactions after `after` is an error (``ObjectGraphError/Code/historyExpired``)
    /// rather than a gap the reader does not see.
    package var requiresContinuity = false
}

/// Columns of the row a statement stepped directly is on (see ``GRDB/Statement/forEachRowDirectly(in:_:)``).
private enum DirectColumn {
    static func text(_ row: OpaquePointer, _ index: Int32) -> String? {
        guard let text = sqlite3_column_text(row, index) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, index))), as: UTF8.self)
    }

    /// A text column, as the same string as `last` when its bytes are the same: the names of a
    /// history's entities, authors and changed keys repeat from row to row, and a string made for
    /// each costs more than the comparison.
    static func text(_ row: OpaquePointer, _ index: Int32, reusing last: inout String?) -> String? {
        guard let text = sqlite3_column_text(row, index) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, index)))
        // Compared as bytes: `elementsEqual` over the UTF-8 view walked them one by one.
        if var last, last.utf8.count == bytes.count,
            last.withUTF8({ mine in
                guard let mine = mine.baseAddress, let theirs = bytes.baseAddress else { return true }  // both empty
                return memcmp(mine, theirs, bytes.count) == 0
            })
        {
            return last
        }
        let made = String(decoding: bytes, as: UTF8.self)
        last = made
        return made
    }

    /// A blob's bytes, valid until the statement steps again (none for NULL or an empty blob).
    static func bytes(_ row: OpaquePointer, _ index: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: sqlite3_column_blob(row, index), count: Int(sqlite3_column_bytes(row, index)))
    }
}

/// Reads and purges the persistent history (see ``HistoryTables``).
extension RowReader {
    /// The last transaction's sequence number, purged or not; 0 for none.
    package func lastSequence() throws -> Int64 {
        try read { db in try HistoryTables.lastSequence(db) }
    }

    /// The registered consumers of the history, the one furthest behind first.
    package func historyConsumers() throws -> [StoredHistoryConsumer] {
        try read { db in try HistoryConsumers.all(db) }
    }

    /// The transactions matching `filter`, oldest first, with their changes (of the filter's
    /// entities only), read in one snapshot of the store.
    package func transactions(_ filter: StoredHistoryFilter) throws -> [StoredTransaction] {
        do {
            return try store.writer.read { db in try transactions(filter, db) }
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    private func transactions(_ filter: StoredHistoryFilter, _ db: Database) throws -> [StoredTransaction] {
        if filter.requiresContinuity {
            let purged = try HistoryTables.purgedThrough(db)
            if filter.after < purged { throw ObjectGraphError.historyExpired(after: filter.after, purgedThrough: purged) }
        }
        var conditions: [SQLFragment] = [SQLFragment("t.Z_SEQUENCE > ?", arguments: [filter.after.databaseValue])]
        if let authors = filter.authors {
            conditions.append("t.Z_AUTHOR IN " + SQL.list(authors.sorted().map(\.databaseValue)))
        }
        if let excluded = filter.excludedAuthors, !excluded.isEmpty {
            conditions.append("(t.Z_AUTHOR IS NULL OR t.Z_AUTHOR NOT IN " + SQL.list(excluded.sorted().map(\.databaseValue)) + ")")
        }
        if let start = filter.startDate {
            conditions.append(SQLFragment("t.Z_TIMESTAMP >= ?", arguments: [start.timeIntervalSince1970.databaseValue]))
        }
        if let end = filter.endDate {
            conditions.append(SQLFragment("t.Z_TIMESTAMP < ?", arguments: [end.timeIntervalSince1970.databaseValue]))
        }
        if let through = filter.through {
            conditions.append(SQLFragment("t.Z_SEQUENCE <= ?", arguments: [through.databaseValue]))
        }
        if let origin = filter.excludingOrigin {
            conditions.append(SQLFragment("t.Z_ORIGIN IS NOT ?", arguments: [origin.uuidString.databaseValue]))
        }
        let entityCondition = filter.entities.map { "c.Z_ENTITY IN " + SQL.list($0.sorted().map(\.databaseValue)) }
        if let entityCondition {
            let transactionChanges = "c.rowid >= t.Z_FIRSTCHANGE AND c.rowid < t.Z_ENDCHANGE"
            conditions.append(
                SQLFragment(
                    "EXISTS (SELECT 1 FROM \(HistoryTables.changes) AS c WHERE \(transactionChanges) AND ", entityCondition, ")"))
        }
        let whereClause = conditions.dropFirst().reduce(conditions[0]) { $0 + " AND " + $1 }
        let query = SQLFragment(
            "SELECT t.Z_SEQUENCE, t.Z_AUTHOR, t.Z_TIMESTAMP, t.Z_FIRSTCHANGE, t.Z_ENDCHANGE FROM \(HistoryTables.transactions) AS t WHERE ",
            whereClause, " ORDER BY t.Z_SEQUENCE" + (filter.limit.map { " LIMIT \(max(0, $0))" } ?? ""))
        var transactions: [StoredTransaction] = []
        var changeRange: (first: Int64, end: Int64)?
        // Stepped through SQLite alone: a GRDB row costs more per column than the rest of the read.
        let transactionQuery = try db.cachedStatement(sql: query.sql)
        try transactionQuery.bind(query.arguments)
        var lastAuthor: String?
        try transactionQuery.forEachRowDirectly(in: db) { row in
            transactions.append(
                StoredTransaction(
                    sequence: sqlite3_column_int64(row, 0), author: DirectColumn.text(row, 1, reusing: &lastAuthor),
                    date: Date(timeIntervalSince1970: sqlite3_column_double(row, 2))))
            changeRange = (changeRange?.first ?? sqlite3_column_int64(row, 3), sqlite3_column_int64(row, 4))
        }
        guard let changeRange else { return [] }
        // The records of the transactions read, in the order of their transactions: one scan of
        // the change table's rows between theirs.
        var records = SQLFragment(
            """
            SELECT c.Z_SEQUENCE, c.Z_ENTITY, c.Z_KIND, c.Z_KEYS, c.Z_COUNT, c.Z_PKS, c.Z_UUIDS, c.Z_TOMBSTONES \
            FROM \(HistoryTables.changes) AS c WHERE c.rowid >= ? AND c.rowid < ?
            """, arguments: [changeRange.first.databaseValue, changeRange.end.databaseValue])
        if let entityCondition { records = records + " AND " + entityCondition }
        let statement = try db.cachedStatement(sql: (records + " ORDER BY c.rowid").sql)
        try statement.bind(records.arguments)
        var unresolved = UnresolvedGlobalIDs()
        var index = 0
        var (lastEntity, lastChangedKeys): (String?, String?) = (nil, nil)
        // Every change read, in transaction order, and where each transaction's changes begin.
        var changes: [StoredTransaction.Change] = []
        var firstChange = Array(repeating: 0, count: transactions.count + 1)
        try statement.forEachRowDirectly(in: db) { row in
            // A record of a transaction the filter left out is skipped.
            let sequence = sqlite3_column_int64(row, 0)
            while index < transactions.count, transactions[index].sequence < sequence {
                index += 1
                firstChange[index] = changes.count
            }
            guard index < transactions.count, transactions[index].sequence == sequence else { return }
            let entity = DirectColumn.text(row, 1, reusing: &lastEntity) ?? ""
            guard let kind = HistoryTables.Kind(rawValue: sqlite3_column_int64(row, 2)) else {
                throw HistoryPacking.corrupt("a record of \(entity) in transaction \(sequence) has an unknown kind")
            }
            let changedKeys = DirectColumn.text(row, 3, reusing: &lastChangedKeys)
            let count = Int(sqlite3_column_int64(row, 4))
            let keys = try HistoryPacking.unpackKeys(DirectColumn.bytes(row, 5), count: count)
            let tombstones = try kind == .delete ? Self.tombstones(DirectColumn.text(row, 7), count: count, entity: entity, db) : nil
            let globalIDs = sqlite3_column_type(row, 6) == SQLITE_NULL ? nil : DirectColumn.bytes(row, 6)
            if let globalIDs, globalIDs.count != count * 16 {
                throw HistoryPacking.corrupt("a record of \(entity) has \(globalIDs.count) bytes of global IDs for \(count) objects")
            }
            if globalIDs == nil, kind != .update {
                throw HistoryPacking.corrupt("a record of \(entity)'s \(kind == .insert ? "insertions" : "deletions") has no global IDs")
            }
            for (offset, key) in keys.enumerated() {
                changes.append(
                    StoredTransaction.Change(
                        entity: entity, key: key, kind: kind,
                        globalID: globalIDs.map { HistoryPacking.globalID(in: $0, at: offset) },
                        changedKeys: changedKeys, tombstone: tombstones?[offset]))
            }
            if globalIDs == nil, filter.resolvesGlobalIDs { unresolved.add(keys, of: entity) }
        }
        if !unresolved.isEmpty {
            let found = try unresolved.resolve(
                mappings: { store.mapping(named: $0) }, deletionsFrom: changeRange.first, db)
            var last: (entity: String, globalIDs: [RowKey: UUID])?
            for offset in changes.indices where changes[offset].globalID == nil {
                let change = changes[offset]
                if last?.entity != change.entity { last = found[change.entity].map { (change.entity, $0) } }
                changes[offset].globalID = last?.globalIDs[RowKey(change.key)]
            }
        }
        for later in index + 1..<firstChange.count { firstChange[later] = changes.count }
        for index in transactions.indices { transactions[index].changes = changes[firstChange[index]..<firstChange[index + 1]] }
        return transactions
    }

    /// A deletion record's tombstones, one per object (nil where it preserved nothing).
    private static func tombstones(_ json: String?, count: Int, entity: String, _ db: Database) throws -> [String?] {
        guard let json else { return Array(repeating: nil, count: count) }
        let values = try String?.fetchAll(
            db.cachedStatement(sql: "SELECT CASE type WHEN 'null' THEN NULL ELSE json(value) END FROM json_each(?) ORDER BY key"),
            arguments: [json])
        guard values.count == count else {
            throw HistoryPacking.corrupt("a record of \(entity)'s deletions has \(values.count) tombstones for \(count) objects")
        }
        return values
    }
}

extension RowWriter {
    /// Registers or moves a consumer of the history (see ``HistoryConsumers``).
    package func setHistoryConsumer(_ name: String, sequence: Int64) throws {
        try HistoryConsumers.set(name, sequence: sequence, db)
    }

    package func removeHistoryConsumer(_ name: String) throws {
        try HistoryConsumers.remove(name, db)
    }

    /// Deletes the transactions up to and including `sequence`, or committed before `date`, with
    /// their changes; returns how many went.
    package func purgeHistory(through sequence: Int64?, before date: Date?) throws -> Int {
        var last: Int64
        let oldest = try HistoryConsumers.oldest(db)
        if let sequence {
            // Asked for by token: passing a consumer is refused, naming it.
            if let oldest, sequence > oldest.sequence {
                throw ObjectGraphError.historyInUse(consumer: oldest.name, position: oldest.sequence, through: sequence)
            }
            last = sequence
        } else if let date {
            last =
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT MAX(Z_SEQUENCE) FROM \(HistoryTables.transactions) WHERE Z_TIMESTAMP < ?
                        """, arguments: [date.timeIntervalSince1970]) ?? 0  // NULL: no transaction is older
        } else {
            return 0
        }
        // By date: up to the consumer furthest behind at most.
        if sequence == nil, let oldest { last = min(last, oldest.sequence) }
        // The changes before the first transaction kept; all of them when none is kept.
        try db.execute(
            sql: """
                DELETE FROM \(HistoryTables.changes) WHERE rowid < COALESCE(
                    (SELECT Z_FIRSTCHANGE FROM \(HistoryTables.transactions) WHERE Z_SEQUENCE > ? ORDER BY Z_SEQUENCE LIMIT 1),
                    \(HistoryTables.nextChange))
                """, arguments: [last])
        try db.execute(sql: "DELETE FROM \(HistoryTables.transactions) WHERE Z_SEQUENCE <= ?", arguments: [last])
        let purged = db.changesCount
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(HistoryTables.changes))") != true {
            // The next change row is number 1 again: the transactions kept (none has changes) say so.
            try db.execute(sql: "UPDATE \(HistoryTables.transactions) SET Z_FIRSTCHANGE = 1, Z_ENDCHANGE = 1")
        }
        return purged
    }
}
