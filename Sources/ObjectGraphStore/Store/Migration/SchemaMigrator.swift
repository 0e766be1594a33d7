package import Foundation
package import GRDB
package import ObjectGraphModel

/// Creates a new store's tables, and migrates an existing store to the model when the difference is
/// additive: new entities, new optional (or defaulted) attributes, new relationships, new indexes.
/// Any other difference fails with ``ObjectGraphError/schemaMismatch(_:)`` and changes nothing.
package struct SchemaMigrator {
    package let schema: Schema
    package let mappings: [EntityMapping]
    package let path: String

    package static let primaryKeyTable = "Z_PRIMARYKEY"

    /// What opening the store needs, found by reading only.
    package enum Preparation: Equatable {
        /// An empty database: every table is created.
        case create
        /// The store matches the model: nothing is written.
        case upToDate(UUID)
        /// The store differs from the model additively, or is of an older format: its format is
        /// upgraded first (`upgrading`, the model it is at), then tables and columns are renamed as
        /// the model's original names say, then tables, columns and indexes are added.
        case migrate(UUID, Renames, upgrading: [EntityDescription]? = nil)
    }

    /// The hash of the model the store was last migrated to (see ``StoreMetadata/versionHash``);
    /// nil for a database that is not an ObjectGraph store.
    package static func storedVersionHash(_ db: Database, path: String) throws -> String? {
        try StoreMetadata.read(db, path: path)?.versionHash
    }

    /// Finds, by reading only, what the store needs; throws for a database that is not an ObjectGraph
    /// store or whose schema cannot migrate, before anything is written to it.
    package func preparation(_ db: Database) throws -> Preparation {
        guard let metadata = try StoreMetadata.read(db, path: path) else {
            let foreign = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    """)
            guard foreign.isEmpty else {
                throw ObjectGraphError.incompatibleStore(
                    path: path,
                    reason: "the database was not created by ObjectGraph (it has tables \(foreign.joined(separator: ", ")))")
            }
            return .create
        }
        let uuid = metadata.uuid
        var upgrading: [EntityDescription]?
        if metadata.format < 2 {
            let clashes = try StoreFormatUpgrade.clashes(db, entities: metadata.entities)
            guard clashes.isEmpty else { throw ObjectGraphError.schemaMismatch(clashes) }
            upgrading = metadata.entities
        }
        // Stores made before the history had its current tables get them (format 3's records
        // among them), and the current format in their metadata.
        let hasHistory = try HistoryTables.areCurrent(db)
        guard metadata.versionHash != schema.versionHash || metadata.format < StoreMetadata.currentFormat else {
            return hasHistory ? .upToDate(uuid) : .migrate(uuid, Renames())
        }
        let renames = Renames(from: metadata.entities, to: schema.entities)
        let differences = Self.differences(from: metadata.entities, to: schema.entities)
        guard differences.allSatisfy(\.isAdditive) else {
            throw ObjectGraphError.schemaMismatch(differences)
        }
        return .migrate(uuid, renames, upgrading: upgrading)
    }

    /// Prepares the store in a write transaction and returns its UUID. The preparation is found
    /// again inside the transaction: another process may have prepared the store meanwhile.
    package func prepare(_ db: Database) throws -> UUID {
        let uuid: UUID
        switch try preparation(db) {
        case .upToDate(let existing):
            return existing
        case .create:
            uuid = try create(db)
        case let .migrate(existing, renames, upgrading):
            let stored = try StoreMetadata.read(db, path: path)?.entities
            if let upgrading { try StoreFormatUpgrade.run(db, entities: upgrading) }
            try rename(renames, db)
            try applyAdditiveChanges(db, stored: stored.map(renames.applied(to:)))
            try writeMetadata(db, uuid: existing)
            uuid = existing
        }
        try HistoryTables.create(db)
        return uuid
    }

    private func create(_ db: Database) throws -> UUID {
        try db.execute(sql: "CREATE TABLE \(StoreMetadata.table) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (entity TEXT PRIMARY KEY NOT NULL, max INTEGER NOT NULL)")
        try applyAdditiveChanges(db)
        let uuid = UUID()
        try writeMetadata(db, uuid: uuid)
        return uuid
    }

    /// Records that the store is at this migrator's model, in the current format.
    package func writeMetadata(_ db: Database, uuid: UUID) throws {
        try StoreMetadata.write(db, uuid: uuid, entities: schema.entities, versionHash: schema.versionHash)
    }

    // MARK: Target layout

    package struct Column { let name: String; let definition: String; let canBeAdded: Bool }
    package struct Index {
        package let table: String
        package let columns: [String]
        package let isUnique: Bool
        /// For a partial index, the condition of the rows it holds.
        package var condition: String?

        /// A name no two indexes share: the table's name is prefixed with its length, so that
        /// `A_b` + `c` and `A` + `b_c` differ (joined with underscores alone, both were `A_b_c`).
        package var name: String { "Z\(table.utf8.count)_\(table)_" + columns.joined(separator: "_") }
    }

    /// Every table the model needs, with its columns, and every index.
    package func targetLayout() -> (tables: [(name: String, columns: [Column], withoutRowID: Bool)], indexes: [Index]) {
        var tables: [String: [Column]] = [:]
        var order: [String] = []
        var joinTables: Set<String> = []
        var indexes: [Index] = []
        func add(_ column: Column, to table: String) {
            if tables[table] == nil { tables[table] = []; order.append(table) }
            if !(tables[table] ?? []).contains(where: { $0.name == column.name }) { tables[table]?.append(column) }
        }
        for mapping in mappings {
            // The entities of a hierarchy share their root's table (see `EntityHierarchy`).
            let table = mapping.hierarchy?.root ?? mapping.name
            add(Column(name: "Z_PK", definition: "INTEGER PRIMARY KEY", canBeAdded: false), to: table)
            add(Column(name: "Z_UUID", definition: "BLOB NOT NULL", canBeAdded: false), to: table)
            add(Column(name: "Z_VERSION", definition: "INTEGER NOT NULL DEFAULT 1", canBeAdded: false), to: table)
            indexes.append(Index(table: table, columns: ["Z_UUID"], isUnique: true))
            if let hierarchy = mapping.hierarchy {
                // The rows a table had before it held a hierarchy are its root's.
                let definition = "TEXT NOT NULL DEFAULT " + SQL.literal(hierarchy.root.databaseValue)
                add(Column(name: EntityHierarchy.entityColumn, definition: definition, canBeAdded: true), to: table)
                indexes.append(Index(table: table, columns: [EntityHierarchy.entityColumn], isUnique: false))
            }
            // The rows a hierarchy's table holds when a subentity's column is added are of other
            // entities: NULL is their value, whatever the subentity requires.
            let rootAttributes = mapping.hierarchy.flatMap { hierarchy in
                mappings.first { $0.name == hierarchy.root }.map { Set($0.description.attributes.map(\.name)) }
            }
            for attribute in mapping.description.attributes {
                var definition = attribute.type.sqlType
                if let value = attribute.defaultValue { definition += " DEFAULT " + SQL.literal(value.databaseValue) }
                let ownsColumn = rootAttributes.map { !$0.contains(attribute.name) } ?? false
                add(
                    Column(
                        name: attribute.name, definition: definition,
                        canBeAdded: attribute.isOptional || attribute.defaultValue != nil || ownsColumn), to: table)
                if attribute.isUnique {
                    indexes.append(
                        Index(
                            table: table,
                            columns: [attribute.name], isUnique: true))
                } else if attribute.isIndexed {
                    indexes.append(
                        Index(
                            table: table,
                            columns: [attribute.name], isUnique: false))
                }
            }
            if let slot = mapping.markedForDeletionSlot, !mapping.description.attributes[slot].isIndexed,
                !mapping.description.attributes[slot].isUnique
            {
                // Batch deletions find marked rows by date, and relationship reads list them. Only
                // marked rows are in it: inserting or deleting an unmarked row does not touch it.
                let column = mapping.description.attributes[slot].name
                indexes.append(
                    Index(
                        table: table, columns: [column], isUnique: false,
                        condition: "\(SQL.quote(column)) IS NOT NULL"))
            }
            for relationship in mapping.toOneRelationships + mapping.toManyRelationships {
                switch relationship.storage {
                case .foreignKey(let column):
                    add(Column(name: column, definition: "INTEGER", canBeAdded: true), to: table)
                    indexes.append(Index(table: table, columns: [column], isUnique: false))
                case .inverseForeignKey(let other, _, let orderColumn?):
                    add(Column(name: orderColumn, definition: "INTEGER", canBeAdded: true), to: other)
                case .inverseForeignKey:
                    break
                case let .joinTable(joinTable, _, _, _):
                    joinTables.insert(joinTable)
                    for name in ["Z_SOURCE", "Z_TARGET"] {
                        add(Column(name: name, definition: "INTEGER NOT NULL", canBeAdded: false), to: joinTable)
                    }
                    for name in ["Z_SOURCE_ORDER", "Z_TARGET_ORDER"] {
                        add(Column(name: name, definition: "INTEGER", canBeAdded: true), to: joinTable)
                    }
                    indexes.append(
                        Index(
                            table: joinTable,
                            columns: ["Z_TARGET"], isUnique: false))
                }
            }
            // `#Unique` and `#Index` groups (one attribute's are the attribute's, above).
            for names in mapping.description.uniquenessConstraints {
                if let group = ColumnGroup(names, description: mapping.description, toOne: mapping.toOneRelationships) {
                    indexes.append(Index(table: table, columns: group.columns, isUnique: true))
                }
            }
            for group in mapping.indexGroups {
                indexes.append(Index(table: table, columns: group.columns, isUnique: false))
            }
        }
        // A unique index serves what a plain one on the same columns would (a foreign key that is
        // unique, an `#Index` group that is also `#Unique`); both would have one name.
        let unique = Set(indexes.filter(\.isUnique).map { [$0.table] + $0.columns })
        indexes.removeAll { !$0.isUnique && unique.contains([$0.table] + $0.columns) }
        // The entities of a hierarchy declare their inherited attributes' indexes again.
        var named: Set<String> = []
        indexes.removeAll { !named.insert($0.name).inserted }
        return (order.map { ($0, tables[$0] ?? [], joinTables.contains($0)) }, indexes)
    }

    /// Creates what is missing: tables, columns, indexes, full-text indexes. Never drops or
    /// rewrites a row or a column (a full-text index made for another model is made again from the
    /// rows, see ``SearchIndex/synchronize(_:entities:)``). A required column is added only for a
    /// migration stage, whose code fills it.
    ///
    /// `stored` is the model the store was at, under the current names (nil for a new store): an
    /// attribute that no longer keeps values in files gets them back in its rows (see
    /// ``ExternalStorage/synchronize(_:stored:entities:files:)``).
    package func applyAdditiveChanges(
        _ db: Database, addingRequiredColumns: Bool = false, stored: [EntityDescription]? = nil
    ) throws {
        try applyTablesAndIndexes(db, addingRequiredColumns: addingRequiredColumns)
        try SearchIndex.synchronize(db, entities: schema.entities)
        try ExternalStorage.synchronize(db, stored: stored, entities: schema.entities, files: ExternalFiles(storePath: path))
    }

    private func applyTablesAndIndexes(_ db: Database, addingRequiredColumns: Bool) throws {
        let layout = targetLayout()
        for table in layout.tables {
            if try db.tableExists(table.name) {
                let existing = Set(try db.columns(in: table.name).map(\.name))
                for column in table.columns where !existing.contains(column.name) {
                    guard column.canBeAdded || addingRequiredColumns else {
                        throw ObjectGraphError.schemaMismatch([
                            SchemaDifference(
                                location: "\(table.name).\(column.name)",
                                change: "a required column cannot be added to existing rows", isAdditive: false)
                        ])
                    }
                    try db.execute(sql: "ALTER TABLE \(SQL.quote(table.name)) ADD COLUMN \(SQL.quote(column.name)) \(column.definition)")
                }
            } else {
                var definitions = table.columns.map { "\(SQL.quote($0.name)) \($0.definition)" }
                if table.withoutRowID { definitions.append("PRIMARY KEY (Z_SOURCE, Z_TARGET)") }
                try db.execute(
                    sql: "CREATE TABLE \(SQL.quote(table.name)) (\(definitions.joined(separator: ", ")))"
                        + (table.withoutRowID ? " WITHOUT ROWID" : ""))
            }
        }
        for index in layout.indexes {
            // Stores made before the current naming have the same index under another name (and a full
            // index serves where a partial one is planned).
            let existing = try db.indexes(on: index.table)
            if existing.contains(where: { $0.columns == index.columns && $0.isUnique == index.isUnique }) { continue }
            do {
                try db.execute(
                    sql: """
                        CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQL.quote(index.name)) \
                        ON \(SQL.quote(index.table)) (\(index.columns.map(SQL.quote).joined(separator: ", ")))\
                        \(index.condition.map { " WHERE \($0)" } ?? "")
                        """)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw ObjectGraphError.schemaMismatch([
                    SchemaDifference(
                        location: "\(index.table).\(index.columns.joined(separator: ","))",
                        change: "cannot become unique: " + (try Self.sharedValues(of: index, db)), isAdditive: false)
                ])
            }
        }
    }

    /// The rows that keep `index` from being unique, named: their keys and the values they share,
    /// the first few sets of them.
    private static func sharedValues(of index: Index, _ db: Database) throws -> String {
        let columns = index.columns.map(SQL.quote).joined(separator: ", ")
        let present = index.columns.map { "\(SQL.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT group_concat(Z_PK, ', ') AS keys, \(columns) FROM \(SQL.quote(index.table)) WHERE \(present) \
                GROUP BY \(columns) HAVING count(*) > 1 ORDER BY min(Z_PK) LIMIT 3
                """)
        let sets = rows.map { row in
            let values = index.columns.indices.map { column -> String in
                let value: StoredValue =
                    switch (row[column + 1] as DatabaseValue).storage {
                    case .null: .null
                    case .int64(let value): .integer(value)
                    case .double(let value): .real(value)
                    case .string(let value): .text(value)
                    case .blob(let value): .blob(value)
                    }
                return value.description
            }.joined(separator: ", ")
            return "rows \(row["keys"] as String? ?? "?") share (\(values))"
        }
        return sets.isEmpty ? "existing rows share values" : sets.joined(separator: "; ")
    }

    // MARK: Differences

    /// Compares the stored model with the current one, entity by entity and property by property;
    /// an entity or attribute renamed with its original name declared is compared under its new name.
    package static func differences(from old: [EntityDescription], to new: [EntityDescription]) -> [SchemaDifference] {
        let renames = Renames(from: old, to: new)
        let old = renames.applied(to: old)
        var result = renames.differences
        let oldByName = Dictionary(uniqueKeysWithValues: old.map { ($0.name, $0) })
        let newNames = Set(new.map(\.name))
        for entity in old where !newNames.contains(entity.name) {
            result.append(
                SchemaDifference(location: entity.name, change: "entity removed", isAdditive: false, isMigratedByAStage: true))
        }
        for entity in new {
            guard let previous = oldByName[entity.name] else {
                result.append(SchemaDifference(location: entity.name, change: "entity added", isAdditive: true))
                continue
            }
            result +=
                attributeDifferences(previous, entity) + relationshipDifferences(previous, entity)
                + groupDifferences(previous, entity)
        }
        return result
    }

    private static func attributeDifferences(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for attribute in old.attributes where new.attribute(named: attribute.name) == nil {
            result.append(
                SchemaDifference(
                    location: "\(new.name).\(attribute.name)",
                    change: "attribute removed", isAdditive: false, isMigratedByAStage: true))
        }
        for attribute in new.attributes {
            let location = "\(new.name).\(attribute.name)"
            guard let previous = old.attribute(named: attribute.name) else {
                let additive = attribute.isOptional || attribute.defaultValue != nil
                result.append(
                    SchemaDifference(
                        location: location,
                        change: additive ? "attribute added" : "required attribute added without a default value",
                        isAdditive: additive, isMigratedByAStage: true))
                continue
            }
            if previous.type != attribute.type {
                result.append(
                    SchemaDifference(
                        location: location, change: "type changed from \(previous.type.rawValue) to \(attribute.type.rawValue)",
                        isAdditive: false))
            }
            if previous.isOptional && !attribute.isOptional {
                result.append(
                    SchemaDifference(location: location, change: "became required", isAdditive: false, isMigratedByAStage: true))
            } else if previous.isOptional != attribute.isOptional {
                result.append(SchemaDifference(location: location, change: "became optional", isAdditive: true))
            }
            if previous.isUnique != attribute.isUnique || previous.isIndexed != attribute.isIndexed {
                let added = (attribute.isUnique && !previous.isUnique) || (attribute.isIndexed && !previous.isIndexed)
                result.append(
                    SchemaDifference(
                        location: location, change: added ? "index added" : "index removed", isAdditive: added,
                        isMigratedByAStage: true))
            }
            if previous.allowsExternalStorage != attribute.allowsExternalStorage {
                // Values already in rows stay there; values in files are written back into rows.
                result.append(
                    SchemaDifference(
                        location: location,
                        change: attribute.allowsExternalStorage ? "large values stored in files" : "values stored in the rows",
                        isAdditive: true))
            }
            if previous.isSearchable != attribute.isSearchable {
                // The full-text index is made again from the rows on open: nothing is lost.
                result.append(
                    SchemaDifference(
                        location: location, change: attribute.isSearchable ? "search index added" : "search index removed",
                        isAdditive: true))
            }
            if previous.defaultValue != attribute.defaultValue {
                result.append(SchemaDifference(location: location, change: "default value changed", isAdditive: true))
            }
        }
        return result
    }

    /// `#Unique` and `#Index` groups added or removed: like an attribute's index, an added one is
    /// built on open, a removed one goes with a migration stage.
    private static func groupDifferences(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for (kind, before, after) in [
            ("uniqueness", old.uniquenessConstraints, new.uniquenessConstraints), ("index", old.indexes, new.indexes)
        ] {
            for group in after where !before.contains(group) {
                result.append(
                    SchemaDifference(
                        location: "\(new.name).(\(group.joined(separator: ", ")))", change: "\(kind) added", isAdditive: true,
                        isMigratedByAStage: true))
            }
            for group in before where !after.contains(group) {
                result.append(
                    SchemaDifference(
                        location: "\(new.name).(\(group.joined(separator: ", ")))", change: "\(kind) removed", isAdditive: false,
                        isMigratedByAStage: true))
            }
        }
        return result
    }

    private static func relationshipDifferences(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for relationship in old.relationships where new.relationship(named: relationship.name) == nil {
            result.append(
                SchemaDifference(
                    location: "\(new.name).\(relationship.name)",
                    change: "relationship removed", isAdditive: false, isMigratedByAStage: true))
        }
        for relationship in new.relationships {
            let location = "\(new.name).\(relationship.name)"
            guard let previous = old.relationship(named: relationship.name) else {
                result.append(SchemaDifference(location: location, change: "relationship added", isAdditive: true))
                continue
            }
            if previous.destination != relationship.destination || previous.inverse != relationship.inverse
                || previous.isToMany != relationship.isToMany || previous.isOrdered != relationship.isOrdered
            {
                result.append(
                    SchemaDifference(
                        location: location, change: "relationship changed its destination, inverse or kind",
                        isAdditive: false))
            } else if previous != relationship {
                // Delete rules and counts shape behaviour, not storage.
                result.append(SchemaDifference(location: location, change: "rules changed", isAdditive: true))
            }
        }
        return result
    }

}

