public import Foundation

/// One change a client sends: an upsert of some fields of a record, or its deletion.
public struct Mutation: Sendable, Hashable, Codable {
    /// What a mutation does.
    public enum Operation: String, Sendable, Hashable, Codable {
        /// Creates the record, or changes the fields it names (the others keep their values).
        case upsert
        /// Deletes the record, leaving a tombstone in the feed.
        case delete
    }

    /// The client's number for this mutation: each client numbers its mutations in increasing
    /// order, and the server applies each number once.
    public var number: Int64
    /// Upsert or delete.
    public var operation: Operation
    /// The record's entity.
    public var entity: String
    /// The record's global identifier.
    public var id: UUID
    /// The version of the record this change was made from; `nil` when the client creates it.
    ///
    /// An upsert conflicts when one of its fields changed on the server after `baseVersion` (so
    /// two devices editing different fields do not conflict); a delete conflicts when anything did.
    public var baseVersion: Int64?
    /// The changed fields of an upsert (only those); empty for a delete.
    public var fields: [String: JSONValue]

    public init(
        number: Int64, operation: Operation, entity: String, id: UUID,
        baseVersion: Int64? = nil, fields: [String: JSONValue] = [:]
    ) {
        self.number = number
        self.operation = operation
        self.entity = entity
        self.id = id
        self.baseVersion = baseVersion
        self.fields = fields
    }

    /// An upsert of the given fields.
    public static func upsert(
        _ number: Int64, entity: String, id: UUID, baseVersion: Int64? = nil, fields: [String: JSONValue]
    ) -> Mutation {
        Mutation(number: number, operation: .upsert, entity: entity, id: id, baseVersion: baseVersion, fields: fields)
    }

    /// A deletion of the record.
    public static func delete(_ number: Int64, entity: String, id: UUID, baseVersion: Int64?) -> Mutation {
        Mutation(number: number, operation: .delete, entity: entity, id: id, baseVersion: baseVersion)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case number, operation, entity, id, baseVersion, fields
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decode(Int64.self, forKey: .number)
        operation = try container.decode(Operation.self, forKey: .operation)
        entity = try container.decode(String.self, forKey: .entity)
        id = try container.decode(UUID.self, forKey: .id)
        baseVersion = try container.decodeIfPresent(Int64.self, forKey: .baseVersion)
        fields = try container.decodeIfPresent([String: JSONValue].self, forKey: .fields) ?? [:]
    }
}
