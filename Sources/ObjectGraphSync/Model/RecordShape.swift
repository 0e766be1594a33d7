import ObjectGraph

/// What of a ``Syncable`` entity travels as a record, and under which names: built once, from the
/// container's schema and the entity's ``SyncConfiguration``.
///
/// Attributes travel as fields in their JSON form (see ``FieldCoding``). A to-one relationship to
/// an entity that syncs travels as a field holding the destination's global ID; its inverse to-many
/// needs no field of its own. A many-to-many relationship travels as one record per link (see
/// ``Membership``), so that two devices adding different members both keep theirs. Relationships
/// to entities that do not sync stay local.
struct RecordShape: Sendable {
    /// A many-to-many relationship whose links this entity's records own: each link is a record of
    /// its own, of type `Owner.relationship`, with `source` and `target` fields holding the two
    /// objects' global IDs. Of the two sides, the one whose `Entity.relationship` name sorts first
    /// owns the links, the same on every device.
    ///
    /// A side that is ordered keeps its order in the links too: each link carries its place in the
    /// source's list (`sourcePosition`) or in the target's (`targetPosition`), a
    /// ``FractionalIndex`` key, as a member of an ordered one-to-many relationship carries its own.
    struct Membership: Sendable {
        /// The to-many relationship, on the owning entity.
        let property: String
        /// The record type of its links.
        let recordType: String
        /// The entity of the members.
        let destinationEntity: String
        /// The inverse relationship, on the members' entity.
        let inverse: String
        /// Whether the owner's relationship is ordered.
        let isOrdered: Bool
        /// Whether the inverse relationship is ordered.
        let isInverseOrdered: Bool

        /// The ordered sides of the relationship.
        var orderedSides: [LinkSide] { (isOrdered ? [.source] : []) + (isInverseOrdered ? [.target] : []) }

        /// The relationship, on the objects of `side`, whose members are the links' other ends.
        func relationship(of side: LinkSide) -> String { side == .source ? property : inverse }
    }

    /// One end of a link: the owner (`source`) or the member (`target`).
    enum LinkSide: String, Sendable, Hashable {
        case source, target

        /// The link's field holding its place in this end's ordered list.
        var positionField: String { rawValue + "Position" }
    }

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
    /// An attribute of the entity, synced or not, whose read loads a fault; nil for an entity
    /// without attributes.
    let loadingAttribute: String?
    let recordType: String
    let configuration: SyncConfiguration
    let fields: [Field]
    let memberships: [Membership]
    /// The groups of synced fields no two objects may share: each unique attribute's, then each
    /// `#Unique` group's (attributes and references). Two records with one group's values merge
    /// (see ``SyncCoordinator``'s unique attributes). A group with a property the sync leaves out
    /// is not here: the store alone keeps it.
    let uniqueGroups: [[Field]]
    /// Every to-many relationship, with its inverse: a merged object's members move to the survivor.
    let toManyRelationships: [(name: String, inverse: String)]
    /// The synced references to the object this one belongs to: those whose inverse is a to-many
    /// relationship with the cascade delete rule (deleting the parent deletes this object). An
    /// object lives in its parent's zone.
    let parentReferences: [Field]
    /// The to-many relationships with the cascade delete rule whose destination syncs: the objects
    /// that belong to this one, which follow it into a shared zone.
    let belongings: [String]
    /// The ordered to-many relationships this entity's objects are members of, through one of
    /// their references: each member's record carries its position in the owner's list.
    let positions: [OrderedList]

    /// An ordered to-many relationship whose members point back with a synced reference: the
    /// order travels as a position field of each member's record (a ``FractionalIndex`` key), so
    /// that edits of the order on two devices merge.
    struct OrderedList: Sendable, Hashable {
        /// The owner's entity and its ordered relationship.
        let ownerEntity: String
        let relationship: String
        /// The members' entity and its reference to the owner.
        let memberEntity: String
        let reference: String
        /// The member record's field that holds its position: the reference's field name and
        /// `.position`.
        let positionField: String
        /// The name under which the position is pending in the member's state (no property has it).
        var positionProperty: String { reference + "#position" }
    }
    /// The names of every field a record of this entity may carry here: its fields and the
    /// positions of the ordered lists it is a member of.
    let knownFieldNames: Set<String>
    private let fieldsByName: [String: Field]
    private let fieldsByProperty: [String: Field]

