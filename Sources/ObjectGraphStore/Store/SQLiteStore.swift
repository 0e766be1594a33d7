import Foundation
package import GRDB
import GRDBSQLite
package import ObjectGraphModel

/// The persistent store: one SQLite database through GRDB, a table per entity.
///
/// Every table has `Z_PK` (row id), `Z_UUID` (the object's global identifier) and `Z_VERSION`
/// (optimistic locking), then a column per attribute and per to-one foreign key. `Z_METADATA` keeps the
/// schema the store was created with, so that opening it with another model migrates or fails clearly.
package final class SQLiteStore: Sendable {
    package let writer: any DatabaseWriter
    package let identity: StoreIdentity
    package let schema: Schema
    package let mappings: [EntityMapping]
    /// Mapping index by entity declaration: looked up by every read that hides marked objects, so
    /// hashed cheaply.
    private let mappingIndex: [IdentityKey: Int]
    /// Mapping index by entity name: looked up for each row of a subentity that a query of its
    /// parent reads (see `EntityHierarchy`), and by the history's records.
    private let mappingIndexByName: [String: Int]
    package let path: String
    private let checkpointer: LogCheckpointer
    /// Where values stored outside the rows go, and above which size; nil when the model keeps no
    /// value in files, or the store is in memory (see ``ExternalFiles``).
    let externalStorage: (files: ExternalFiles, threshold: Int)?

    package init(configuration: StoreConfiguration, schema: Schema, migrationPlan: MigrationPlan? = nil) throws {
        try migrationPlan?.check(endingAt: schema)
        self.schema = schema
        let externalFiles = ExternalFiles(storePath: configuration.path)
        self.mappings = try Self.makeMappings(schema, externalFiles: externalFiles)
        let externalColumns = ExternalStorage.columns(of: schema.entities)
        self.externalStorage =
            externalColumns.isEmpty ? nil : externalFiles.map { ($0, max(0, configuration.externalStorageThreshold)) }
        var index: [IdentityKey: Int] = [:]
        for mapping in mappings { index[IdentityKey(mapping.declaration)] = mapping.index }
        self.mappingIndex = index
        self.mappingIndexByName = Dictionary(uniqueKeysWithValues: mappings.map { ($0.name, $0.index) })

        var grdbConfiguration = Configuration()
        grdbConfiguration.foreignKeysEnabled = false  // the object graph maintains links itself
        grdbConfiguration.label = "ObjectGraph"
        // Other connections and processes hold the write lock in turn: wait for them.
        grdbConfiguration.busyMode = .timeout(configuration.busyTimeout)
        let checkpointer = LogCheckpointer(threshold: configuration.checkpointThreshold)
        self.checkpointer = checkpointer
        grdbConfiguration.prepareDatabase { db in
            SQLFunction.register(in: db)
            checkpointer.install(on: db)
            if let externalFiles { ExternalValueFunction.register(in: db, files: externalFiles) }
        }
        let (trace, traceExpanded) = (configuration.traceStatements, configuration.traceExpandedStatements)
        if trace != nil || traceExpanded != nil {
            // One trace function per connection (a second would replace the first).
            grdbConfiguration.prepareDatabase { db in
                db.trace(options: .statement) { event in
                    guard case .statement(let statement) = event else { return }
                    trace?(statement.sql)
                    traceExpanded?(statement.sql, statement.expandedSQL)
                }
            }
        }
        if let limit = configuration.variableLimit {
            grdbConfiguration.prepareDatabase { db in
                sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, limit)
            }
        }
        path = configuration.path
        let migrator = SchemaMigrator(schema: schema, mappings: mappings, path: path)
        do {
            switch configuration.location {
            case .file(let path), .defaultFile(let path):
                if case .defaultFile = configuration.location { try Self.createDirectory(of: path) }
                // Looked at read-only first: opening a pool switches the file to WAL mode, and a
                // file that is refused must be left exactly as it was.
                let pool: DatabasePool
                let preparation: SchemaMigrator.Preparation
                if let migrationPlan,
                    let stored = try Self.inspect(
                        path, configuration: grdbConfiguration, { try SchemaMigrator.storedVersionHash($0, path: path) })
                        ?? nil,
                    !migrationPlan.stages(fromVersionHash: stored).isEmpty
                {
                    // The store is at one of the plan's versions: its stages run first.
                    pool = try DatabasePool(path: path, configuration: grdbConfiguration)
                    try StageMigrator(plan: migrationPlan, path: path).migrate(pool)
                    preparation = try pool.read { try migrator.preparation($0) }
                } else {
                    preparation = try Self.inspect(path, configuration: grdbConfiguration, migrator.preparation) ?? .create
                    pool = try DatabasePool(path: path, configuration: grdbConfiguration)
                }
                checkpointer.attach(pool)
                writer = pool
                if case .upToDate(let uuid) = preparation {
                    identity = StoreIdentity(uuid: uuid)
                } else {
                    identity = StoreIdentity(uuid: try writer.write { try migrator.prepare($0) })
                }
            case .inMemory:
                writer = try DatabaseQueue(configuration: grdbConfiguration)
                identity = StoreIdentity(uuid: try writer.write { try migrator.prepare($0) })
            }
            if let externalFiles { try recoverFiles(externalFiles, columns: externalColumns) }
        } catch let error as DatabaseError {
            throw Self.openingError(error, path: path)
        }
    }

    /// Settles what a crash left of the files of values stored outside the rows (see
    /// ``ExternalStorage/recover(_:columns:files:)``), removes the files named for removal by a
    /// transaction that no other followed, and drops the garbage table of a model that no longer
    /// keeps values in files. Takes the write lock only when there is something to do: an
    /// up-to-date store is otherwise opened without writing.
    private func recoverFiles(_ files: ExternalFiles, columns: [ExternalStorage.Column]) throws {
        guard try writer.read(ExternalStorage.hasGarbageTable) else { return }
        if !columns.isEmpty, try !files.incomingNames().isEmpty || writer.read(ExternalStorage.hasGarbage) {
            // The transaction takes the garbage's names and removes their files (see `write(_:)`).
            _ = try write { try ExternalStorage.recover($0.db, columns: columns, files: files) }
        }
        if columns.isEmpty {
            let names = try writer.write { db in
                try ExternalStorage.hasGarbageTable(db) ? ExternalStorage.dropGarbageTable(db) : []
            }
            files.remove(names)
        }
    }

    private static func createDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "its directory cannot be created: \(error)")
        }
    }

    /// What `body` finds in an existing file, through a read-only connection; nil for a file that
    /// does not exist yet.
    ///
    /// Even a read-only connection creates the `-wal` and `-shm` files of a WAL database that has
    /// none. Without a `-wal` file no connection has the database open in WAL mode (SQLite removes it
    /// when the last one closes), so the file is then read as immutable, which creates nothing.
    /// Where SQLite does not take URI file names, the plain read-only connection is used.
    private static func inspect<Result>(
        _ path: String, configuration: Configuration, _ body: (Database) throws -> Result
    ) throws -> Result? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var readOnly = configuration
        readOnly.readonly = true
        if !FileManager.default.fileExists(atPath: path + "-wal") {
            let immutable = URL(fileURLWithPath: path).absoluteString + "?immutable=1"
            let queue: DatabaseQueue?
            do {
                queue = try DatabaseQueue(path: immutable, configuration: readOnly)
            } catch {
                queue = nil  // no URI file names here: the plain connection below reports real errors
            }
            if let queue { return try queue.read(body) }
        }
        return try DatabaseQueue(path: path, configuration: readOnly).read(body)
    }

    /// Runs a read made of one statement.
    ///
    /// Without the transaction GRDB's `read` opens (a `BEGIN` and a `COMMIT`, about 100,000 instructions,
    /// more than a faulted object's whole query): SQLite runs a lone statement in a transaction of its
    /// own, which sees one consistent state of the database.
    package func readStatement<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try writer.unsafeRead(body)
    }

    package func mapping(for entity: EntityDeclaration) -> EntityMapping? {
        mappingIndex[IdentityKey(entity)].map { mappings[$0] }
    }

    package func mapping(forIdentifier identifier: ObjectIdentifier) -> EntityMapping? {
        mappingIndex[IdentityKey(identifier)].map { mappings[$0] }
    }

    package func mapping(named name: String) -> EntityMapping? {
        mappingIndexByName[name].map { mappings[$0] }
    }

    private static func openingError(_ error: DatabaseError, path: String) -> ObjectGraphError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .incompatibleStore(path: path, reason: "the file is not an SQLite database")
        case .SQLITE_CANTOPEN:
            return .incompatibleStore(path: path, reason: "the file cannot be opened or created")
        default:
            return .store(StoreError(error))
        }
    }

    // MARK: Mappings

    /// The store's mappings; `externalFiles` are where they read values kept in files.
    package static func makeMappings(_ schema: Schema, externalFiles: ExternalFiles? = nil) throws -> [EntityMapping] {
        let mappings = try makeMappings(schema.declarations, schema: schema, externalFiles: externalFiles)
        try checkTableNames(mappings)
        return mappings
    }

    /// Refuses a model two of whose tables would have one name: an entity's and a join table's, or
    /// two join tables' (`J_k.l` and `J.k_l` both make `Z_J_k_l`). Renaming a join table that
    /// already holds links would need a migration; a clear error at model time needs none.
    private static func checkTableNames(_ mappings: [EntityMapping]) throws {
        var owners: [String: String] = [:]
        for mapping in mappings {
            owners[mapping.name] = "entity \(mapping.name)"
        }
        // A full-text index is a table and FTS5's own tables beside it (`_data`, `_idx`, …).
        for mapping in mappings {
            let entities = mappings.map(\.description)
            guard mapping.description.parentEntity == nil, let index = SearchIndex(mapping.description, among: entities) else {
                continue
            }
            for table in [index.table] + SearchIndex.shadowSuffixes.map({ index.table + $0 }) {
                let owner = "the full-text index of \(mapping.name)"
                if let other = owners[table], other != owner {
                    throw ObjectGraphError.invalidModel(
                        "\(owner) and \(other) would both be stored in table \(table): rename one of the entities")
                }
                owners[table] = owner
            }
        }
        for mapping in mappings {
            for relationship in mapping.toManyRelationships {
                guard case .joinTable(let table, "Z_SOURCE", _, _) = relationship.storage else { continue }
                // A subentity's inherited relationship is its parent's, with the parent's join table.
                let owner = "\(declaringEntity(of: relationship.name, in: mapping.declaration)).\(relationship.name)"
                if let other = owners[table], other != owner {
                    throw ObjectGraphError.invalidModel(
                        "\(owner) and \(other) would both be stored in table \(table): rename one of them")
                }
                owners[table] = owner
            }
        }
    }

    private static func makeMappings(
        _ declarations: [EntityDeclaration], schema: Schema, externalFiles: ExternalFiles?
    ) throws -> [EntityMapping] {
        let position = Dictionary(uniqueKeysWithValues: declarations.enumerated().map { ($1.name, $0) })
        let mappings = try declarations.enumerated().map { index, declaration in
            guard let description = schema.entity(named: declaration.name) else {
                throw ObjectGraphError.invalidModel("missing description of \(declaration.name)")
            }
            var toOne: [RelationshipMapping] = []
            var toMany: [RelationshipMapping] = []
            for (propertyIndex, property) in declaration.properties.enumerated() where property.isRelationship {
                guard let relationship = description.relationship(named: property.name),
                    let destinationIndex = position[relationship.destination],
                    let inverse = schema.entity(named: relationship.destination)?
                        .relationship(named: relationship.inverse),
                    let inverseIndex = declarations[destinationIndex].properties
                        .firstIndex(where: { $0.name == relationship.inverse })
                else {
                    throw ObjectGraphError.invalidModel("\(declaration.name).\(property.name) has no usable inverse")
                }
                let mapping = RelationshipMapping(
                    description: relationship, propertyIndex: propertyIndex, destination: destinationIndex,
                    destinationDeclaration: declarations[destinationIndex],
                    storage: storage(
                        of: relationship, in: declaringEntity(of: property.name, in: declaration), inverse: inverse,
                        inverseIn: declaringEntity(of: inverse.name, in: declarations[destinationIndex]),
                        destinationTable: declarations[destinationIndex].root.name),
                    inversePropertyIndex: inverseIndex,
                    inverseSlot: declarations[destinationIndex].layout.slotIndex[inverseIndex],
                    inverseIsToMany: inverse.isToMany)
                if relationship.isToMany { toMany.append(mapping) } else { toOne.append(mapping) }
            }
            for group in description.uniquenessConstraints + description.indexes {
                if let problem = ColumnGroup.problem(with: group, description: description, toOne: toOne) {
                    throw ObjectGraphError.invalidModel(problem)
                }
            }
            let mapping = EntityMapping(
                declaration: declaration, description: description, index: index,
                toOne: toOne, toMany: toMany, externalFiles: externalFiles,
                hierarchy: EntityHierarchy(declaration, among: declarations))
            if declaration.type is any DelayedDeletable.Type {
                let attribute = mapping.markedForDeletionSlot.map { description.attributes[$0] }
                guard let attribute, attribute.type == .date, attribute.isOptional else {
                    throw ObjectGraphError.invalidModel(
                        """
                        \(declaration.name) adopts DelayedDeletable, so its markedForDeletionDate must be a stored \
                        attribute of type Date? (not @Transient)
                        """)
                }
            }
            return mapping
        }
        // An entity with subentities selects their columns too: made again, with each
        // subentity's value columns (attributes and to-one keys), as its own mapping selects them.
        return mappings.map { mapping in
            guard mapping.hierarchy?.hasSubentities == true else { return mapping }
            let subentities = mappings.filter { $0 !== mapping && $0.declaration.isKind(of: mapping.declaration) }
            return EntityMapping(
                declaration: mapping.declaration, description: mapping.description, index: mapping.index,
                toOne: mapping.toOneRelationships, toMany: mapping.toManyRelationships, externalFiles: externalFiles,
                hierarchy: mapping.hierarchy,
                subentityValueColumns: Dictionary(uniqueKeysWithValues: subentities.map { ($0.name, $0.valueColumns) }))
        }
    }

    /// The entity that declares property `name` of `declaration`: itself, or the highest of its
    /// parents that has it (a subentity has its parents' properties).
    private static func declaringEntity(of name: String, in declaration: EntityDeclaration) -> String {
        var declaring = declaration
        while let parent = declaring.parent, parent.propertyNames.contains(name) { declaring = parent }
        return declaring.name
    }

    /// The join table of a many-to-many relationship between two sides (`Entity.relationship`), and
    /// whether the first side owns it (its objects are the `Z_SOURCE` column): the side whose name
    /// sorts first.
    package static func joinTable(_ thisSide: String, _ otherSide: String) -> (table: String, owns: Bool) {
        let owns = thisSide <= otherSide
        return ("Z_" + (owns ? thisSide : otherSide).replacingOccurrences(of: ".", with: "_"), owns)
    }

    /// Decides where a relationship's links live; both sides of a relationship agree.
    ///
    /// `destinationTable` is the destination's table: its own, or its hierarchy's root's (a
    /// hierarchy's entities share it, see ``EntityHierarchy``).
    ///
    /// `entity` and `inverseEntity` are the entities that declare the relationship and its inverse:
    /// a subentity's inherited relationship is its parent's, stored where the parent's is.
    private static func storage(
        of relationship: RelationshipDescription, in entity: String, inverse: RelationshipDescription,
        inverseIn inverseEntity: String, destinationTable: String
    ) -> RelationshipMapping.Storage {
        let thisSide = "\(entity).\(relationship.name)"
        let otherSide = "\(inverseEntity).\(inverse.name)"
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true):
            return .foreignKey(column: relationship.name)
        case (true, false):
            return .inverseForeignKey(
                table: destinationTable, column: inverse.name,
                orderColumn: relationship.isOrdered ? SQL.orderColumn(forForeignKey: inverse.name) : nil)
        case (false, false):
            return thisSide <= otherSide
                ? .foreignKey(column: relationship.name)
                : .inverseForeignKey(table: destinationTable, column: inverse.name, orderColumn: nil)
        case (true, true):
            let (table, owns) = joinTable(thisSide, otherSide)
            return .joinTable(
                table: table,
                sourceColumn: owns ? "Z_SOURCE" : "Z_TARGET",
                targetColumn: owns ? "Z_TARGET" : "Z_SOURCE",
                orderColumn: relationship.isOrdered ? (owns ? "Z_SOURCE_ORDER" : "Z_TARGET_ORDER") : nil)
        }
    }
}

extension StoreConfiguration {
    package var path: String {
        switch location {
        case .file(let path), .defaultFile(let path): path
        case .inMemory: ":memory:"
        }
    }
}
