package import GRDB
public import ObjectGraphModel

/// The rows of a store while a ``MigrationStage`` runs, read and written in the stage's
/// transaction.
///
/// Rows are read by entity name and written back column by column; every column of the table is
/// there, those of attributes the new version removes included (until the stage ends), and the
/// foreign keys of to-one relationships (the related row's key). Nothing here keeps links in
/// step: a stage that deletes a row rewrites the links that pointed at it first.
///
/// A value kept in a file (`@Attribute(.externalStorage)`) is read as its bytes, and a value
/// written goes into the row: two rows never name one file.
///
/// A migration context is only valid inside the stage's code.
public final class MigrationContext {
    private let db: Database
    /// The files of values stored outside the rows, and the columns that may name them.
    private let externalFiles: ExternalFiles?
    private let externalColumns: Set<ExternalStorage.Column>

    package init(db: Database, externalFiles: ExternalFiles? = nil, externalColumns: Set<ExternalStorage.Column> = []) {
        self.db = db
        self.externalFiles = externalFiles
        self.externalColumns = externalColumns
    }

    /// Every row of an entity's table, in key order.
    ///
    /// - Parameter entity: The entity's name (its table).
    /// - Throws: ``ObjectGraphError/Code/migrationFailed`` for an entity the store has no table
    ///   for, or ``ObjectGraphError/Code/store``.
    public func rows(of entity: String) throws -> [MigrationRow] {
        try checkTable(entity)
        return try run {
            let columns = try db.columns(in: entity).map(\.name).filter { $0 != "Z_PK" }
            let list = columns.map(SQL.quote).joined(separator: ", ")
            let statement = try db.makeStatement(sql: "SELECT Z_PK, \(list) FROM \(SQL.quote(entity)) ORDER BY Z_PK")
            let cursor = try Row.fetchCursor(statement)
            var rows: [MigrationRow] = []
            while let row = try cursor.next() {
                var values: [String: StoredValue] = [:]
                let key: Int64 = row[0]
                for (index, column) in columns.enumerated() {
                    let value = StoredValue(sqliteStatement: statement.sqliteStatement, column: CInt(index + 1))
                    values[column] = try fileValue(value, entity: entity, column: column, key: key)
                }
                rows.append(MigrationRow(entity: entity, key: key, values: values))
            }
            return rows
        }
    }

    /// Writes the columns of a row that were set since it was read.
    public func update(_ row: MigrationRow) throws {
        guard !row.changedColumns.isEmpty else { return }
        let columns = row.changedColumns.sorted()
        let assignments = columns.map { "\(SQL.quote($0)) = ?" }.joined(separator: ", ")
        try run {
            try db.execute(
                sql: "UPDATE \(SQL.quote(row.entity)) SET \(assignments) WHERE Z_PK = ?",
                arguments: StatementArguments(columns.map { (row.values[$0] ?? .null).databaseValue } + [row.key.databaseValue]))
        }
    }

    /// Deletes a row. The links that point at it (foreign keys of other rows, join-table rows) are
    /// the stage's to rewrite or delete first.
    public func delete(_ row: MigrationRow) throws {
        try run {
            try db.execute(sql: "DELETE FROM \(SQL.quote(row.entity)) WHERE Z_PK = ?", arguments: [row.key])
        }
    }

    /// The bytes of a value kept in a file, for a column that may name one; the value otherwise.
    private func fileValue(_ value: StoredValue, entity: String, column: String, key: Int64) throws -> StoredValue {
        guard case .text(let name) = value, let externalFiles,
            externalColumns.contains(ExternalStorage.Column(table: entity, column: column))
        else { return value }
        do {
            return .blob(try externalFiles.read(name))
        } catch {
            throw ObjectGraphError.migrationFailed(
                stage: nil, entity: entity, property: column, reason: "the value of row \(key) is in a file that cannot be read: \(error)")
        }
    }

    private func checkTable(_ entity: String) throws {
        guard try run({ try db.tableExists(entity) }) else {
            throw ObjectGraphError.migrationFailed(stage: nil, entity: entity, property: nil, reason: "the store has no table for it")
        }
    }

    private func run<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw ObjectGraphError.store(StoreError(error))
        }
    }
}

/// One row of a store during a migration stage: its key, and its columns' values.
public struct MigrationRow: Sendable {
    /// The entity (table) the row belongs to.
    public let entity: String
    /// The row's primary key (what foreign keys hold).
    public let key: Int64
    package fileprivate(set) var values: [String: StoredValue]
    package fileprivate(set) var changedColumns: Set<String> = []

    package init(entity: String, key: Int64, values: [String: StoredValue]) {
        self.entity = entity
        self.key = key
        self.values = values
    }

    /// The names of the row's columns.
    public var columns: [String] { values.keys.sorted() }

    /// A column's value as stored; nil for a column the table does not have. Setting it marks the
    /// column to be written by ``MigrationContext/update(_:)``.
    public subscript(column: String) -> StoredValue? {
        get { values[column] }
        set {
            values[column] = newValue ?? .null
            changedColumns.insert(column)
        }
    }

    /// A column's value converted to an attribute type; nil for NULL.
    ///
    /// - Throws: ``ObjectGraphError/Code/migrationFailed`` naming the entity, the column and the row
    ///   when the table has no such column or its value does not convert.
    public func value<Value: AttributeValue>(_ column: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = values[column] else {
            throw ObjectGraphError.migrationFailed(stage: nil, entity: entity, property: column, reason: "no such column")
        }
        if stored.isNull { return nil }
        do {
            return try Value(checkedStoredValue: stored)
        } catch {
            throw ObjectGraphError.migrationFailed(
                stage: nil, entity: entity, property: column, reason: "row \(key): \(stored) is no \(Value.self): \(error)")
        }
    }

    /// Sets a column to an attribute value (NULL for nil), to be written by
    /// ``MigrationContext/update(_:)``.
    ///
    /// - Throws: ``ObjectGraphError/Code/migrationFailed`` when the value cannot be encoded.
    public mutating func setValue<Value: AttributeValue>(_ value: Value?, for column: String) throws {
        guard let value else {
            self[column] = .null
            return
        }
        do {
            self[column] = try value.checkedStoredValue()
        } catch {
            throw ObjectGraphError.migrationFailed(
                stage: nil, entity: entity, property: column, reason: "row \(key): the value cannot be stored: \(error)")
        }
    }
}