    /// The shape of `type`, whose relationships reach the entities of `synced` (entity names).
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) when the configuration names
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
        loadingAttribute = description.attributes.first?.name
        var fields: [Field] = []
        for attribute in description.attributes where !configuration.excludedProperties.contains(attribute.name) {
            fields.append(
                Field(
                    property: attribute.name, name: name(of: attribute.name),
                    kind: .attribute(attribute.type, isOptional: attribute.isOptional)))
        }
        for relationship in description.relationships
        where !relationship.isToMany && synced.contains(relationship.destination)
            && !configuration.excludedProperties.contains(relationship.name)
        {
            fields.append(
                Field(
                    property: relationship.name, name: name(of: relationship.name),
                    kind: .reference(destinationEntity: relationship.destination)))
        }
        var memberships: [Membership] = []
        for relationship in description.relationships
        where relationship.isToMany && synced.contains(relationship.destination)
            && !configuration.excludedProperties.contains(relationship.name)
        {
            guard
                let inverse = schema.entities.first(where: { $0.name == relationship.destination })?
                    .relationship(named: relationship.inverse), inverse.isToMany,
                "\(entityName).\(relationship.name)" < "\(relationship.destination).\(relationship.inverse)"
            else { continue }
            memberships.append(
                Membership(
                    property: relationship.name, recordType: "\(configuration.recordType ?? entityName).\(relationship.name)",
                    destinationEntity: relationship.destination, inverse: inverse.name, isOrdered: relationship.isOrdered,
                    isInverseOrdered: inverse.isOrdered))
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
        self.memberships = memberships
        let byProperty = Dictionary(uniqueKeysWithValues: fields.map { ($0.property, $0) })
        self.uniqueGroups = description.allUniquenessConstraints.compactMap { group in
            let members = group.compactMap { byProperty[$0] }
            return members.count == group.count ? members : nil
        }
        self.toManyRelationships = description.relationships.filter(\.isToMany).map { ($0.name, $0.inverse) }
        self.parentReferences = fields.filter { field in
            guard case .reference(let parent) = field.kind,
                let relationship = description.relationships.first(where: { $0.name == field.property }),
                let inverse = schema.entities.first(where: { $0.name == parent })?.relationship(named: relationship.inverse)
            else { return false }
            return inverse.isToMany && inverse.deleteRule == .cascade
        }
        self.belongings = description.relationships.filter { $0.isToMany && $0.deleteRule == .cascade && synced.contains($0.destination) }
            .map(\.name)
        self.positions = fields.compactMap { field in
            guard case .reference(let owner) = field.kind,
                let relationship = description.relationships.first(where: { $0.name == field.property }),
                let inverse = schema.entities.first(where: { $0.name == owner })?.relationship(named: relationship.inverse),
                inverse.isToMany, inverse.isOrdered
            else { return nil }
            return OrderedList(
                ownerEntity: owner, relationship: inverse.name, memberEntity: entityName, reference: field.property,
                positionField: field.name + ".position")
        }
        self.fieldsByName = byName
        self.knownFieldNames = Set(byName.keys).union(positions.map(\.positionField))
        self.fieldsByProperty = Dictionary(uniqueKeysWithValues: fields.map { ($0.property, $0) })
    }

    /// The field the server names `name`.
    func field(named name: String) -> Field? { fieldsByName[name] }

    /// The field of the property named `property`; nil for a property that stays local.
    func field(forProperty property: String) -> Field? { fieldsByProperty[property] }

    /// The membership of the many-to-many relationship named `property`, when this entity owns its links.
    func membership(forProperty property: String) -> Membership? { memberships.first { $0.property == property } }
}
