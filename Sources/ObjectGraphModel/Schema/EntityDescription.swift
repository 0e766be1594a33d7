import Foundation

/// An attribute of an entity, as the schema describes it.
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The property's name, which is also its column's.
    public var name: String
    /// How the value is stored.
    public var type: AttributeType
    /// Whether `nil` is a valid value.
    public var isOptional: Bool
    /// The declared default value, used for new objects, for migrations and for unreadable rows.
    public var defaultValue: StoredValue?
    /// Whether no two objects may have the same value (`@Attribute(.unique)`), enforced by an index.
    public var isUnique: Bool
    /// Whether the column is indexed for faster predicates and sorts (`@Attribute(.indexed)`).
    public var isIndexed: Bool
    /// The name the attribute had before it was renamed (`@Attribute(originalName:)`): a store that
    /// still has a column of that name has it renamed, values kept.
    public var originalName: String? = nil
    /// Whether the text is kept in the entity's full-text index (`@Attribute(.searchable)`).
    public var isSearchable: Bool = false
    /// Whether a large value is kept in a file beside the store (`@Attribute(.externalStorage)`).
    public var allowsExternalStorage: Bool = false
}

extension AttributeDescription {
    private enum CodingKeys: String, CodingKey {
        case name, type, isOptional, defaultValue, isUnique, isIndexed, originalName, isSearchable, allowsExternalStorage
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(AttributeType.self, forKey: .type)
        isOptional = try container.decode(Bool.self, forKey: .isOptional)
        defaultValue = try container.decodeIfPresent(StoredValue.self, forKey: .defaultValue)
        isUnique = try container.decode(Bool.self, forKey: .isUnique)
        isIndexed = try container.decode(Bool.self, forKey: .isIndexed)
        originalName = try container.decodeIfPresent(String.self, forKey: .originalName)
        // Stores written before full-text search have no searchable attribute.
        isSearchable = try container.decodeIfPresent(Bool.self, forKey: .isSearchable) ?? false
        allowsExternalStorage = try container.decodeIfPresent(Bool.self, forKey: .allowsExternalStorage) ?? false
    }

    /// Leaves out what is nil, and `isSearchable` and `allowsExternalStorage` when false, so that a
    /// model using neither encodes (and hashes, see ``Schema/versionHash``) as it did before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(isOptional, forKey: .isOptional)
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try container.encode(isUnique, forKey: .isUnique)
        try container.encode(isIndexed, forKey: .isIndexed)
        try container.encodeIfPresent(originalName, forKey: .originalName)
        if isSearchable { try container.encode(isSearchable, forKey: .isSearchable) }
        if allowsExternalStorage { try container.encode(allowsExternalStorage, forKey: .allowsExternalStorage) }
    }
}

/// A relationship of an entity, as the schema describes it.
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// The property's name.
    public var name: String
    /// The entity the relationship points to.
    public var destination: String
    /// The relationship on the destination that points back.
    public var inverse: String
    /// Whether the relationship holds several objects (a `Set` or an `Array`).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its order (declared as an `Array`).
    public var isOrdered: Bool
    /// What deleting the object does to the objects this relationship holds.
    public var deleteRule: DeleteRule
    /// The fewest objects a to-many relationship may hold at save, if limited.
    public var minimumCount: Int?
    /// The most objects a to-many relationship may hold at save, if limited.
    public var maximumCount: Int?
}

/// An entity of the schema: its attributes and relationships, in declaration order.
public struct EntityDescription: Sendable, Hashable, Codable {
    /// The entity's name, which is also its table's.
    public var name: String
    /// The stored attributes, in declaration order.
    public var attributes: [AttributeDescription]
    /// The relationships, in declaration order.
    public var relationships: [RelationshipDescription]
    /// The name the entity had before it was renamed (`@Entity("New", originalName: "Old")`): a
    /// store that still has a table of that name has it renamed, rows kept.
    public var originalName: String? = nil
    /// Groups of properties (attributes and to-one relationships, by name) whose values no two
    /// objects may share, declared with `#Unique`. A group of one attribute is not here: it is the
    /// attribute's ``AttributeDescription/isUnique``.
    public var uniquenessConstraints: [[String]] = []
    /// Groups of properties indexed together, declared with `#Index`, in each index's order. A group
    /// of one attribute is not here: it is the attribute's ``AttributeDescription/isIndexed``.
    public var indexes: [[String]] = []
    /// The entity this one is a subentity of (its class's `@Entity` superclass), whose attributes
    /// and relationships it has first; nil for an entity without a parent.
    public var parentEntity: String? = nil

    /// Every group whose values no two objects may share: each unique attribute on its own, then
    /// the ``uniquenessConstraints``.
    public var allUniquenessConstraints: [[String]] {
        attributes.filter(\.isUnique).map { [$0.name] } + uniquenessConstraints
    }

    /// The attributes kept in the full-text index (`@Attribute(.searchable)`), by name, in order.
    public var searchableAttributes: [String] { attributes.filter(\.isSearchable).map(\.name) }
    /// The attributes whose large values are kept in files (`@Attribute(.externalStorage)`), by name,
    /// in order.
    public var externallyStoredAttributes: [String] { attributes.filter(\.allowsExternalStorage).map(\.name) }

    /// The attribute named `name`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship named `name`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}

extension EntityDescription {
    private enum CodingKeys: String, CodingKey {
        case name, attributes, relationships, originalName, uniquenessConstraints, indexes, parentEntity
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        attributes = try container.decode([AttributeDescription].self, forKey: .attributes)
        relationships = try container.decode([RelationshipDescription].self, forKey: .relationships)
        originalName = try container.decodeIfPresent(String.self, forKey: .originalName)
        // Stores written before groups existed have none.
        uniquenessConstraints = try container.decodeIfPresent([[String]].self, forKey: .uniquenessConstraints) ?? []
        indexes = try container.decodeIfPresent([[String]].self, forKey: .indexes) ?? []
        parentEntity = try container.decodeIfPresent(String.self, forKey: .parentEntity)
    }

    /// Leaves out what is empty or nil, so that a model that declares no groups and no subentity
    /// encodes (and hashes, see ``Schema/versionHash``) as it did before they existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(relationships, forKey: .relationships)
        try container.encodeIfPresent(originalName, forKey: .originalName)
        if !uniquenessConstraints.isEmpty { try container.encode(uniquenessConstraints, forKey: .uniquenessConstraints) }
        if !indexes.isEmpty { try container.encode(indexes, forKey: .indexes) }
        try container.encodeIfPresent(parentEntity, forKey: .parentEntity)
    }
}

extension StoredValue: Codable {
    private enum CodingKeys: String, CodingKey { case integer, real, text, blob }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try container.decodeIfPresent(Int64.self, forKey: .integer) {
            self = .integer(value)
        } else if let value = try container.decodeIfPresent(Double.self, forKey: .real) {
            self = .real(value)
        } else if let value = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(value)
        } else if let value = try container.decodeIfPresent(Data.self, forKey: .blob) {
            self = .blob(value)
        } else {
            self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: break
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .real(let value): try container.encode(value, forKey: .real)
        case .text(let value): try container.encode(value, forKey: .text)
        case .blob(let value): try container.encode(value, forKey: .blob)
        }
    }
}
