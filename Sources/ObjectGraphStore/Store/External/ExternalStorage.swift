import Foundation
package import GRDB
package import ObjectGraphModel

/// The store's side of values kept in files (`@Attribute(.externalStorage)`, see ``ExternalFiles``):
/// the table of files no row needs any more, the triggers that fill it, and their migration.
///
/// A trigger rather than the code that writes: a row is deleted by a save, a batch deletion, a
/// cascade, the sync, a migration stage's code or another process, and every one of them leaves
/// the file's name in `Z_EXTERNAL_GARBAGE`, in its own transaction.
package enum ExternalStorage {
    /// The names of files that no row names any more.
    static let garbageTable = "Z_EXTERNAL_GARBAGE"
    /// Every trigger's name starts with this.
    static let triggerPrefix = "Z_EXT_"

    /// A column of values that may be in files, by its table's and its own name (unquoted).
    package struct Column: Hashable, Sendable {
        package let table: String
        package let column: String
    }

    /// The columns of `entities`' attributes stored outside the rows, each once: the entities of a
    /// hierarchy share their root's table (see ``EntityHierarchy``).
    package static func columns(of entities: [EntityDescription]) -> [Column] {
        var columns: [Column] = []
        for entity in entities {
            for name in entity.externallyStoredAttributes {
                let column = Column(table: EntityHierarchy.table(of: entity.name, among: entities), column: name)
                if !columns.contains(column) { columns.append(column) }
            }
        }
        return columns
    }

    /// The triggers that name a column's files in the garbage table: after a row is deleted, and
    /// after its value changes. The table's name is prefixed with its length, so that no two
    /// columns give one name (`A_b` + `c` and `A` + `b_c`).
    static func triggers(of column: Column) -> [(name: String, sql: String)] {
        let base = triggerPrefix + "\(column.table.utf8.count)_\(column.table)_\(column.column)"
        let table = SQL.quote(column.table)
        let quoted = SQL.quote(column.column)
        let insert = "INSERT INTO \(garbageTable) (Z_NAME) VALUES (old.\(quoted));"
        return [
            (
                base + "_ad",
                "CREATE TRIGGER \(SQL.quote(base + "_ad")) AFTER DELETE ON \(table) "
                    + "WHEN typeof(old.\(quoted)) = 'text' BEGIN \(insert) END"
            ),
            (
                base + "_au",
                "CREATE TRIGGER \(SQL.quote(base + "_au")) AFTER UPDATE OF \(quoted) ON \(table) "
                    + "WHEN typeof(old.\(quoted)) = 'text' AND old.\(quoted) IS NOT new.\(quoted) BEGIN \(insert) END"
            )
        ]
    }

    /// Brings the store in line with `entities`, inside a migration's transaction: `stored` is the
    /// model the store was at, under the current names (nil for a new store). A column whose
    /// attribute no longer stores outside the rows gets its values back in its rows; the files of
    /// an attribute or entity that is gone are named for removal; the triggers are made for the
    /// current columns, and those of other columns dropped.
    package static func synchronize(
        _ db: Database, stored: [EntityDescription]?, entities: [EntityDescription], files: ExternalFiles?
    ) throws {
        let wanted = columns(of: entities)
        let previous = stored.map(columns(of:)) ?? []
        let existingTriggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\'",
            arguments: [triggerPrefix.replacingOccurrences(of: "_", with: "\\_") + "%"])
        guard !wanted.isEmpty || !previous.isEmpty || !existingTriggers.isEmpty else { return }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(garbageTable) (Z_NAME TEXT NOT NULL)")
        for column in previous where !wanted.contains(column) {
            // The column's table is its entity's, or its hierarchy's root's: any entity of the
            // hierarchy may declare the attribute.
            let attribute = entities.lazy.filter { EntityHierarchy.table(of: $0.name, among: entities) == column.table }
                .compactMap { $0.attribute(named: column.column) }.first
            if attribute?.type == .data {
                try bringBack(column, db, files: files)
            } else {
                try forget(column, db)
            }
        }
        var stored: [String: String] = [:]
        for row in existingTriggers {
            if let name: String = row["name"], let sql: String = row["sql"] { stored[name] = sql }
        }
        let definitions = wanted.flatMap(triggers(of:))
        for (name, sql) in stored where definitions.first(where: { $0.name == name })?.sql != sql {
            try db.execute(sql: "DROP TRIGGER \(SQL.quote(name))")
        }
        for definition in definitions where stored[definition.name] != definition.sql {
            try db.execute(sql: definition.sql)
        }
    }

    /// Writes a column's values that are in files back into its rows, and names the files for
    /// removal. A file that cannot be read fails the migration, which then changes nothing.
    private static func bringBack(_ column: Column, _ db: Database, files: ExternalFiles?) throws {
        let table = SQL.quote(column.table)
        let quoted = SQL.quote(column.column)
        let rows = try Row.fetchAll(db, sql: "SELECT Z_PK, \(quoted) AS name FROM \(table) WHERE typeof(\(quoted)) = 'text'")
        for row in rows {
            let key: Int64 = row["Z_PK"]
            let name: String = row["name"]
            guard let files else {
                throw ObjectGraphError.incompatibleStore(
                    path: ":memory:", reason: "\(column.table).\(column.column) names files, and an in-memory store has none")
            }
            let data: Data
            do {
                data = try files.read(name)
            } catch {
                throw ObjectGraphError.schemaMismatch([
                    SchemaDifference(
                        location: "\(column.table).\(column.column)",
                        change: "no longer stored outside the rows, but the value of row \(key) cannot be read back: \(error)",
                        isAdditive: false)
                ])
            }
            try db.execute(sql: "INSERT INTO \(garbageTable) (Z_NAME) VALUES (?)", arguments: [name])
            try db.execute(sql: "UPDATE \(table) SET \(quoted) = ? WHERE Z_PK = ?", arguments: [data, key])
        }
    }

    /// Names the files of a column whose attribute is gone for removal.
    private static func forget(_ column: Column, _ db: Database) throws {
        let table = SQL.quote(column.table)
        let quoted = SQL.quote(column.column)
        let exists = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [column.table])
            .contains { ($0["name"] as String?) == column.column }
        guard exists else { return }
        try db.execute(
            sql: "INSERT INTO \(garbageTable) (Z_NAME) SELECT \(quoted) FROM \(table) WHERE typeof(\(quoted)) = 'text'")
    }

    /// Takes the names of the files no row needs any more, at the start of a write transaction,
    /// which removes the files before it commits (see ``SQLiteStore/write(_:)``); if it fails, the
    /// names are back for the next one.
    package static func takeGarbage(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "DELETE FROM \(garbageTable) RETURNING Z_NAME")
    }

    /// Whether the store has a garbage table: its model has, or had, values in files.
    package static func hasGarbageTable(_ db: Database) throws -> Bool {
        try db.tableExists(garbageTable)
    }

    /// Whether files are named for removal.
    package static func hasGarbage(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(garbageTable))") ?? false
    }

    /// Drops the garbage table once the model has no value in files, taking the names it holds.
    package static func dropGarbageTable(_ db: Database) throws -> [String] {
        let names = try takeGarbage(db)
        try db.execute(sql: "DROP TABLE \(garbageTable)")
        return names
    }

    /// Settles the files a crash left in `incoming/`, inside a write transaction (so that no other
    /// transaction is writing files meanwhile): a file a row names is moved into place, any other
    /// removed. Returns how many of each.
    @discardableResult
    package static func recover(_ db: Database, columns: [Column], files: ExternalFiles) throws -> (settled: Int, removed: Int) {
        let names = try files.incomingNames()
        guard !names.isEmpty else { return (0, 0) }
        var named: [String] = []
        var unnamed: [String] = []
        for name in names {
            var found = false
            for column in columns where !found {
                found =
                    try Bool.fetchOne(
                        db,
                        sql: "SELECT EXISTS (SELECT 1 FROM \(SQL.quote(column.table)) WHERE \(SQL.quote(column.column)) = ?)",
                        arguments: [name]) ?? false
            }
            if found { named.append(name) } else { unnamed.append(name) }
        }
        files.settle(named)
        files.remove(unnamed)
        return (named.count, unnamed.count)
    }
}
