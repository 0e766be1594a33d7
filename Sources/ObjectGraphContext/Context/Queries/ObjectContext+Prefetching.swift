package import ObjectGraphModel
import ObjectGraphStore

extension ObjectContext {
    /// Loads, set-wise, the objects each of `paths` reaches from `roots`, level by level: the
    /// objects of the next level, by the foreign keys in the level's rows for a to-one
    /// relationship (its faults' rows read first, a query per chunk of keys), by a query per chunk
    /// of owners for a to-many one; then the last level's rows. A path is a chain of relationships by property index, each in the entity the
    /// one before leads to (see `EntityDeclaration.relationshipPath(at:)`).
    ///
    /// - Throws: The store's error, as a fetch reports it, when the members of a to-many relationship
    ///   cannot be read. A row that cannot be read leaves its object a fault, which reports the
    ///   failure when it is used, as any fault does.
    ///
    /// - Returns: Every object reached: the caller holds them as long as their rows should stay
    ///   loaded (a context holds no object nobody holds, and a relationship holds its destination's
    ///   ID, not the object).
    package func prefetch(_ paths: [[Int]], from roots: [ObjectState]) throws -> [any Entity] {
        var reached: [any Entity] = []
        for path in paths {
            var level = roots
            for index in path {
                let objects = try objects(reachedBy: index, from: level)
                reached += objects
                level = objects.map(\._$state)
                if level.isEmpty { break }
            }
            loadFaults(level)
        }
        return reached
    }

    /// The objects, without repeats, that relationship `index` of `states` (of one entity) holds.
    private func objects(reachedBy index: Int, from states: [ObjectState]) throws -> [any Entity] {
        guard let mapping = states.first?.mapping else { return [] }
        var ids: [ObjectID] = []
        let destination: EntityDeclaration
        switch mapping.declaration.layout.slots[index] {
        case .toOne(let slot):
            destination = mapping.toOneDestinations[slot]
            // The keys are in the rows: the faults' rows first (not those a partial fetch read
            // the key of, nor the results, which the fetch loaded).
            let position = mapping.attributeColumns.count + slot
            loadFaults(states.filter { $0.needsRow(forPosition: position) })
            ids = states.compactMap { $0.relatedID(at: slot) }
        case .toMany(let slot):
            destination = mapping.toManyDestinations[slot]
            let relationship = mapping.toManyRelationships[slot]
            do {
                try loadMembers(of: states.filter { $0.toMany[slot].needsLoading }, slot: slot, relationship: relationship)
            } catch let error as StoreError {
                throw ObjectGraphError.query(error, entity: mapping.name)
            }
            for state in states { ids += state.toMany[slot].members }
        case .attribute:
            return []
        }
        var seen = Set<ObjectID>()
        ids.removeAll { !seen.insert($0).inserted }
        return objects(with: ids, of: destination)
    }
}
