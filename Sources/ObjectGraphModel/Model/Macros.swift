/// Declares an entity: a class whose stored `var`s are persisted, change-tracked attributes and
/// relationships. A class that is not `final` can have `@Entity` subclasses, its subentities (see
/// <doc:EntityInheritance>).
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
@attached(
    member, conformances: Entity,
    names: named(_$state), named(init(_$materializing:)), named(_$entity), prefixed(_$ownState_), prefixed(_$firstIndex_),
    prefixed(_$declaration_), prefixed(_$properties_), named(awakeFromInsert), named(prepareForDeletion), named(willSave),
    named(didSave), named(validateForInsert), named(validateForUpdate), named(validateForDelete))
@attached(memberAttribute)
@attached(extension, conformances: Entity, Hashable, Equatable, names: named(==), named(hash(into:)))
public macro Entity(_ name: String? = nil, originalName: String? = nil) = #externalMacro(module: "ObjectGraphMacros", type: "EntityMacro")

/// Options of an attribute, given with `@Attribute(.unique, .indexed)`: how it is stored, and the
/// rules its values must follow (`@Attribute(.range(1...5))`), checked at save.
///
/// A struct rather than an enum, so that options can be added without breaking code that uses them.
public struct AttributeOption: Sendable, Hashable {
    package enum Kind: Hashable {
        case unique, indexed, preserveValueOnDeletion, searchable, externalStorage
        case rule(AttributeRule)
    }
    package let kind: Kind

    /// No two objects may have the same non-nil value; checked at save.
    public static let unique = AttributeOption(kind: .unique)
    /// The column gets an index, for fast predicates and sorts.
    public static let indexed = AttributeOption(kind: .indexed)
    /// The text is kept in the entity's full-text index (SQLite FTS5), in the transaction that
    /// writes it, for ``ObjectContext/search(_:matching:where:sortBy:limit:)``. For `String`
    /// attributes (optional or not).
    public static let searchable = AttributeOption(kind: .searchable)
    /// A value larger than the store's threshold (``StoreConfiguration/externalStorageThreshold``,
    /// 100 KiB by default) is kept in a file beside the store rather than in its row: a row stays
    /// small, so reading and scanning the table stays fast, and the value is read only when it is
    /// used (the file is mapped into memory). Files are written and removed with the transaction
    /// that writes the row. For `Data` attributes (optional or not); SwiftData's
    /// `.externalStorage`, Core Data's "Allows External Storage". An in-memory store keeps every
    /// value in its row.
    public static let externalStorage = AttributeOption(kind: .externalStorage)
    /// When an object is deleted, its value is kept in the persistent history's record of the
    /// deletion (its tombstone, see ``HistoryChange/tombstone``), for whoever reads the history later:
    /// a sync layer that must tell a server which record went, say.
    public static let preserveValueOnDeletion = AttributeOption(kind: .preserveValueOnDeletion)

    /// The value must lie in `range` (Core Data's minimum and maximum value):
    /// `@Attribute(.range(1...5)) var rating: Int`. For integer, floating-point and date attributes;
    /// integer bounds suit a floating-point attribute too (`.range(0...1)`).
    public static func range<Bound: AttributeValue & Comparable>(_ range: ClosedRange<Bound>) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(range: range.lowerBound, range.upperBound)))
    }

    /// The value must be at least `range`'s lower bound: `@Attribute(.range(0...)) var count: Int`.
    public static func range<Bound: AttributeValue & Comparable>(_ range: PartialRangeFrom<Bound>) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(range: range.lowerBound, nil)))
    }

    /// The value must be at most `range`'s upper bound: `@Attribute(.range(...100)) var percent: Double`.
    public static func range<Bound: AttributeValue & Comparable>(_ range: PartialRangeThrough<Bound>) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(range: nil, range.upperBound)))
    }

    /// The value's length must lie in `range` (Core Data's minimum and maximum length): characters
    /// for a `String` (as Swift counts them, `"é".count == 1`), bytes for `Data`.
    /// `@Attribute(.length(1...200)) var text: String`.
    public static func length(_ range: ClosedRange<Int>) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(kind: .length(minimum: range.lowerBound, maximum: range.upperBound))))
    }

    /// The value's length must be at least `range`'s lower bound: `.length(1...)`, not empty.
    public static func length(_ range: PartialRangeFrom<Int>) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(kind: .length(minimum: range.lowerBound, maximum: nil))))
    }

    /// The string must match the regular expression `pattern` as a whole (Core Data's regular
    /// expression; the syntax of Swift's `Regex`): `@Attribute(.matches("[A-Z]{2}")) var code: String`.
    /// A pattern that does not compile makes the model invalid.
    public static func matches(_ pattern: String) -> AttributeOption {
        AttributeOption(kind: .rule(AttributeRule(kind: .matches(pattern))))
    }

    /// The rule this option sets, if it is one.
    package var rule: AttributeRule? {
        if case .rule(let rule) = kind { rule } else { nil }
    }
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

/// Declares groups of properties whose values no two objects of the entity may share, as SwiftData's
/// `#Unique` does: written in the body of an `@Entity` class, one array per group.
///
/// ```swift
/// @Entity final class Person {
///     #Unique<Person>([\.firstName, \.lastName], [\.email])
///     var firstName: String
///     var lastName: String
///     var email: String?
///     ...
/// }
/// ```
///
/// Two people may share a first name, or a last name, but not both; and no two may share an email.
/// A group holds attributes and to-one relationships (whose key is compared: one mood per country
/// and day is `#Unique<Mood>([\.country, \.day])`); a group of one attribute is that attribute's
/// `@Attribute(.unique)`. As for a unique attribute, a group with a nil value clashes with nothing.
/// Each group is kept by a unique index of the store, so a save, a batch insert or a batch update
/// that would make two rows share a group's values fails with
/// ``ValidationFailure/Reason/notUniqueTogether(properties:values:)`` (or, for a batch update,
/// ``ObjectGraphError/Code/invalidBatchOperation``), naming every property of the group; opening a
/// store whose rows already break a new group fails and names them, changing nothing.
@freestanding(declaration)
public macro Unique<Root>(_ groups: [PartialKeyPath<Root>]...) =
    #externalMacro(module: "ObjectGraphMacros", type: "PropertyGroupsMacro")

/// Declares groups of properties indexed together, as SwiftData's `#Index` does: written in the
/// body of an `@Entity` class, one array per index, the properties in the index's order.
///
/// ```swift
/// @Entity final class Mood {
///     #Index<Mood>([\.country, \.date])
///     ...
/// }
/// ```
///
/// A fetch that tests the first properties of an index, or sorts by them, reads the index instead
/// of the table (``ObjectContext/queryPlan(for:)`` shows it). A group holds attributes and to-one
/// relationships; a group of one attribute is that attribute's `@Attribute(.indexed)`. Opening a
/// store builds the indexes a new version adds.
@freestanding(declaration)
public macro Index<Root>(_ groups: [PartialKeyPath<Root>]...) =
    #externalMacro(module: "ObjectGraphMacros", type: "PropertyGroupsMacro")

/// Leaves a stored property out of the store: it lives only in memory and is not change-tracked.
@attached(peer)
public macro Transient() = #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Routes a persisted property through its object's state. Added by `@Entity`; not for direct use.
@_documentation(visibility: internal)
@attached(accessor, names: named(init), named(get), named(set))
public macro _PersistedProperty(index: Int, owner: String) = #externalMacro(module: "ObjectGraphMacros", type: "PersistedPropertyMacro")
