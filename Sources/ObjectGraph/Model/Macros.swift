/// Declares an entity: a final class whose stored `var`s are persisted, change-tracked attributes and
/// relationships.
///
/// ```swift
/// @Entity final class Mood {
///     var text: String
///     var rating: Int = 3
///     @Attribute(.unique) var remoteIdentifier: String?
///     @Relationship(inverse: \Country.moods) var country: Country?
///     @Transient var isSelected = false
///     init(text: String) { self.text = text }
/// }
/// ```
///
/// The entity name defaults to the class name; pass another one with `@Entity("Name")`. An entity
/// renamed since stores were made names its former name, `@Entity("Memo", originalName: "Note")`, and
/// opening such a store renames its table, keeping its rows.
/// Attribute types conform to ``AttributeValue``; relationships are `Optional` (to-one), `Set` (to-many)
/// or `Array` (ordered to-many) of other entities, and each has an inverse, declared on at least one side.
@attached(member, names: named(_$state), named(init(_$materializing:)), named(_$entity))
@attached(memberAttribute)
@attached(extension, conformances: Entity, Hashable, Equatable, names: named(==), named(hash(into:)))
public macro Entity(_ name: String? = nil, originalName: String? = nil) = #externalMacro(module: "ObjectGraphMacros", type: "EntityMacro")

/// Options of an attribute, given with `@Attribute(.unique, .indexed)`.
public enum AttributeOption: String, Sendable, Hashable, Codable {
    /// No two objects may have the same non-nil value; checked at save.
    case unique
    /// The column gets an index, for fast predicates and sorts.
    case indexed
    /// When an object is deleted, its value is kept in the persistent history's record of the
    /// deletion (its tombstone, see ``HistoryChange/tombstone``), for whoever reads the history later:
    /// a sync layer that must tell a server which record went, say.
    case preserveValueOnDeletion
}

/// Sets options of an attribute: `@Attribute(.unique) var remoteIdentifier: String?`. An attribute
/// renamed since stores were made names its former name, `@Attribute(originalName: "title") var
/// heading: String`, and opening such a store renames its column, keeping its values.
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil) =
    #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Configures a relationship: its inverse, delete rule and, for to-many, the allowed member count.
///
/// `inverse` names the property on the destination that points back; declare it on one side at least.
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify,
    inverse: AnyKeyPath? = nil,
    minimumCount: Int? = nil,
    maximumCount: Int? = nil
) = #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Leaves a stored property out of the store: it lives only in memory and is not change-tracked.
@attached(peer)
public macro Transient() = #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Routes a persisted property through its object's state. Added by `@Entity`; not for direct use.
@_documentation(visibility: internal)
@attached(accessor, names: named(init), named(get), named(set))
public macro _PersistedProperty(index: Int) = #externalMacro(module: "ObjectGraphMacros", type: "PersistedPropertyMacro")
