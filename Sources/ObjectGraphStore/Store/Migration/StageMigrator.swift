import Foundation
package import GRDB
import ObjectGraphModel

/// Runs the stages of a ``MigrationPlan`` on a store, each in one write transaction: the stage's
/// `willMigrate`, the change of tables, its `didMigrate`, the removal of what the new version
/// dropped, the check of required values, and the new version in the metadata.
package struct StageMigrator {
    package let plan: MigrationPlan
    package let path: String

    /// Runs the stages from the store's version to the plan's last, if the store is at one of the
    /// plan's versions; otherwise does nothing (the usual migration then applies).
    package func migrate(_ writer: any DatabaseWriter) throws {
        guard let hash = try writer.read({ try SchemaMigrator.storedVersionHash($0, path: path) }) else { return }
        let stages = plan.stages(fromVersionHash: hash)
        guard !stages.isEmpty else { return }
        // The stages' code reads rows in the current format.
        try writer.write { db in try upgradeFormat(db) }
        for stage in stages {
            try writer.write { db in try run(stage, db) }
        }
    }

    /// Brings a store of an older format to the current one, at the version it is at (see
    /// ``StoreFormatUpgrade``).
    private func upgradeFormat(_ db: Database) throws {
        guard let metadata = try StoreMetadata.read(db, path: path), metadata.format < StoreMetadata.currentFormat else { return }
        if metadata.format < 2 {
            let clashes = try StoreFormatUpgrade.clashes(db, entities: metadata.entities)
            guard clashes.isEmpty else { throw ObjectGraphError.schemaMismatch(clashes) }
            try StoreFormatUpgrade.run(db, entities: metadata.entities)
        }
        try HistoryTables.create(db)  // format 3: the history as records
        try StoreMetadata.write(db, uuid: metadata.uuid, entities: metadata.entities, versionHash: metadata.versionHash)
    }

    /// Runs one stage inside the transaction `db` is in; does nothing when the store is not at the
    /// stage's first version any more (another process migrated it meanwhile).
    private func run(_ stage: MigrationStage, _ db: Database) throws {
        guard let metadata = try StoreMetadata.read(db, path: path), metadata.versionHash == stage.from.versionHash else { return }
        let uuid = metadata.uuid
        let differences = SchemaMigrator.differences(from: stage.from.entities, to: stage.to.entities)
        guard differences.allSatisfy({ $0.isAdditive || $0.isMigratedByAStage }) else {
            throw ObjectGraphError.schemaMismatch(differences)
        }
        let old = SchemaMigrator(schema: stage.from, mappings: try SQLiteStore.makeMappings(stage.from), path: path)
        let new = SchemaMigrator(schema: stage.to, mappings: try SQLiteStore.makeMappings(stage.to), path: path)
        let before = db.totalChangesCount
        try runCode(stage.willMigrate, of: stage, db)
        var written = db.totalChangesCount - before
        let renames = SchemaMigrator.Renames(from: stage.from.entities, to: stage.to.entities)
        try new.rename(renames, db)
        try new.applyAdditiveChanges(db, addingRequiredColumns: true, stored: renames.applied(to: stage.from.entities))
        let beforeDidMigrate = db.totalChangesCount
        try runCode(stage.didMigrate, of: stage, db)
        written += db.totalChangesCount - beforeDidMigrate
        if written > 0 { try HistoryTables.markGap(db) }
        try dropRemoved(old: old, new: new, renames: renames, db)
        try checkRequiredValues(of: stage, db)
        try new.writeMetadata(db, uuid: uuid)
    }

    /// Runs a stage's code; what it throws fails the stage, named.
    private func runCode(_ body: MigrationStage.Body?, of stage: MigrationStage, _ db: Database) throws {
        guard let body else { return }
        do {
            // Under their old names before the tables change, their new ones after.
            let renames = SchemaMigrator.Renames(from: stage.from.entities, to: stage.to.entities)
            let externalColumns = Set(
                [stage.from.entities, renames.applied(to: stage.from.entities), stage.to.entities].flatMap(ExternalStorage.columns(of:)))
            try body(MigrationContext(db: db, externalFiles: ExternalFiles(storePath: path), externalColumns: externalColumns))
        } catch let error as ObjectGraphError where error.code == .migrationFailed {
            throw ObjectGraphError.migrationFailed(
                stage: stage.name, entity: error.entity, property: error.property, reason: error.reason ?? "\(error)")
        } catch {
            throw ObjectGraphError.migrationFailed(stage: stage.name, entity: nil, property: nil, reason: "\(error)")
        }
    }

    /// Drops the tables and columns of the old version that the new one does not have.
    private func dropRemoved(old: SchemaMigrator, new: SchemaMigrator, renames: SchemaMigrator.Renames, _ db: Database) throws {
        let kept = new.targetLayout().tables
        let keptNames = Set(kept.map(\.name))
        for table in old.targetLayout().tables {
            let name = renames.entities[table.name] ?? table.name
            if !keptNames.contains(name), try db.tableExists(name) {
                try db.execute(sql: "DROP TABLE \(SQL.quote(name))")
                try db.execute(sql: "DELETE FROM \(SchemaMigrator.primaryKeyTable) WHERE entity = ?", arguments: [name])
            }
        }
        let indexes = new.targetLayout().indexes
        for table in kept where try db.tableExists(table.name) {
            // Indexes the new version does not have (a unique constraint dropped, say) go too.
            for index in try db.indexes(on: table.name) where index.name.hasPrefix("Z") {
                let isWanted = indexes.contains { $0.table == table.name && $0.columns == index.columns && $0.isUnique == index.isUnique }
                if !isWanted { try db.execute(sql: "DROP INDEX \(SQL.quote(index.name))") }
            }
            let wanted = Set(table.columns.map(\.name))
            for column in try db.columns(in: table.name).map(\.name) where !wanted.contains(column) {
                // SQLite refuses to drop a column an index names: the index goes first.
                for index in try db.indexes(on: table.name) where index.columns.contains(column) {
                    try db.execute(sql: "DROP INDEX \(SQL.quote(index.name))")
                }
                try db.execute(sql: "ALTER TABLE \(SQL.quote(table.name)) DROP COLUMN \(SQL.quote(column))")
            }
        }
    }

    /// Fails the stage when a row has no value for a required attribute without a default.
    private func checkRequiredValues(of stage: MigrationStage, _ db: Database) throws {
        for entity in stage.to.entities {
            for attribute in entity.attributes where !attribute.isOptional && attribute.defaultValue == nil {
                let key = try Int64.fetchOne(
                    db,
                    sql: "SELECT Z_PK FROM \(SQL.quote(entity.name)) WHERE \(SQL.quote(attribute.name)) IS NULL LIMIT 1")
                if let key {
                    throw ObjectGraphError.migrationFailed(
                        stage: stage.name, entity: entity.name, property: attribute.name,
                        reason: "row \(key) has no value for this required attribute after the stage")
                }
            }
        }
    }
}
