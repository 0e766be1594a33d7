/// An attribute of an entity, as the schema describes it.
public struct AttributeDescription: Sendable, Hashable, Codable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The declared default value, used for new objects, for migrations and for unreadable rows.
    public var defaultValue: StoredValue?
    public var isUnique: Bool
    public var isIndexed: Bool
}

/// A relationship of an entity, as the schema describes it.
public struct RelationshipDescription: Sendable, Hashable, Codable {
    public var name: String
    /// The entity the relationship points to.
    public var destination: String
    /// The relationship on the destination that points back.
    public var inverse: String
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its order (declared as an `Array`).
    public var isOrdered: Bool
    public var deleteRule: DeleteRule
    public var minimumCount: Int?
    public var maximumCount: Int?
}

/// An entity of the schema: its attributes and relationships, in declaration order.
public struct EntityDescription: Sendable, Hashable, Codable {
    public var name: String
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]

    /// The attribute named `name`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship named `name`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
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

import Foundation
