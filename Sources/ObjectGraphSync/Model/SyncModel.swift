import Foundation
import ObjectGraph

/// The entities that sync, with their record shapes, by entity name and by record type: built once
/// when a coordinator is made, and checked against the container.
struct SyncModel: Sendable {
    let shapes: [RecordShape]
    private let byEntity: [String: RecordShape]
    private let byRecordType: [String: RecordShape]
    private let memberships: [String: (owner: RecordShape, membership: RecordShape.Membership)]
    private let orderedLists: [String: [RecordShape.OrderedList]]
    /// The memberships whose links end at each entity, by the members' entity.
    private let membershipsByDestination: [String: [(owner: RecordShape, membership: RecordShape.Membership)]]

    /// The model of `types` in a container of `schema`.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/invalidConfiguration``) when the schema lacks the sync's
    ///   own entities or one of `types`, when two entities sync as one record type, or when a
    ///   configuration names properties an entity does not have.
    init(types: [any Syncable.Type], schema: Schema) throws {
        let names = Set(schema.entities.map(\.name))
        if let missing = SyncCoordinator.entities.first(where: { !names.contains($0.entityName) }) {
            throw SyncError.invalidConfiguration(
                entity: missing.entityName,
                reason: "the container's schema lacks the sync's own entities: open it with SyncCoordinator.entities among its types")
        }
        let synced = Set(types.map { $0.entityName })
        let shapes = try types.map { try RecordShape(type: $0, schema: schema, synced: synced) }
        var byRecordType: [String: RecordShape] = [:]
        for shape in shapes {
            if let other = byRecordType.updateValue(shape, forKey: shape.recordType) {
                throw SyncError.invalidConfiguration(
                    entity: shape.entityName, reason: "\(other.entityName) syncs as the record type '\(shape.recordType)' too")
            }
        }
        self.shapes = shapes
        self.byEntity = Dictionary(uniqueKeysWithValues: shapes.map { ($0.entityName, $0) })
        self.byRecordType = byRecordType
        var memberships: [String: (owner: RecordShape, membership: RecordShape.Membership)] = [:]
        for shape in shapes {
            for membership in shape.memberships {
                guard byRecordType[membership.recordType] == nil, memberships[membership.recordType] == nil else {
                    throw SyncError.invalidConfiguration(
                        entity: shape.entityName,
                        reason: "the links of '\(membership.property)' and another record type are both '\(membership.recordType)'")
                }
                memberships[membership.recordType] = (shape, membership)
            }
        }
        self.memberships = memberships
        self.membershipsByDestination = Dictionary(grouping: memberships.values, by: \.membership.destinationEntity)
        self.orderedLists = Dictionary(grouping: shapes.flatMap(\.positions), by: \.ownerEntity)
    }

    /// The names of the entities that sync.
    var entityNames: Set<String> { Set(byEntity.keys) }

    func shape(forEntity name: String) -> RecordShape? { byEntity[name] }

    func shape(forRecordType recordType: String) -> RecordShape? { byRecordType[recordType] }

    /// Whether an entity that `shape`'s entity is a subentity of syncs too: that entity's objects
    /// include `shape`'s (an entity hierarchy).
    func hasSyncedParent(_ shape: RecordShape) -> Bool {
        var parent = shape.type._$entity.parent
        while let entity = parent {
            if byEntity[entity.name] != nil { return true }
            parent = entity.parent
        }
        return false
    }

    /// The ordered relationships of `entity` whose order syncs (see ``RecordShape/OrderedList``).
    func orderedLists(ofOwner entity: String) -> [RecordShape.OrderedList] { orderedLists[entity] ?? [] }

    /// The memberships whose members are of `entity` (whose links it is the target of).
    func memberships(withMembersOf entity: String) -> [(owner: RecordShape, membership: RecordShape.Membership)] {
        membershipsByDestination[entity] ?? []
    }

    /// The owning entity and the membership of a link record type (`Playlist.tracks`).
    func membership(forRecordType recordType: String) -> (owner: RecordShape, membership: RecordShape.Membership)? {
        memberships[recordType]
    }
}

extension SyncModel {
    /// The object `object` belongs to, with its shape: the first of the shape's parent references
    /// (see ``RecordShape/parentReferences``) that points somewhere; nil for none.
    ///
    /// - Throws: `ObjectGraphError` when the relationship cannot be read.
    func parent(of object: any Entity, shape: RecordShape) throws -> (object: any Entity, shape: RecordShape)? {
        for field in shape.parentReferences {
            guard case .reference(let entity) = field.kind, let parentShape = self.shape(forEntity: entity),
                let parent = try object.relatedObjects(forKey: field.property).first
            else { continue }
            return (parent, parentShape)
        }
        return nil
    }
}
