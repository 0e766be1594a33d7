public import ObjectGraphModel

/// The versions a store's model went through, and the code that carries a store from each to the
/// next: what a model needs when a change is more than ObjectGraph migrates by itself.
///
/// Without a plan, opening a store made by an older model migrates it when the change is additive
/// (see <doc:SchemaAndMigration>) and refuses anything else. A plan lists stages, each from one
/// version of the model to the next, with code that runs before and after the change of tables:
///
/// ```swift
/// let plan = MigrationPlan(stages: [
///     MigrationStage(from: v1, to: v2, didMigrate: { migration in
///         // V2 splits `name` into the new required `first` and `last`.
///         for var row in try migration.rows(of: "Person") {
///             let parts = try row.value("name", as: String.self)?.split(separator: " ") ?? []
///             try row.setValue(parts.first.map(String.init) ?? "", for: "first")
///             try row.setValue(parts.dropFirst().joined(separator: " "), for: "last")
///             try migration.update(row)
///         }
///     }),
///     MigrationStage(from: v2, to: v3, willMigrate: { migration in
///         // V3 makes `email` unique: merge the duplicates first.
///         ...
///     }),
/// ])
/// let container = try ObjectContainer(schema: v3, migrationPlan: plan, configuration: .file(path))
/// ```
///
/// Opening a store runs, in order, the stages from the store's version to the last one: a store
/// two versions behind goes through two stages. Each stage is one SQLite transaction: its
/// `willMigrate`, the change of tables, its `didMigrate`, the checks and the new version are
/// committed together or not at all, so a stage interrupted (an error, a crash, power lost) leaves
/// the store at the version before it, and the next open runs the stage again.
///
/// A store whose model is none of the plan's versions migrates as without a plan.
public struct MigrationPlan: Sendable {
    /// The stages, each from the version the previous one leads to.
    public let stages: [MigrationStage]

    /// Creates a plan.
    ///
    /// - Parameter stages: The stages in order, each starting at the version the previous one
    ///   ends at; the last ends at the model the container opens with.
    public init(stages: [MigrationStage]) {
        self.stages = stages
    }

    /// Checks that the stages chain and end at `schema`; throws
    /// ``ObjectGraphError/Code/invalidModel`` naming the stage that does not.
    package func check(endingAt schema: Schema) throws {
        for (index, stage) in stages.enumerated() {
            if index > 0, stages[index - 1].to.versionHash != stage.from.versionHash {
                throw ObjectGraphError.invalidModel(
                    "migration stage \(index + 1) (\(stage.name)) does not start at the version stage \(index) ends at")
            }
        }
        if let last = stages.last, last.to.versionHash != schema.versionHash {
            throw ObjectGraphError.invalidModel(
                "the last migration stage (\(last.name)) does not end at the model the container opens with")
        }
    }

    /// The stages a store at the version with this hash goes through; empty when the hash is
    /// none of the plan's versions but the last.
    package func stages(fromVersionHash hash: String) -> ArraySlice<MigrationStage> {
        guard let first = stages.firstIndex(where: { $0.from.versionHash == hash }) else { return [] }
        return stages[first...]
    }
}

/// One step of a ``MigrationPlan``: from a version of the model to the next, with code of its own.
///
/// Beyond what migrates automatically (new entities, attributes with a default or optional,
/// relationships, indexes, renames declared with `originalName`), a stage may remove attributes
/// and entities, add required attributes without a default, and make optional attributes
/// required: its code gives the rows what the new version needs. A change of an attribute's type
/// or of a relationship is refused: add a new attribute, fill it, and remove the old one.
///
/// The stage runs in one transaction:
/// 1. `willMigrate` reads and writes rows as the old version stored them (merge duplicates before a
///    unique constraint, say);
/// 2. tables, columns and indexes become those of the new version; removed columns are kept for now,
///    new required ones are empty;
/// 3. `didMigrate` reads every column, old and new, and writes the new ones (fill a required
///    attribute from old ones, split a field);
/// 4. removed attributes and entities are dropped, and every required attribute is checked to
///    have a value in every row: a row left without one fails the stage with
///    ``ObjectGraphError/Code/migrationFailed``, naming the entity, the attribute and the row.
///
/// The stage's writes are not in the persistent history: they happen before any context exists.
public struct MigrationStage: Sendable {
    /// Code given the rows of the store, inside the stage's transaction.
    public typealias Body = @Sendable (MigrationContext) throws -> Void

    /// The version the stage starts at.
    public let from: Schema
    /// The version it leads to.
    public let to: Schema
    /// A name for errors and logs.
    public let name: String
    package let willMigrate: Body?
    package let didMigrate: Body?

    /// Creates a stage.
    ///
    /// - Parameters:
    ///   - from: The model as it was: a ``Schema`` of the entities of that version (entity classes
    ///     of the old version keep their entity's name with `@Entity("Name")`).
    ///   - to: The model the stage leads to.
    ///   - name: A name for errors; by default "from → to" with the versions' hashes.
    ///   - willMigrate: Runs before the tables change, on the rows as the old version stored them.
    ///   - didMigrate: Runs after the tables changed, before removed columns are dropped.
    public init(from: Schema, to: Schema, name: String? = nil, willMigrate: Body? = nil, didMigrate: Body? = nil) {
        self.from = from
        self.to = to
        self.name = name ?? "\(from.versionHash.prefix(8)) → \(to.versionHash.prefix(8))"
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }
}
