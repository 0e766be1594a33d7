import Foundation
package import GRDB
package import ObjectGraphModel

/// Rewrites a store of format 1 in format 2 (see ``StoreMetadata``), inside the transaction `db`
/// is in, before any other change of the store:
///
/// - the columns of `Double`, `Float` and `Date` attributes lose their REAL affinity (a REAL column
///   stores a whole number as an integer, so -0.0 came back as 0.0): each table that has one is
///   made again with the same columns, rows and indexes;
/// - dates become the seconds since 2001 a `Date` holds, in the rows, in the columns' defaults and
///   in the history's tombstones (format 1 kept seconds since 1970, already rounded: the value read
///   is the one format 1 read);
/// - the text of `String` attributes is precomposed (Normalization Form C), as format 2 writes it,
///   so that SQLite's byte comparisons are Swift's.
///
/// `entities` is the model the store is at, as ``StoreMetadata`` reads it.
package enum StoreFormatUpgrade {
    /// The unique text attributes whose values would clash once precomposed: two rows holding text
    /// that differs only in its normalization, which Swift, and so format 2, takes for equal. Found
    /// by reading only, so that a store that cannot be upgraded is refused untouched.
    package static func clashes(_ db: Database, entities: [EntityDescription]) throws -> [SchemaDifference] {
        var clashes: [SchemaDifference] = []
        for entity in entities where try db.tableExists(entity.name) {
            for attribute in entity.attributes where attribute.type == .string && attribute.isUnique {
                let column = SQL.quote(attribute.name)
                let clash = try String.fetchOne(
                    db,
                    sql: """
                        SELECT \(SQLFunction.precomposed.name)(\(column)) AS value FROM \(SQL.quote(entity.name))
                        WHERE \(column) IS NOT NULL GROUP BY value HAVING COUNT(*) > 1 LIMIT 1
                        """)
                guard let clash else { continue }
                clashes.append(
                    SchemaDifference(
                        location: "\(entity.name).\(attribute.name)",
                        change: """
                            is unique, and rows hold '\(clash)' in canonically equivalent forms, which this version of \
                            ObjectGraph compares as Swift does (equal); make them differ with the version that wrote them
                            """,
                        isAdditive: false))
            }
        }
        return clashes
    }

    /// Rewrites the store's tables and history in format 2.
    package static func run(_ db: Database, entities: [EntityDescription]) throws {
        for entity in entities where try db.tableExists(entity.name) {
            try rebuildRealColumns(of: entity, db)
            try precomposeText(of: entity, db)
        }
        try convertTombstones(of: entities, db)
    }

    /// Makes `entity`'s table again with its real columns declared without a type.
    private static func rebuildRealColumns(of entity: EntityDescription, _ db: Database) throws {
        let reals = Set(entity.attributes.filter { $0.type == .double || $0.type == .date }.map(\.name))
        let dates = Set(entity.attributes.filter { $0.type == .date }.map(\.name))
        guard !reals.isEmpty else { return }
        let table = SQL.quote(entity.name)
        let indexes = try String.fetchAll(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [entity.name])
        var definitions: [String] = []
        var names: [String] = []
        var values: [String] = []
        for column in try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))") {
            let name: String = column["name"]
            let quoted = SQL.quote(name)
            var type: String = column["type"]
            var defaultValue: String? = column["dflt_value"]
            var value = quoted
            if reals.contains(name) {
                type = ""
                if dates.contains(name) {
                    defaultValue = defaultValue.flatMap(Double.init).map {
                        SQL.literal(($0 - StoreMetadata.referenceDateOffset).databaseValue)
                    }
                    value =
                        "(CASE WHEN typeof(\(quoted)) IN ('real', 'integer') THEN \(quoted) - \(StoreMetadata.referenceDateOffset) ELSE \(quoted) END)"
                }
            }
            var definition = quoted + (type.isEmpty ? "" : " " + type)
            if (column["pk"] as Int) > 0 { definition += " PRIMARY KEY" }
            if column["notnull"] as Bool { definition += " NOT NULL" }
            if let defaultValue { definition += " DEFAULT " + defaultValue }
            definitions.append(definition)
            names.append(quoted)
            values.append(value)
        }
        let rebuilt = SQL.quote("Z_FORMAT2_" + entity.name)
        try db.execute(sql: "CREATE TABLE \(rebuilt) (\(definitions.joined(separator: ", ")))")
        try db.execute(
            sql: "INSERT INTO \(rebuilt) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(table)")
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(rebuilt) RENAME TO \(table)")
        for index in indexes { try db.execute(sql: index) }
    }

    /// Precomposes the text of `entity`'s string attributes, changing only the rows that need it.
    private static func precomposeText(of entity: EntityDescription, _ db: Database) throws {
        let table = SQL.quote(entity.name)
        for attribute in entity.attributes where attribute.type == .string {
            let column = SQL.quote(attribute.name)
            let precomposed = "\(SQLFunction.precomposed.name)(\(column))"
            do {
                try db.execute(sql: "UPDATE \(table) SET \(column) = \(precomposed) WHERE \(column) IS NOT \(precomposed)")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // `clashes(_:entities:)` found none when the store was looked at; another process
                // wrote one since.
                throw ObjectGraphError.schemaMismatch(try clashes(db, entities: [entity]))
            }
        }
    }

    /// Converts the dates the history's tombstones preserved (a JSON object of values per deleted row).
    private static func convertTombstones(of entities: [EntityDescription], _ db: Database) throws {
        guard try db.tableExists(HistoryTables.changes) else { return }
        for entity in entities {
            for attribute in entity.attributes where attribute.type == .date {
                let path = "$.\"\(attribute.name.replacingOccurrences(of: "\"", with: "\\\""))\""
                try db.execute(
                    sql: """
                        UPDATE \(HistoryTables.changes) SET Z_TOMBSTONE = json_set(Z_TOMBSTONE, ?1, json_extract(Z_TOMBSTONE, ?1) - ?2)
                        WHERE Z_ENTITY = ?3 AND Z_TOMBSTONE IS NOT NULL AND json_type(Z_TOMBSTONE, ?1) IN ('real', 'integer')
                        """,
                    arguments: [path, StoreMetadata.referenceDateOffset, entity.name])
            }
        }
    }
}
