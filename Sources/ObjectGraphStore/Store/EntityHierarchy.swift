import GRDB
package import ObjectGraphModel

/// Where an entity of a hierarchy (an `@Entity` class and its `@Entity` subclasses) keeps its rows:
/// one table for the whole hierarchy, named after its root, with a column, `Z_ENT`, naming each
/// row's entity.
///
/// One table rather than one per entity, as Core Data does: a fetch of the root is one query over
/// one table (no union, no join), a relationship to the root is one foreign key whatever the
/// subentity, a `#Unique` or `.unique` attribute of the root holds across the hierarchy, and
/// turning an existing entity into the root of a hierarchy adds columns (with `Z_ENT` defaulting to
/// the root) rather than moving rows. The cost is columns that are NULL in the rows of other
/// entities: SQLite stores a NULL in one byte of the row's header.
package struct EntityHierarchy: Sendable {
    /// The root entity's name: the table's.
    package let root: String
    /// This entity's name, as its rows' `Z_ENT` holds it.
    package let entity: String
    /// This entity and its subentities at every depth, by name: the `Z_ENT` values of its objects.
    package let entities: [String]

    /// The column naming each row's entity.
    package static let entityColumn = "Z_ENT"

    /// The hierarchy of `declaration` among `declarations`; nil for an entity with no parent and
    /// no subentity, which keeps a table of its own without the column.
    package init?(_ declaration: EntityDeclaration, among declarations: [EntityDeclaration]) {
        let members = declarations.filter { $0.root === declaration.root }
        guard members.count > 1 else { return nil }
        root = declaration.root.name
        entity = declaration.name
        entities = declarations.filter { $0.isKind(of: declaration) }.map(\.name)
    }

    /// The table of the entity named `entity` among `entities` (descriptions, as a store records
    /// them): its own, or its hierarchy's root's.
    package static func table(of entity: String, among entities: [EntityDescription]) -> String {
        var table = entity
        while let parent = entities.first(where: { $0.name == table })?.parentEntity { table = parent }
        return table
    }

    /// Whether objects of other entities (subentities) are among this entity's.
    package var hasSubentities: Bool { entities.count > 1 }

    /// The condition, on the table aliased `t0`, that selects this entity's rows and its
    /// subentities'; nil for the root, whose are all of the table's.
    package var condition: String? {
        guard entity != root else { return nil }
        return "t0.\(Self.entityColumn) IN (" + entities.map { SQL.literal($0.databaseValue) }.joined(separator: ", ") + ")"
    }
}