// MARK: - Renames

extension SchemaMigrator {
    /// The entities and attributes the model renamed (declaring their original names) that the
    /// store still has under their old names.
    package struct Renames: Equatable {
        /// Old entity name → new name.
        package var entities: [String: String] = [:]
        /// New entity name → (old attribute name → new name).
        package var attributes: [String: [String: String]] = [:]

        package init() {}

        package init(from old: [EntityDescription], to new: [EntityDescription]) {
            let oldNames = Set(old.map(\.name))
            let newNames = Set(new.map(\.name))
            for entity in new {
                guard let original = entity.originalName, !oldNames.contains(entity.name),
                    oldNames.contains(original), !newNames.contains(original)
                else { continue }
                entities[original] = entity.name
            }
            let oldByNewName = Dictionary(old.map { (entities[$0.name] ?? $0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for entity in new {
                guard let previous = oldByNewName[entity.name] else { continue }
                let oldAttributes = Set(previous.attributes.map(\.name))
                let newAttributes = Set(entity.attributes.map(\.name))
                for attribute in entity.attributes {
                    guard let original = attribute.originalName, !oldAttributes.contains(attribute.name),
                        oldAttributes.contains(original), !newAttributes.contains(original)
                    else { continue }
                    attributes[entity.name, default: [:]][original] = attribute.name
                }
            }
        }

        /// The stored model under the new names.
        package func applied(to old: [EntityDescription]) -> [EntityDescription] {
            old.map { entity in
                var entity = entity
                entity.name = entities[entity.name] ?? entity.name
                let renamed = attributes[entity.name] ?? [:]
                entity.attributes = entity.attributes.map { attribute in
                    var attribute = attribute
                    attribute.name = renamed[attribute.name] ?? attribute.name
                    return attribute
                }
                entity.relationships = entity.relationships.map { relationship in
                    var relationship = relationship
                    relationship.destination = entities[relationship.destination] ?? relationship.destination
                    return relationship
                }
                return entity
            }
        }

        /// The entity's name in the store.
        package func originalName(of entity: String) -> String {
            entities.first { $0.value == entity }?.key ?? entity
        }

        package var differences: [SchemaDifference] {
            entities.sorted { $0.key < $1.key }.map {
                SchemaDifference(location: $0.value, change: "renamed from \($0.key)", isAdditive: true)
            }
                + attributes.sorted { $0.key < $1.key }.flatMap { entity, renamed in
                    renamed.sorted { $0.key < $1.key }.map {
                        SchemaDifference(location: "\(entity).\($0.value)", change: "renamed from \($0.key)", isAdditive: true)
                    }
                }
        }

        package var isEmpty: Bool { entities.isEmpty && attributes.isEmpty }
    }

    /// Renames tables and columns, before anything is added: entity tables (and their rows in the
    /// key table), attribute columns, and the join tables whose names come from a renamed entity.
    /// A join table belongs to the side whose name sorts first, so renaming an entity can hand it
    /// to the other side: its source and target columns then trade names.
    package func rename(_ renames: Renames, _ db: Database) throws {
        guard !renames.isEmpty else { return }
        // The table of an entity under its new name: its own, or its hierarchy's root's.
        func table(of entity: String) -> String {
            mappings.first { $0.name == entity }?.hierarchy?.root ?? entity
        }
        for (old, new) in renames.entities.sorted(by: { $0.key < $1.key }) where table(of: new) == new {
            try db.execute(sql: "ALTER TABLE \(SQL.quote(old)) RENAME TO \(SQL.quote(new))")
            try db.execute(sql: "UPDATE \(Self.primaryKeyTable) SET entity = ? WHERE entity = ?", arguments: [new, old])
        }
        // The rows of a renamed entity of a hierarchy name it anew (a table that was no
        // hierarchy's yet has no `Z_ENT`: its rows get the root's when the column is added).
        for (old, new) in renames.entities.sorted(by: { $0.key < $1.key }) where mappings.first(where: { $0.name == new })?.hierarchy != nil
        {
            let table = table(of: new)
            guard try db.columns(in: table).contains(where: { $0.name == EntityHierarchy.entityColumn }) else { continue }
            try db.execute(
                sql: "UPDATE \(SQL.quote(table)) SET \(EntityHierarchy.entityColumn) = ? WHERE \(EntityHierarchy.entityColumn) = ?",
                arguments: [new, old])
        }
        // A column once per table: a hierarchy's entities list their inherited attributes again.
        var renamedColumns: Set<[String]> = []
        for (entity, columns) in renames.attributes.sorted(by: { $0.key < $1.key }) {
            let table = table(of: entity)
            for (old, new) in columns.sorted(by: { $0.key < $1.key }) where renamedColumns.insert([table, old]).inserted {
                try db.execute(sql: "ALTER TABLE \(SQL.quote(table)) RENAME COLUMN \(SQL.quote(old)) TO \(SQL.quote(new))")
            }
        }
        for mapping in mappings {
            for relationship in mapping.toManyRelationships {
                guard case .joinTable(let table, "Z_SOURCE", _, _) = relationship.storage else { continue }
                let destination = relationship.description.destination
                let (oldTable, ownedBySameSide) = SQLiteStore.joinTable(
                    "\(renames.originalName(of: mapping.name)).\(relationship.name)",
                    "\(renames.originalName(of: destination)).\(relationship.description.inverse)")
                guard oldTable != table || !ownedBySameSide, try db.tableExists(oldTable) else { continue }
                if oldTable != table {
                    try db.execute(sql: "ALTER TABLE \(SQL.quote(oldTable)) RENAME TO \(SQL.quote(table))")
                }
                if !ownedBySameSide {
                    for (first, second) in [("Z_SOURCE", "Z_TARGET"), ("Z_SOURCE_ORDER", "Z_TARGET_ORDER")] {
                        try db.execute(
                            sql: """
                                ALTER TABLE \(SQL.quote(table)) RENAME COLUMN \(first) TO Z_SWAP;
                                ALTER TABLE \(SQL.quote(table)) RENAME COLUMN \(second) TO \(first);
                                ALTER TABLE \(SQL.quote(table)) RENAME COLUMN Z_SWAP TO \(second)
                                """)
                    }
                }
            }
        }
    }
}
