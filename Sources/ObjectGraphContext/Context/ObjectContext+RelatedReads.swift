import ObjectGraphModel
import ObjectGraphStore

/// Which objects of an entity read what changed in related objects.
extension ObjectContext {
    /// The objects of `root` whose reads (see ``PropertyReads``) the changes of `changed` objects
    /// change: a list sorted by `\Mood.country?.name` must place again every mood of a renamed
    /// country, and a fetch of `$0.country?.continent?.name == "Europe"` must evaluate in memory every
    /// mood of the countries of a continent renamed here (the store holds the old name). Found by
    /// walking back from each changed object along the inverses of the relationships the reads
    /// follow, so the cost grows with the related objects, not with the entity's table.
    ///
    /// - Parameter changed: Objects with the names of their changed properties (empty when unknown).
    ///   A deleted object counts as wholly changed: an object of this context may still point to it
    ///   (an insertion linked to an object another context deleted), and reads its values no longer.
    /// - Throws: A failed read of a relationship (what the reads reach is then unknown).
    func objects(
        readingChangesOf changed: [(object: any Entity, changedKeys: Set<String>)],
        reads: PropertyReads, root: EntityDeclaration
    ) throws -> [AnyObject] {
        guard reads.followsRelationships else { return [] }
        var frontier: [ObjectState] = []
        var visited = Set<ObjectIdentifier>()
        for (object, changedKeys) in changed {
            let state = object._$state
            guard state.context === self, reads.isAffected(by: state.isDeleted ? [] : changedKeys, of: state.entity),
                !reads.relationships(leadingTo: state.entity).isEmpty,
                visited.insert(ObjectIdentifier(state)).inserted
            else { continue }
            frontier.append(state)
        }
        var found: [AnyObject] = []
        while !frontier.isEmpty {
            var next: [ObjectState] = []
            for states in frontier.groupedByEntity() {
                guard let entity = states.first?.entity else { continue }
                for followed in reads.relationships(leadingTo: entity) {
                    let ids = try inverseIDs(of: states, followed.relationship)
                    for object in objects(with: ids, of: followed.owner) {
                        let state = object._$state
                        guard visited.insert(ObjectIdentifier(state)).inserted
                        else { continue }
                        if followed.owner === root { found.append(object) }
                        if !reads.relationships(leadingTo: followed.owner).isEmpty { next.append(state) }
                    }
                }
            }
            frontier = next
        }
        return found
    }

    /// The IDs of the objects that point to `states` through `relationship`: the members of its
    /// inverse, read set-wise (for a deleted object, what this context knows: its row is gone).
    private func inverseIDs(of states: [ObjectState], _ relationship: RelationshipMapping) throws -> [ObjectID] {
        guard let entity = states.first?.entity else { return [] }
        let live = states.filter { !$0.isDeleted }
        let deleted = states.filter(\.isDeleted)
        switch entity.layout.slots[relationship.inversePropertyIndex] {
        case .toOne(let slot):
            loadFaults(live)
            for state in live where state.isFault { try loadFault(state) }  // what the batch could not read
            return states.compactMap { $0.isFault ? nil : $0.relatedID(at: slot) }
        case .toMany(let slot):
            if let mapping = live.first?.mapping {
                let unloaded = live.filter { $0.toMany[slot].needsLoading && !$0.id.isTemporary }
                try loadMembers(of: unloaded, slot: slot, relationship: mapping.toManyRelationships[slot])
            }
            return try live.flatMap { try loadedMembers(of: $0, slot: slot) } + deleted.flatMap { $0.toMany[slot].members }
        case .attribute:
            return []
        }
    }
}
