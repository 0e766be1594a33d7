import Algorithms
package import Foundation
package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// Writes rows inside one write transaction: key allocation, inserts, versioned updates, set-wise
/// deletes, join-table links and the transaction's record in the history.
///
/// Made by ``SQLiteStore/write(_:)`` for the length of a transaction; every statement a save needs
/// is built here, and prepared statements are cached per connection. New rows get their primary keys
/// from ``allocateKeys(_:for:)``; keys written afterwards (foreign keys, links) may be temporary keys,
/// which the writer replaces with the allocated ones (see ``permanentKey(_:)``).
package struct RowWriter {
    package let db: Database
    /// The primary keys allocated in this transaction, by temporary key (temporary keys are unique in
    /// the process).
    package private(set) var newKeys: AllocatedKeys = [:]
    /// The transaction's sequence in the history, once recorded (see ``recordTransaction(author:date:origin:)``).
    package private(set) var sequence: Int64 = 0
    /// The insert and update statements of this transaction.
    private let statements: WriteStatements
    /// The files this transaction writes for values stored outside the rows; nil when the model
    /// has no such value, or the store is in memory.
    let externalWrites: ExternalWrites?
    /// The transaction's changes, written to the history when it ends.
    private let history = HistoryRecords()

    init(db: Database, externalWrites: ExternalWrites?) {
        self.db = db
        self.statements = WriteStatements(db: db)
        self.externalWrites = externalWrites
    }

    /// A key as written: a temporary key becomes the key allocated for it.
    package func permanentKey(_ key: Int64?) -> Int64? {
        guard let key else { return nil }
        return key < 0 ? newKeys[key] : key
    }

    /// A key as bound to a statement: the permanent key, NULL for none.
    private func resolve(_ key: Int64?) -> DatabaseValue {
        permanentKey(key)?.databaseValue ?? .null
    }

    // MARK: Keys

    /// Gives the next primary keys of an entity's table to new rows, known by their temporary keys.
    package mutating func allocateKeys(_ temporaryKeys: [Int64], for mapping: EntityMapping) throws {
        guard !temporaryKeys.isEmpty else { return }
        newKeys.reserveCapacity(newKeys.count + temporaryKeys.count)
        var next =
            try Int64.fetchOne(db, sql: "SELECT max FROM Z_PRIMARYKEY WHERE entity = ?", arguments: [mapping.keySpace])
            ?? Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(Z_PK), 0) FROM \(mapping.table)") ?? 0
        for key in temporaryKeys {
            next += 1
            newKeys[key] = next
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO Z_PRIMARYKEY (entity, max) VALUES (?, ?)",
            arguments: [mapping.keySpace, next])
    }

    // MARK: Rows

    /// Inserts a new row, with version 1, and records it in the history.
    // Specialized for object states here, where the store knows them: the context's saves call it
    // from another module, which could otherwise only call the generic form.
    @_specialize(exported:true,where Values == ObjectState)
    package func insert<Values: RowValues>(_ row: Values, id: ObjectID, globalID: UUID, mapping: EntityMapping) throws {
        let statement = try statements.statement(.insert, of: mapping)
        try statement.resetForBinding()
        guard let key = permanentKey(id.key) else {
            throw StoreError(resultCode: .misuse, message: "no key was allocated for the new row \(id) of \(mapping.name)")
        }
        try statement.bind(key: key, at: 1)
        try statement.bind(globalID, at: 2)
        try statement.bind(.integer(1), at: 3)
        var index: CInt = 4
        let externalWrites = mapping.externalFiles == nil ? nil : self.externalWrites
        for position in 0..<mapping.attributeColumns.count {
            if let externalWrites, mapping.externalSlots.contains(position) {
                try statement.bind(
                    externalWrites.columnValue(for: row.value(atPosition: position), id: id, slot: position, mapping: mapping), at: index)
            } else {
                try statement.bind(row.value(atPosition: position), at: index)
            }
            index += 1
        }
        for foreignKey in mapping.foreignKeys {
            try statement.bind(key: permanentKey(row.relatedKey(at: foreignKey.slot)), at: index)
            index += 1
        }
        try execute(statement, row: row, id: id, mapping: mapping, globalID: globalID)
        if sequence > 0 { history.appendInsertion(key: key, globalID: globalID, entity: mapping.name) }
    }

    /// Writes a row's values at some positions and increments its version; with `version`, only if
    /// the row still has it. Returns whether the row was written (true when there is nothing to
    /// write). With `bumpingVersion`, the version is incremented even when no column is written (a
    /// change of join-table rows, which have no version of their own).
    @_specialize(exported:true,where Values == ObjectState)
    package func update<Values: RowValues>(
        _ row: Values, id: ObjectID, positions: [Int], ifVersion version: Int64?,
        bumpingVersion: Bool, mapping: EntityMapping
    ) throws -> Bool {
        let columns = positions.filter(mapping.hasColumn(atPosition:))
        guard !columns.isEmpty || bumpingVersion else { return true }
        let statement = try statements.statement(.update(positions: columns, versioned: version != nil), of: mapping)
        try statement.resetForBinding()
        var index: CInt = 1
        let attributeCount = mapping.attributeColumns.count
        let externalWrites = mapping.externalFiles == nil ? nil : self.externalWrites
        for position in columns {
            if let externalWrites, mapping.externalSlots.contains(position) {
                try statement.bind(
                    externalWrites.columnValue(for: row.value(atPosition: position), id: id, slot: position, mapping: mapping), at: index)
            } else if position < attributeCount {
                try statement.bind(row.value(atPosition: position), at: index)
            } else {
                try statement.bind(key: permanentKey(row.relatedKey(at: position - attributeCount)), at: index)
            }
            index += 1
        }
        try statement.bind(key: id.key, at: index)
        if let version { try statement.bind(key: version, at: index + 1) }
        try execute(statement, row: row, id: id, mapping: mapping)
        // SQLite's count directly: GRDB's `changesCount` first checks the dispatch queue it runs
        // on, which cost more than the rest of this function's Swift work per updated row.
        return sqlite3_changes(db.sqliteConnection) > 0
    }

    /// Sets attributes of a row to NULL without touching its version, if the row has `version`.
    package func clear(_ slots: [Int], ofRow key: Int64, ifVersion version: Int64, mapping: EntityMapping) throws {
        let assignments = slots.map { "\(mapping.quotedAttributeColumns[$0]) = NULL" }.joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(mapping.table) SET \(assignments) WHERE Z_PK = ? AND Z_VERSION = ?")
            .execute(arguments: [key, version])
    }

    /// Sets attributes of rows, the same value in every row, and increments their versions. A value
    /// of an attribute stored outside the rows stays in the rows: one file per row would be as
    /// many copies, and rows sharing one file could not each remove it.
    package func update(keys: KeySelection, setting values: [(slot: Int, value: StoredValue)], mapping: EntityMapping) throws {
        let assignments = values.map { "\(mapping.quotedAttributeColumns[$0.slot]) = ?" } + ["Z_VERSION = Z_VERSION + 1"]
        for condition in keys.conditions(on: "Z_PK") {
            do {
                try execute(
                    "UPDATE \(mapping.table) SET \(assignments.joined(separator: ", ")) WHERE \(condition.sql)",
                    values.map { $0.value.databaseValue } + condition.arguments)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                let columns = Self.uniqueColumns(of: error)
                if columns.count > 1, let group = mapping.uniqueGroups.first(where: { $0.columns == columns }) {
                    throw ObjectGraphError.invalidBatchOperation(
                        entity: mapping.name, property: group.properties.joined(separator: ", "),
                        reason: "the properties \(group.name) are unique together, and the update would give two rows the same values")
                }
                throw ObjectGraphError.invalidBatchOperation(
                    entity: mapping.name, property: columns.first ?? "",
                    reason: "the attribute is unique, and the update would give several rows one value")
            }
        }
    }

    /// The version of a row; nil if the row does not exist.
    package func version(ofRow key: Int64, mapping: EntityMapping) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT Z_VERSION FROM \(mapping.table) WHERE Z_PK = ?", arguments: [key])
    }

    /// Reads a row as this transaction sees it and passes it to `body`; nil if it does not exist.
    package func row<Result>(key: Int64, mapping: EntityMapping, _ body: (CurrentRow) -> Result) throws -> Result? {
        try RowReader.row(key: key, mapping: mapping, db, body)
    }

    /// Runs a statement that writes one row; a uniqueness violation names the object and the value
    /// (a global ID given twice, by a context's `insert(_:globalID:)`, as `objectGlobalID`).
    private func execute(
        _ statement: Statement, row: some RowValues, id: ObjectID, mapping: EntityMapping,
        globalID: UUID? = nil
    ) throws {
        do {
            try statement.runDirectly(in: db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let column = error.message?.components(separatedBy: ".").last ?? ""
            if column == "Z_UUID", let globalID {
                throw ObjectGraphError.validationFailed([
                    ValidationFailure(
                        entity: mapping.name, objectID: id, property: "objectGlobalID", reason: .notUnique(globalID.storedValue))
                ])
            }
            let columns = Self.uniqueColumns(of: error)
            if columns.count > 1, let group = mapping.uniqueGroups.first(where: { $0.columns == columns }) {
                let attributeCount = mapping.attributeColumns.count
                let values = group.positions.map { position in
                    position < attributeCount
                        ? row.value(atPosition: position)
                        : permanentKey(row.relatedKey(at: position - attributeCount)).map(StoredValue.integer) ?? .null
                }
                throw ObjectGraphError.validationFailed([
                    ValidationFailure(
                        entity: mapping.name, objectID: id, property: nil,
                        reason: .notUniqueTogether(properties: group.properties, values: values))
                ])
            }
            let slot = mapping.attributeColumns.firstIndex(of: column)
            throw ObjectGraphError.validationFailed([
                ValidationFailure(
                    entity: mapping.name, objectID: id, property: slot.map { mapping.attributeColumns[$0] },
                    reason: .notUnique(slot.map { row.value(atPosition: $0) } ?? .null))
            ])
        }
    }

    /// The columns of the unique index a statement broke, from SQLite's message
    /// (`UNIQUE constraint failed: Person.firstName, Person.lastName`).
    static func uniqueColumns(of error: DatabaseError) -> [String] {
        guard let message = error.message, let colon = message.range(of: ": ") else { return [] }
        return message[colon.upperBound...].components(separatedBy: ", ").map { qualified in
            qualified.split(separator: ".", maxSplits: 1).last.map(String.init) ?? qualified
        }
    }

    /// Deletes rows set-wise, with their join-table links, and records each deletion in the
    /// history with its global ID and the values the entity preserves, read just before.
    ///
    /// (Read by a `SELECT` of the same rows, not returned by the `DELETE`: a `DELETE … RETURNING`
    /// makes SQLite find each row twice and keep what it returns in a table of its own, which cost
    /// more than reading them first, whose pages the `DELETE` then finds in the cache.)
    ///
    /// - Parameter rows: Conditions on the table aliased `t0` that select the same rows, when cheaper
    ///   than the keys (a batch deletion's own condition); the keys' by default.
    package func delete(keys: KeySelection, mapping: EntityMapping, rows: [SQLFragment]? = nil) throws {
        let rows = rows ?? keys.conditions(on: "t0.Z_PK")
        for condition in rows {
            if sequence > 0 { try recordDeletions(of: condition, mapping: mapping) }
            try execute("DELETE FROM \(mapping.table) AS t0 WHERE \(condition.sql)", condition.arguments)
        }
        // The rows are gone: their links go by key.
        for relationship in mapping.toManyRelationships {
            guard case let .joinTable(table, source, _, _) = relationship.storage else { continue }
            for condition in keys.conditions(on: source) {
                try execute("DELETE FROM \(SQL.quote(table)) WHERE \(condition.sql)", condition.arguments)
            }
        }
    }

    /// Records the deletion of the rows `condition` selects, before they go.
    private func recordDeletions(of condition: SQLFragment, mapping: EntityMapping) throws {
        let statement = try db.cachedStatement(
            sql: "SELECT t0.Z_PK, t0.Z_UUID, \(mapping.tombstoneSQL) FROM \(mapping.table) AS t0 WHERE \(condition.sql)")
        try statement.bind(condition.arguments)
        var keys: [Int64] = []
        var globalIDs: [UInt8] = []
        var tombstones: [UInt8] = []
        var hasTombstone = false
        try statement.forEachRowDirectly(in: db) { row in
            // Every row has a 16-byte global ID (the table's constraints).
            guard sqlite3_column_type(row, 1) == SQLITE_BLOB, let globalID = sqlite3_column_blob(row, 1),
                sqlite3_column_bytes(row, 1) == 16
            else {
                throw HistoryPacking.corrupt("the row of \(mapping.name) \(sqlite3_column_int64(row, 0)) has no global ID")
            }
            keys.append(sqlite3_column_int64(row, 0))
            globalIDs.append(contentsOf: UnsafeRawBufferPointer(start: globalID, count: 16))
            // The tombstone's bytes go straight into the record's JSON array, never a string each.
            let tombstone = sqlite3_column_text(row, 2).map { UnsafeRawBufferPointer(start: $0, count: Int(sqlite3_column_bytes(row, 2))) }
            if tombstone != nil { hasTombstone = true }
            HistoryRecords.appendTombstone(tombstone, count: keys.count, to: &tombstones)
        }
        history.appendDeletions(
            keys: keys, globalIDs: globalIDs, tombstones: tombstones, hasTombstone: hasTombstone,
            to: history.recordIndex(entity: mapping.name, kind: .delete))
    }

    /// Runs a statement (cached: the statements of a batch repeat) with its arguments, bound
    /// without GRDB's generic `StatementArguments` (see ``GRDB/Statement/bind(_:)``).
    package func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.bind(arguments)
        try statement.execute()
    }

    // MARK: Links

    /// Writes the position of each member of an ordered one-to-many relationship in its order column.
    package func setPositions(of members: some Sequence<Int64>, table: String, orderColumn: String) throws {
        let statement = try db.cachedStatement(
            sql: "UPDATE \(SQL.quote(table)) SET \(SQL.quote(orderColumn)) = ? WHERE Z_PK = ?")
        for (position, member) in members.enumerated() {
            try statement.execute(arguments: [position.databaseValue, resolve(member)])
        }
    }

    /// The keys an owner is linked to in a join table, its own keys being in `ownerColumn`.
    package func linkedKeys(table: String, ownerColumn: String, owner: Int64?) throws -> [Int64?] {
        let column = ownerColumn == "Z_SOURCE" ? "Z_TARGET" : "Z_SOURCE"
        return try Int64?.fetchAll(
            db, sql: "SELECT \(column) FROM \(SQL.quote(table)) WHERE \(ownerColumn) = ?", arguments: [owner])
    }

    /// Adds a join-table row (nothing if it exists) or removes one.
    package func writeLink(_ link: JoinTableLink, exists: Bool) throws {
        let sql =
            exists
            ? "INSERT INTO \(SQL.quote(link.table)) (Z_SOURCE, Z_TARGET) VALUES (?, ?) ON CONFLICT (Z_SOURCE, Z_TARGET) DO NOTHING"
            : "DELETE FROM \(SQL.quote(link.table)) WHERE Z_SOURCE = ? AND Z_TARGET = ?"
        try db.cachedStatement(sql: sql).execute(arguments: [link.source, link.target])
    }

    /// Writes a join-table row's position in an ordered many-to-many relationship, if the row exists.
    package func setPosition(_ position: Int, of link: JoinTableLink, orderColumn: String) throws {
        try db.cachedStatement(sql: "UPDATE \(SQL.quote(link.table)) SET \(orderColumn) = ? WHERE Z_SOURCE = ? AND Z_TARGET = ?")
            .execute(arguments: [position.databaseValue, link.source, link.target])
    }

    // MARK: History

    /// Records the transaction in the history; every change recorded afterwards belongs to it. Call
    /// it first: the sequence is the transaction's place in the store's commit order.
    package mutating func recordTransaction(author: String?, date: Date, origin: UUID) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO \(HistoryTables.transactions) (Z_AUTHOR, Z_TIMESTAMP, Z_ORIGIN, Z_FIRSTCHANGE, Z_ENDCHANGE) \
                VALUES (?, ?, ?, \(HistoryTables.nextChange), 0)
                """
        ).execute(arguments: [author, date.timeIntervalSince1970, origin.uuidString])
        sequence = db.lastInsertedRowID
        return sequence
    }

    /// Writes the transaction's history records and closes the range of its changes; called once
    /// its writes are done.
    fileprivate func finishTransaction() throws {
        guard sequence > 0 else { return }
        try history.write(sequence: sequence, db)
        try db.cachedStatement(
            sql: """
                UPDATE \(HistoryTables.transactions) SET Z_ENDCHANGE = \(HistoryTables.nextChange) WHERE Z_SEQUENCE = ?
                """
        ).execute(arguments: [sequence])
    }

    /// Records that rows of an entity were updated: the properties named in `changedKeys`,
    /// comma-separated and sorted. (Insertions and deletions are recorded by ``insert(_:id:globalID:mapping:)``
    /// and ``delete(keys:mapping:rows:)``.)
    package func recordUpdates(keys: some Sequence<Int64>, changedKeys: String, mapping: EntityMapping) {
        guard sequence > 0 else { return }
        history.append(keys: keys, to: history.recordIndex(entity: mapping.name, kind: .update, changedKeys: changedKeys))
    }
}

/// One row of a join table, by the keys of its `Z_SOURCE` and `Z_TARGET` objects.
package struct JoinTableLink: Hashable {
    package init(table: String, source: Int64?, target: Int64?) {
        self.table = table
        self.source = source
        self.target = target
    }

    package let table: String
    package let source: Int64?
    package let target: Int64?
}

extension SQLiteStore {
    /// Runs `body` in a write transaction, committed when it returns; an SQLite error becomes a
    /// ``StoreError``, and nothing is written when anything throws.
    ///
    /// When the model keeps values in files, the transaction first takes the names of the files no
    /// row needs any more and removes the files, before it commits: a crash after the commit would
    /// otherwise leave files nobody names (if it rolls back instead, the names are back, and a file
    /// already gone is no error). The files it writes itself are moved into place once it commits,
    /// or removed if it fails (see ``ExternalFiles``).
    package func write<Result>(_ body: (inout RowWriter) throws -> Result) throws -> Result {
        let externalWrites = externalStorage.map { ExternalWrites(files: $0.files, threshold: $0.threshold) }
        do {
            let result = try writer.write { db in
                if let externalWrites { externalWrites.files.remove(try ExternalStorage.takeGarbage(db)) }
                var rowWriter = RowWriter(db: db, externalWrites: externalWrites)
                let result = try body(&rowWriter)
                try rowWriter.finishTransaction()
                try externalWrites?.flush()
                return result
            }
            externalWrites?.settle()
            return result
        } catch let error as DatabaseError {
            externalWrites?.discard()
            throw StoreError(error)
        } catch {
            externalWrites?.discard()
            throw error
        }
    }

    /// The reader of this store's rows.
    package var reader: RowReader { RowReader(store: self) }
}
