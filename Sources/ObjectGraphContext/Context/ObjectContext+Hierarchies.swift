import ObjectGraphModel
import ObjectGraphStore

/// The objects a relationship reaches in an entity hierarchy: a relationship to an entity with
/// subentities holds objects of any of them, and an object is made as an instance of its own class,
/// which only its row's `Z_ENT` tells (see `EntityHierarchy`).
extension ObjectContext {
    /// `ids`, IDs of rows of `mapping`'s table made with `mapping`'s entity, each with the entity
    /// its row is of. IDs of other entities, temporary IDs and rows that are gone stay as they are
    /// (a fault of a gone row reads as deleted). A failed read is recorded and leaves them too.
    func concreteIDs(_ ids: [ObjectID], of mapping: EntityMapping) -> [ObjectID] {
        guard mapping.hierarchy?.hasSubentities == true else { return ids }
        let keys = ids.filter { !$0.isTemporary && $0.entity === mapping.declaration }.map(\.key)
        guard !keys.isEmpty else { return ids }
        let entities: [Int64: String]
        do {
            entities = try store.reader.entities(ofKeys: keys, in: mapping)
        } catch {
            readFailures.record(.readFailed(ids[0], property: nil, StoreError(error)), for: ids[0])
            return ids
        }
        return ids.map { id in
            guard !id.isTemporary, id.entity === mapping.declaration, let name = entities[id.key], name != mapping.name,
                let concrete = store.mapping(named: name)
            else { return id }
            return ObjectID(entity: concrete.declaration, key: id.key, store: id.store)
        }
    }
}
