package import ObjectGraphModel
import ObjectGraphStore

extension ObjectContext {
    /// The objects a deletion of `state`'s object would reach by its cascade rules (members of
    /// to-many relationships, then to-one destinations), loaded or as faults, for rules that follow a
    /// cascade without deleting: marking a `DelayedDeletable` object marks these too.
    package func cascadeTargets(of state: ObjectState) -> [any Entity] {
        guard let mapping = state.mapping else { return [] }
        var targets: [any Entity] = []
        for (slot, relationship) in mapping.toManyRelationships.enumerated() where relationship.description.deleteRule == .cascade {
            targets += objects(with: members(of: state, slot: slot), of: mapping.toManyDestinations[slot])
        }
        for (slot, relationship) in mapping.toOneRelationships.enumerated() where relationship.description.deleteRule == .cascade {
            if let id = state.relatedID(at: slot), let related = object(with: id) { targets.append(related) }
        }
        return targets
    }
}
