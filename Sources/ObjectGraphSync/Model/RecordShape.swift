import ObjectGraph

/// What of a ``Syncable`` entity travels as a record, and under which names: built once, from the
/// container's schema and the entity's ``SyncConfiguration``.
///
/// Attributes travel as fields in their JSON form (see ``FieldCoding``). A to-one relationship to
/// an entity that syncs travels as a field holding the destination's global ID; its inverse to-many
/// needs no field of its own. Relationships to entities that do not sync stay local.
struct RecordShape: Sendable {
    enum FieldKind: Sendable {
        case attribute(AttributeType, isOptional: Bool)
        /// A to-one relationship: the destination's global ID as text, or null.
        case reference(destinationEntity: String)
    }

    struct Field: Sendable {
        /// The property's name in the model.
        let property: String
        /// The field's name on the server.
        let name: String
        let kind: FieldKind
    }

    let type: any Syncable.Type
    let entityName: String
    let recordType: String
    let configuration: SyncConfiguration
    let fields: [Field]
    private let fieldsByName: [String: Field]
    private let fieldsByProperty: [String: Field]

    /// The shape of `type`, whose relationships reach the entities of `synced` (entity names).
    ///
    /// - Throws: ``SyncError/invalidConfiguration(entity:reason:)`` when the configuration names
    ///   properties the entity does not have, or two properties one field.
    init(type: any Syncable.Type, schema: Schema, synced: Set<String>) throws {
        let entityName = type.entityName
        guard let description = schema.entities.first(where: { $0.name == entityName }) else {
            throw SyncError.invalidConfiguration(entity: entityName, reason: "it is not in the container's schema")
        }
        let configuration = type.syncConfiguration
        let properties = Set(description.attributes.map { $0.name } + description.relationships.map { $0.name })
        let unknown = configuration.excludedProperties.union(configuration.fieldNames.keys).subtracting(properties)
        if let name = unknown.sorted().first {
            throw SyncError.invalidConfiguration(entity: entityName, reason: "it has no property '\(name)' to exclude or rename")
        }
        func name(of property: String) -> String { configuration.fieldNames[property] ?? property }
        var fields: [Field] = []
        for attribute in description.attributes where !configuration.excludedProperties.contains(attribute.name) {
            fields.append(Field(property: attribute.name, name: name(of: attribute.name),
                                kind: .attribute(attribute.type, isOptional: attribute.isOptional)))
        }
        for relationship in description.relationships
        where !relationship.isToMany && synced.contains(relationship.destination)
            && !configuration.excludedProperties.contains(relationship.name) {
            fields.append(Field(property: relationship.name, name: name(of: relationship.name),
                                kind: .reference(destinationEntity: relationship.destination)))
        }
        var byName: [String: Field] = [:]
        for field in fields {
            if let other = byName.updateValue(field, forKey: field.name) {
                throw SyncError.invalidConfiguration(
                    entity: entityName, reason: "'\(other.property)' and '\(field.property)' both sync as the field '\(field.name)'")
            }
        }
        self.type = type
        self.entityName = entityName
        self.recordType = configuration.recordType ?? entityName
        self.configuration = configuration
        self.fields = fields
        self.fieldsByName = byName
        self.fieldsByProperty = Dictionary(uniqueKeysWithValues: fields.map { ($0.property, $0) })
    }

    /// The field the server names `name`.
    func field(named name: String) -> Field? { fieldsByName[name] }

    /// The field of the property named `property`; nil for a property that stays local.
    func field(forProperty property: String) -> Field? { fieldsByProperty[property] }
}
